"""The environment contract (docs/deploy.md), read as a production process reads it: a process
with DEBUG off refuses to start without its database or Redis, and the Redis and PostgreSQL
settings follow the variables: broker and cache apart, Sentinel, timeouts, PgBouncer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from dragonheart_site import environment
from tests.support.production import production_env, run

pytestmark = pytest.mark.processes  # starts processes of its own: not in scripts/test --quick

READ = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'caches': s.CACHES, 'databases': s.DATABASES, 'broker': s.CELERY_BROKER_URL, "
    "'transport': getattr(s, 'CELERY_BROKER_TRANSPORT', None), "
    "'options': s.CELERY_BROKER_TRANSPORT_OPTIONS, 'eager': s.CELERY_TASK_ALWAYS_EAGER}, default=str))"
)


def _settings(**overrides: str) -> dict[str, Any]:
    done = run(["-c", READ], production_env(**overrides))
    assert done.returncode == 0, done.stderr
    values: dict[str, Any] = json.loads(done.stdout)
    return values


@pytest.mark.parametrize("name", ["DATABASE_URL", "REDIS_URL"])
def test_a_production_process_without_its_database_or_redis_stops_and_says_why(name):
    env = production_env()
    del env[name]

    done = run(["manage.py", "check"], env)

    assert done.returncode != 0
    assert f"{name} is not set. With DEBUG=0 it is required" in done.stderr


def test_broker_and_cache_are_apart_and_every_redis_client_has_timeouts():
    values = _settings(REDIS_URL="redis://redis.invalid:6379/3")

    assert values["caches"]["default"]["LOCATION"] == "redis://redis.invalid:6379/3"
    assert values["broker"] == "redis://redis.invalid:6379/4"
    assert values["caches"]["default"]["OPTIONS"]["SOCKET_TIMEOUT"] > 0
    assert values["caches"]["default"]["OPTIONS"]["SOCKET_CONNECT_TIMEOUT"] > 0
    assert values["options"]["socket_timeout"] > 0
    assert values["options"]["socket_connect_timeout"] > 0
    assert values["eager"] is False


def test_with_sentinels_the_cache_and_the_broker_find_the_master_through_them():
    values = _settings(
        REDIS_URL="redis://:secret@ignored.invalid:6379/2",
        REDIS_SENTINELS="s1.invalid:26379,s2.invalid:26380",
        REDIS_SENTINEL_MASTER="dragonheart",
    )

    cache = values["caches"]["default"]
    assert cache["LOCATION"] == "redis://:secret@dragonheart/2"
    assert cache["OPTIONS"]["CONNECTION_FACTORY"] == "django_redis.pool.SentinelConnectionFactory"
    assert cache["OPTIONS"]["SENTINELS"] == [["s1.invalid", 26379], ["s2.invalid", 26380]]
    assert values["broker"] == "sentinel://:secret@s1.invalid:26379/3;sentinel://:secret@s2.invalid:26380/3"
    assert values["transport"] == "core.broker:SentinelTransport"
    assert values["options"]["master_name"] == "dragonheart"


def test_behind_pgbouncer_no_statement_is_prepared_and_no_cursor_outlives_a_transaction():
    values = _settings(
        DATABASE_URL="postgres://u:p@pgbouncer.invalid:6432/dh",
        DATABASE_DIRECT_URL="postgres://u:p@primary.invalid:5432/dh",
        PG_PREPARED_STATEMENTS="0",
    )

    default, direct = values["databases"]["default"], values["databases"]["direct"]
    assert default["HOST"] == "pgbouncer.invalid"
    assert default["DISABLE_SERVER_SIDE_CURSORS"] is True
    assert default["CONN_HEALTH_CHECKS"] is True
    assert "prepare_threshold" not in default["OPTIONS"]
    assert direct["HOST"] == "primary.invalid"
    assert "DISABLE_SERVER_SIDE_CURSORS" not in direct
    assert "replica" not in values["databases"]


def test_a_replica_is_an_alias_of_its_own_only_when_given():
    values = _settings(DATABASE_REPLICA_URL="postgres://u:p@replica.invalid:5432/dh")

    assert values["databases"]["replica"]["HOST"] == "replica.invalid"
    assert values["databases"]["direct"]["HOST"] == "db.invalid"  # DATABASE_URL's, when not given


@pytest.mark.parametrize("item", ["host", "host:port", ":26379"])
def test_a_sentinel_address_must_be_host_and_port(item):
    with pytest.raises(ImproperlyConfigured):
        environment.host_port(item)


def test_the_cache_on_database_15_leaves_no_database_for_the_broker():
    with pytest.raises(ImproperlyConfigured, match="REDIS_BROKER_URL"):
        environment.next_database("redis://h:6379/15")
