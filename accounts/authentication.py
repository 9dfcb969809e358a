from __future__ import annotations

import copy
import logging
import time

from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from redis.exceptions import RedisError
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiToken, token_digest

# A token's user is cached (in Redis in production) so that most API requests make no
# authentication query: programs poll. Revoking a token deletes its entry at once; a
# deactivated user's tokens stop working when the entry expires.
CACHE_SECONDS = 300
# In front of Redis, each process keeps what it read for one second: a client polling a game
# or playing a series of turns is authenticated without the Redis round trip, which was 15% of
# the CPU of opening a game. The price: a revoked token still works for up to this long in
# the other server processes (the revoking process forgets it at once).
LOCAL_SECONDS = 1.0
_local: dict[str, tuple[float, AbstractBaseUser]] = {}
_clock = time.monotonic  # tests move it
log = logging.getLogger(__name__)


def forget_locally(digest: str | None = None) -> None:
    """Drop this process's entry for ``digest`` (every entry when None)."""
    if digest is None:
        _local.clear()
    else:
        _local.pop(digest, None)


def cache_key(digest: str) -> str:
    return f"apitoken:{digest}"


class TokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Token <key>`` against the hashed personal tokens."""

    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, str] | None:
        # Read from META: DRF's get_authorization_header goes through request.headers, which
        # builds a mapping of every header that nothing else in most API requests reads.
        header = request.META.get("HTTP_AUTHORIZATION", "").split()
        if not header or header[0] != self.keyword:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Invalid token header: give 'Token <key>'.")
        if not header[1].isascii():  # keys are ASCII: never look one up that cannot be
            raise exceptions.AuthenticationFailed("Invalid token.")
        digest = token_digest(header[1])
        now = _clock()
        if (kept := _local.get(digest)) is not None and kept[0] > now:
            # A copy: a view that changes its request.user must not change the kept one.
            return copy.copy(kept[1]), digest
        try:
            user = cache.get(cache_key(digest))
        except RedisError:  # the cache is down: the database still knows every token
            log.warning("token cache unavailable; reading the token from the database")
            return self._from_database(digest), digest
        if user is None:
            user = self._from_database(digest)
            cache.set(cache_key(digest), user, CACHE_SECONDS)
        if len(_local) > 10_000:  # bounded: many clients in one second start it afresh
            _local.clear()
        _local[digest] = (now + LOCAL_SECONDS, user)
        return copy.copy(user), digest

    @staticmethod
    def _from_database(digest: str) -> AbstractBaseUser:
        token = ApiToken.objects.select_related("user").filter(digest=digest).first()
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return token.user

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
