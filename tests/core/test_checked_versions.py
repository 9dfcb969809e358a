"""The releases the overrides and fast paths (the table in core/__init__.py) were checked
against, and the library names they touch that no library documents.

An upgrade of one of these packages fails here first, and says which override to re-check
and which test compares it with the library code it replaces: run that test, read the
override against the new release's code, then pin the new release here. A private name gone
fails its own test, with the same advice."""

from __future__ import annotations

import inspect
from importlib.metadata import version
from typing import Any

import pytest

CHECKED = {
    "django": "5.2.19",
    "djangorestframework": "3.18.3",
    "django-csp": "4.0",
    "django-redis": "7.0.0",
    "redis": "8.1.0",
    "kombu": "5.7.0",
    "celery": "5.7.0",
    "glicko2": "2.1.0",
}

# Each override: what to re-check, and the test that compares it with what it replaces.
CSP = "core.middleware.CSPMiddleware (tests/security/test_csp_header_cache.py)"
RENDERER = "core.renderers.JSONRenderer (tests/api/test_renderers.py)"
PARSER = "core.parsers.JSONParser (tests/api/test_bodies.py, 'nested past the decoder')"
THROTTLE = "core.throttling.WindowScopedRateThrottle (tests/core/test_throttling.py)"
COUNTER = "core.cache.count_hit (tests/core/test_throttling.py::test_the_counter_is_atomic_*)"
BROKER = "core.broker.RedisChannel (tests/faults/test_worker_survives_redis.py: passing without it, it goes)"
STATEMENTS = "games.event_log.statements (tests/games/test_statements.py)"
GAME_ROW = "games.selectors.game_by_id (tests/games/test_statements.py::test_game_by_id_*)"
GLICKO = "ratings.glicko._Player (tests/ratings/test_glicko.py)"
EMBEDDED = "core.embedded_worker (tests/core/test_embedded_worker.py)"

READ_BY = {
    "django": [STATEMENTS, GAME_ROW],
    "djangorestframework": [RENDERER, PARSER, THROTTLE],
    "django-csp": [CSP],
    "django-redis": [COUNTER],
    "redis": [COUNTER, BROKER],
    "kombu": [BROKER],
    "celery": [BROKER, EMBEDDED],
    "glicko2": [GLICKO],
}


def _recheck(*overrides: str) -> str:
    return "re-check " + "; ".join(overrides) + ", then update tests/core/test_checked_versions.py"


@pytest.mark.parametrize("package", CHECKED)
def test_the_overrides_were_checked_against_the_installed_release(package):
    installed = version(package)

    assert installed == CHECKED[package], (
        f"{package} {installed} is not the {CHECKED[package]} the overrides were checked against: "
        + _recheck(*READ_BY[package])
    )


def _parameters(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


def test_csp_builds_the_policy_with_the_public_names_it_did():
    from csp import constants
    from csp.utils import build_policy

    assert _parameters(build_policy) == ["config", "update", "replace", "nonce", "report_only"], _recheck(CSP)
    assert (constants.HEADER, constants.HEADER_REPORT_ONLY) == (
        "Content-Security-Policy",
        "Content-Security-Policy-Report-Only",
    ), _recheck(CSP)


def test_drf_renderer_and_throttle_keep_the_names_ours_read():
    from rest_framework.renderers import JSONRenderer
    from rest_framework.throttling import BaseThrottle, ScopedRateThrottle

    assert _parameters(JSONRenderer.get_indent)[1:] == ["accepted_media_type", "renderer_context"], _recheck(
        RENDERER
    )
    for name in ("compact", "ensure_ascii", "encoder_class"):
        assert hasattr(JSONRenderer, name), _recheck(RENDERER)
    for name in ("scope_attr", "get_rate", "parse_rate", "get_cache_key", "timer", "THROTTLE_RATES"):
        assert hasattr(ScopedRateThrottle, name), _recheck(THROTTLE)
    assert callable(BaseThrottle.get_ident), _recheck(THROTTLE)


def test_django_redis_still_hands_out_its_raw_client():
    from django.core.cache.backends.base import BaseCache
    from django_redis.cache import RedisCache
    from django_redis.client import DefaultClient
    from redis.client import Pipeline

    assert isinstance(inspect.getattr_static(RedisCache, "client"), property), _recheck(COUNTER)
    assert "write" in _parameters(DefaultClient.get_client), _recheck(COUNTER)
    assert callable(BaseCache.make_and_validate_key), _recheck(COUNTER)
    assert "nx" in _parameters(Pipeline.expire), _recheck(COUNTER)


def test_the_private_names_the_broker_mend_reads_are_still_there():
    from celery.worker.consumer.consumer import Consumer
    from kombu import Connection
    from kombu.transport import redis as kombu_redis

    assert callable(getattr(kombu_redis.Channel, "_brpop_read", None)), _recheck(BROKER)
    assert hasattr(kombu_redis.Channel, "_in_poll"), _recheck(BROKER)
    # The two steps of the close the mend is about (core/broker.py says how they meet).
    assert callable(getattr(Connection, "_do_close_transport", None)), _recheck(BROKER)
    assert callable(getattr(Consumer, "on_connection_error_after_connected", None)), _recheck(BROKER)


def test_the_worker_state_the_embedded_worker_stops_with_is_still_there():
    from celery.worker import state

    # None while running; the worker loops of the process return once it is anything else.
    assert hasattr(state, "should_terminate"), _recheck(EMBEDDED)
    assert state.should_terminate is None, _recheck(EMBEDDED)


@pytest.mark.django_db
def test_the_model_internals_the_statements_read_are_still_there():
    from django.db import connection
    from django.db.models import Field
    from django.db.models.base import ModelState

    from games.models import GameEvent

    meta = GameEvent._meta
    assert meta.pk is not None
    assert getattr(meta.pk, "db_returning", None) is True, _recheck(STATEMENTS)  # not in the stubs
    assert meta.db_table == "games_gameevent", _recheck(STATEMENTS)
    assert meta.pk in meta.concrete_fields, _recheck(STATEMENTS)
    fresh = GameEvent()._state
    assert isinstance(fresh, ModelState), _recheck(STATEMENTS)
    assert (fresh.adding, fresh.db) == (True, None), _recheck(STATEMENTS)
    assert _parameters(Field.pre_save)[1:] == ["model_instance", "add"], _recheck(STATEMENTS)
    assert _parameters(Field.get_db_prep_save)[1:] == ["value", "connection"], _recheck(STATEMENTS)
    assert connection.ops.quote_name("x") in ('"x"', "`x`"), _recheck(STATEMENTS)


@pytest.mark.django_db
def test_the_compiler_internals_the_game_row_reads_are_still_there():
    from django.db import DEFAULT_DB_ALIAS
    from django.db.models.expressions import Col

    from games.models import Game

    compiler = Game.objects.filter(pk="").query.get_compiler(using=DEFAULT_DB_ALIAS)
    sql, params = compiler.as_sql()
    assert sql.startswith("SELECT"), _recheck(GAME_ROW)
    assert params == ("",), _recheck(GAME_ROW)
    assert all(len(item) == 3 and isinstance(item[0], Col) for item in compiler.select), _recheck(GAME_ROW)
    columns = [column for column, _, _ in compiler.select]
    names = [column.target.attname for column in columns]
    assert names == [f.attname for f in Game._meta.concrete_fields], _recheck(GAME_ROW)
    converters = compiler.get_converters(columns)
    assert all(
        isinstance(funcs, list) and column is columns[i] for i, (funcs, column) in converters.items()
    ), _recheck(GAME_ROW)
    assert _parameters(Game.from_db) == ["db", "field_names", "values"], _recheck(GAME_ROW)


def test_glicko2_still_has_the_volatility_function_ours_replaces():
    import glicko2

    assert _parameters(glicko2.Player._f) == ["self", "x", "delta", "v", "a"], _recheck(GLICKO)
    assert glicko2.Player._tau == 0.5, _recheck(GLICKO)
