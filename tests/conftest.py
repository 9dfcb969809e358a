from __future__ import annotations

import time

import pytest
from django.db import connection


@pytest.fixture(autouse=True)
def _postgresql_when_marked(request: pytest.FixtureRequest) -> None:
    """Tests marked ``postgresql`` are about PostgreSQL itself (its trigger, a dropped
    connection). On another database they fail rather than pass unseen: the SQLite pass of
    scripts/test deselects them with ``-m "not postgresql"``, the PostgreSQL pass runs them."""
    if request.node.get_closest_marker("postgresql") and connection.vendor != "postgresql":
        pytest.fail(
            "this test needs PostgreSQL: run it with DATABASE_URL=postgres://… "
            "(scripts/test, second pass), or deselect it with -m 'not postgresql'",
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def _fresh_cache(settings):  # type: ignore[no-untyped-def]
    """Throttle counters and tokens' users live in the cache (and, for a second, in this
    process: accounts.authentication); no test should inherit another's."""
    from django.core.cache import cache

    from accounts.authentication import forget_locally

    cache.clear()
    forget_locally()
    yield
    cache.clear()
    forget_locally()


@pytest.fixture(autouse=True)
def _one_throttle_window(monkeypatch):  # type: ignore[no-untyped-def]
    """The API's throttles count in fixed one-minute windows: a test whose requests straddled
    a minute's end would see its count start again. Each test runs inside one window (a test
    may move this clock itself, as tests/games/test_throttling.py does)."""
    from dragonheart_site.throttling import WindowScopedRateThrottle

    pinned = time.time()
    monkeypatch.setattr(WindowScopedRateThrottle, "timer", staticmethod(lambda: pinned))


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):  # type: ignore[no-untyped-def]
    # PBKDF2 costs half a second a password here; tests check who gets in, not the hash.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


pytest_plugins = ["tests.celery_worker", "tests.redis_server"]
