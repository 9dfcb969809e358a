"""Readiness: 200 only while the node reaches its database and Redis and is not draining;
otherwise 503 with the reason, while liveness (``/api/health/``) still answers 200."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings

from core import drain
from tests.support.cache_settings import production_caches
from tests.support.redis_server import OwnRedis

READY = "/api/health/ready/"


def _answer(client: Any, path: str = READY) -> tuple[int, dict[str, Any]]:
    response = client.get(path)
    return response.status_code, response.json()


def _code(client: Any) -> tuple[int, str]:
    status, body = _answer(client)
    return status, body["code"]


def test_a_node_that_reaches_its_database_is_ready(client, db):
    assert _answer(client) == (200, {"ok": True})


def test_a_draining_node_is_not_ready_but_still_alive(client, db, monkeypatch, tmp_path):
    monkeypatch.setenv(drain.ENVIRONMENT, str(tmp_path / "draining"))
    assert _answer(client) == (200, {"ok": True})

    drain.start()

    assert _code(client) == (503, "draining")
    assert _answer(client, "/api/health/") == (200, {"ok": True})


@pytest.fixture
def database_unreachable(transactional_db, tmp_path: Path) -> Iterator[None]:
    """The next connection goes where no database answers. The settings are put back here,
    before the test database is emptied (monkeypatch would undo them after)."""
    saved = dict(connection.settings_dict)
    if connection.vendor == "postgresql":
        with socket.socket() as probe:  # a port nothing listens on
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        connection.settings_dict.update(HOST="127.0.0.1", PORT=str(port))
    else:
        connection.settings_dict["NAME"] = str(tmp_path / "no-such-folder" / "db.sqlite3")
    connection.close()
    yield
    connection.close()
    connection.settings_dict.update(saved)


def test_a_node_that_cannot_reach_its_database_is_not_ready(client, database_unreachable):
    assert _code(client) == (503, "database_unavailable")
    assert _answer(client, "/api/health/") == (200, {"ok": True})


def test_a_node_that_cannot_reach_redis_is_not_ready_until_it_can_again(client, db):
    redis = OwnRedis()
    redis.start()
    try:
        # Put back before the test's end, when the cache is emptied (tests/conftest.py).
        with override_settings(REDIS_URL=redis.url(), CACHES=production_caches(redis.url())):
            assert _answer(client) == (200, {"ok": True})
            redis.stop()
            assert _code(client) == (503, "cache_unavailable")
            redis.start()
            assert _answer(client) == (200, {"ok": True})
    finally:
        redis.stop()
