"""The cache as production configures it (settings.CACHES with a REDIS_URL), pointed at a Redis
of a test's own: tests of the cache's Redis going away, or of what it holds, run on the real
backend and options on either test database."""

from __future__ import annotations

import functools
import json
from typing import Any

from tests.support.production import production_env, run


@functools.cache
def _production_cache() -> dict[str, Any]:
    script = "import json, django; django.setup(); from django.conf import settings; "
    script += "print(json.dumps(settings.CACHES['default']))"
    done = run(["-c", script], production_env())
    assert done.returncode == 0, done.stderr
    cache: dict[str, Any] = json.loads(done.stdout)
    return cache


def production_caches(location: str) -> dict[str, Any]:
    """A CACHES setting: production's default cache, on the Redis at ``location``."""
    return {"default": {**_production_cache(), "LOCATION": location}}
