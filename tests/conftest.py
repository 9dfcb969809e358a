from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fresh_cache(settings):  # type: ignore[no-untyped-def]
    """Throttle counters live in the cache; no test should inherit another's."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):  # type: ignore[no-untyped-def]
    # PBKDF2 costs half a second a password here; tests check who gets in, not the hash.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


pytest_plugins = ["tests.celery_worker", "tests.redis_server"]
