"""A counter that costs one round trip on Redis, for the throttles.

The cache itself is django-redis (settings.CACHES), which keeps one Redis client per server for
the life of the process. Its errors are not ignored: a cache that cannot answer raises redis'
own ConnectionError or TimeoutError, and the API answers those with 503 ``cache_unavailable``
(core.api_errors), unless the caller has a way round, as ``count_hit`` has.
"""

from __future__ import annotations

import logging

from django.core.cache import caches
from django_redis.cache import RedisCache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)


def count_hit(key: str, timeout: int) -> int:
    """Add one to the counter ``key`` (created with ``timeout`` seconds to live) and return
    its new value, atomically: one round trip on Redis, add-then-incr elsewhere. With Redis
    unreachable it logs a warning and returns 0: a throttle that cannot count lets the
    request through rather than refuse every request while Redis is down."""
    cache = caches["default"]
    if isinstance(cache, RedisCache):
        full_key = cache.make_and_validate_key(key)
        # django-redis' raw client: INCR and EXPIRE NX in one pipeline, which its cache API
        # (an incr that needs the key to exist, then a separate expire) cannot send at once.
        pipe = cache.client.get_client(write=True).pipeline(transaction=False)
        pipe.incr(full_key)
        pipe.expire(full_key, timeout, nx=True)
        try:
            count, _ = pipe.execute()
        except RedisError:
            log.warning("cache unavailable; %s not counted", key)
            return 0
        return int(count)
    if cache.add(key, 1, timeout):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.add(key, 1, timeout)
        return 1
