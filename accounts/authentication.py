"""``Authorization: Token <key>``: the key's SHA-256 digest looked up in the database.

One indexed query per request (the token by its unique digest, its user joined), except that
each process keeps what it read (the user and the token's scopes) for one second: a client
polling a game or playing a series of turns is authenticated once a second, not on every
request. Nothing about users goes into the cache: a revoked token, a deactivated user or a
token's narrowed scopes take effect at once at the next lookup, and within that second in the
other server processes (the revoking process forgets at once). With Redis down,
authentication goes on as usual, since it never touches Redis.

``request.auth`` is a ``TokenAuth`` (the digest and the scopes) for a token, and None for a
browser session, which no scope limits (accounts.permissions).
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass

from django.contrib.auth.models import User
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiToken, token_digest

LOCAL_SECONDS = 1.0
_local: dict[str, tuple[float, User, frozenset[str]]] = {}
_clock = time.monotonic  # tests move it


def forget_locally(digest: str | None = None) -> None:
    """Drop this process's entry for ``digest`` (every entry when None)."""
    if digest is None:
        _local.clear()
    else:
        _local.pop(digest, None)


@dataclass(frozen=True, slots=True)
class TokenAuth:
    """What a request authenticated by a token carries as ``request.auth``."""

    digest: str
    scopes: frozenset[str]


class TokenAuthentication(authentication.BaseAuthentication):
    """``Authorization: Token <key>`` against the hashed personal tokens."""

    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[User, TokenAuth] | None:
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
        if (kept := _local.get(digest)) is None or kept[0] <= now:
            if len(_local) > 10_000:  # bounded: many clients in one second start it afresh
                _local.clear()
            kept = _local[digest] = (now + LOCAL_SECONDS, *self._from_database(digest))
        # A copy: a view that changes its request.user must not change the kept one.
        return copy.copy(kept[1]), TokenAuth(digest=digest, scopes=kept[2])

    @staticmethod
    def _from_database(digest: str) -> tuple[User, frozenset[str]]:
        # get(), not first(): a unique key needs neither the model's ordering nor a sort.
        live = ApiToken.objects.select_related("user").filter(digest=digest, user__is_active=True)
        try:
            token = live.get()
        except ApiToken.DoesNotExist:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.") from None
        return token.user, frozenset(token.scopes)

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
