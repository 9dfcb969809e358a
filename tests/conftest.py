from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fresh_cache(settings):  # type: ignore[no-untyped-def]
    """Throttle counters live in the cache; no test should inherit another's."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
