"""Reads that may lag, from the streaming replica (DATABASE_REPLICA_URL), chosen view by view.

Every query goes to the primary ("default") unless a view asks otherwise with
``@reads_may_lag``: players' pages, the leaderboard, a finished game's history and record.
A global router would send everything to the replica, and a player would miss the play they
have just made. Two rules keep a viewer's own writes in sight:

* **The viewer's last write.** After a request of theirs changes something (an unsafe method
  answered below 400), the primary's WAL position is remembered for them (``note_write``);
  their reads stay on the primary until the replica has replayed that far.
* **What is not there yet.** A view that answers "not found" from the replica is run again on
  the primary: the row may be too new for it.
* **State that may still move.** A view that finds, on the replica, something that is still
  changing (a game not yet over) calls ``require_primary()``, and the view is run again on the
  primary. A finished game is final: once the replica has its end, it has all of it.

A replica that cannot be reached is left alone for a few seconds and the view runs on the
primary: GET views only read, so running one twice is safe.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connections
from django.http import Http404, HttpRequest, HttpResponseBase
from redis.exceptions import RedisError
from rest_framework.exceptions import NotFound as ApiNotFound

from core.errors import NotFound

log = logging.getLogger(__name__)

REPLICA = "replica"
# How long a viewer's write keeps their reads on the primary at most: a replica further behind
# than this is broken, and the primary serves everyone (see replica_for).
PIN_SECONDS = 15 * 60
# How long a replica that failed is left alone before it is tried again.
RETRY_SECONDS = 5.0

_reading: ContextVar[str | None] = ContextVar("replica_reads", default=None)
_down_until = 0.0

View = TypeVar("View", bound=Callable[..., Any])


class ReplicaBehind(Exception):
    """Raised inside a view reading from the replica when what it found may have moved on."""


class ReplicaRouter:
    """Sends reads to the replica only inside ``reads_may_lag``; every write, and every read
    anywhere else, to the primary."""

    def db_for_read(self, model: Any, **hints: Any) -> str | None:
        return _reading.get()

    def db_for_write(self, model: Any, **hints: Any) -> str | None:
        return "default"

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        # The replica holds the primary's rows: an object read there may point at one read here.
        return True


def configured() -> bool:
    return REPLICA in settings.DATABASES


def require_primary() -> None:
    """Called by a view that found, on the replica, state that may still change."""
    if _reading.get() == REPLICA:
        raise ReplicaBehind


def _key(user_id: int) -> str:
    return f"replica:written:{user_id}"


def lsn(text: str) -> int:
    """A WAL position ("16/B374D848") as a number, to compare."""
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) + int(low, 16)


def note_write(user_id: int) -> None:
    """Remember how far the primary's WAL has gone after a write of this viewer's."""
    if not configured():
        return
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT pg_current_wal_lsn()::text")
            (position,) = cursor.fetchone()
        cache.set(_key(user_id), position, PIN_SECONDS)
    except (DatabaseError, RedisError):
        # Without the mark the viewer may read their page from a replica a moment behind;
        # the write itself has committed and is answered as such.
        log.warning("could not note the WAL position of user %s's write", user_id, exc_info=True)


def replica_for(user_id: int | None) -> str | None:
    """The replica's alias if it may serve this viewer now, else None (the primary)."""
    if not configured() or time.monotonic() < _down_until:
        return None
    try:
        written = cache.get(_key(user_id)) if user_id is not None else None
    except RedisError:
        return None  # the viewer's last write is unknown: the primary is sure to have it
    if written is None:
        return REPLICA
    try:
        with connections[REPLICA].cursor() as cursor:
            cursor.execute("SELECT pg_last_wal_replay_lsn()::text")
            (replayed,) = cursor.fetchone()
    except DatabaseError:
        _mark_down()
        return None
    # NULL: the server is no standby (promoted), so it holds everything it was sent.
    if replayed is None or lsn(replayed) >= lsn(written):
        return REPLICA
    return None


def _mark_down() -> None:
    global _down_until
    log.warning("the replica failed; reads go to the primary for %s s", RETRY_SECONDS, exc_info=True)
    _down_until = time.monotonic() + RETRY_SECONDS
    connections[REPLICA].close()


@contextmanager
def _reads_from(alias: str | None) -> Iterator[None]:
    token = _reading.set(alias)
    try:
        yield
    finally:
        _reading.reset(token)


def _viewer(request: HttpRequest) -> int | None:
    user = getattr(request, "user", None)
    return user.pk if user is not None and user.is_authenticated else None


def reads_may_lag(view: View) -> View:
    """Run a read-only view (a function view, or an APIView's ``get``) on the replica when it
    may serve this viewer, else, or if the view finds the replica behind, on the primary."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        request = next(a for a in args if isinstance(a, HttpRequest) or hasattr(a, "_request"))
        alias = replica_for(_viewer(request))
        if alias is not None:
            try:
                with _reads_from(alias):
                    return view(*args, **kwargs)
            except (ReplicaBehind, Http404, NotFound, ApiNotFound):
                pass  # moving on, or not there yet: the primary says
            except DatabaseError:
                # Run again on the primary: the view only reads. Only the replica's own failure
                # sets it aside; a primary's fails the second run too, answered as usual.
                if connections[REPLICA].errors_occurred:
                    _mark_down()
        return view(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


class NoteWritesMiddleware:
    """After a signed-in viewer's request that may have written (an unsafe method answered
    below 400), remember how far the primary has gone (``note_write``). It sits after the
    authentication middleware; an API request's token user is known here too, since DRF
    hands the user it authenticated to the request underneath."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self.active = configured()

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if self.active and request.method not in ("GET", "HEAD", "OPTIONS") and response.status_code < 400:
            user_id = _viewer(request)
            if user_id is not None:
                note_write(user_id)
        return response
