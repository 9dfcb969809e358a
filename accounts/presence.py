"""Who is at the table now: a player whose game page or lobby was loaded or polled within
PRESENCE_WINDOW_SECONDS is present, and a "your turn" email to them waits (notifications:
delivery) until they have been gone EMAIL_HOLD_SECONDS.

Presence lives in the cache (Redis in production), one timestamp per player: it is a hint for
when to send, never a fact of a game, so a cache that cannot answer makes everyone "away" and
the email goes out as it always did.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponseBase
from django.utils import timezone
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
# A page polls every few seconds: each process writes a player's timestamp at most this often,
# and more often under a short window (a quarter of it), so that the stored time lags the
# player's last request by less than refresh_interval() (see held_until).
_REFRESH = timedelta(seconds=10)
_written: dict[int, datetime] = {}


def refresh_interval() -> timedelta:
    return min(_REFRESH, timedelta(seconds=settings.PRESENCE_WINDOW_SECONDS) / 4)


def _key(user_id: int) -> str:
    return f"presence:{user_id}"


def mark_present(user_id: int, now: datetime | None = None) -> None:
    now = now or timezone.now()
    last = _written.get(user_id)
    if last is not None and timedelta(0) <= now - last < refresh_interval():
        return
    keep = int(settings.PRESENCE_WINDOW_SECONDS + settings.EMAIL_HOLD_SECONDS) + 60
    try:
        cache.set(_key(user_id), now.timestamp(), timeout=keep)
    except RedisError:
        log.warning("cache unavailable; presence of %s not recorded", user_id)
        return
    _written[user_id] = now


def last_seen(user_id: int) -> datetime | None:
    try:
        stamp = cache.get(_key(user_id))
    except RedisError:
        log.warning("cache unavailable; %s counted as away", user_id)
        return None
    return None if stamp is None else datetime.fromtimestamp(stamp, tz=timezone.get_current_timezone())


def held_until(user_id: int, now: datetime) -> datetime | None:
    """When a turn email to a player who is present now may go, or None if they are away
    (and it may go at once): EMAIL_HOLD_SECONDS after their last request. A player seen
    within PRESENCE_WINDOW_SECONDS is present, whatever the window: the stored time may lag
    their last request by up to refresh_interval(), so that much more is allowed."""
    seen = last_seen(user_id)
    window = timedelta(seconds=settings.PRESENCE_WINDOW_SECONDS) + refresh_interval()
    if seen is None or now - seen >= window:
        return None
    until = seen + timedelta(seconds=settings.EMAIL_HOLD_SECONDS)
    return until if until > now else None


def forget() -> None:
    """Drop this process's memo of what it wrote (tests that move the clock)."""
    _written.clear()


View = Callable[..., HttpResponseBase]


def records_presence(view: View) -> View:
    """Mark the signed-in player present when ``view`` answers them."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        response = view(request, *args, **kwargs)
        if request.user.is_authenticated:
            mark_present(request.user.pk)
        return response

    return wrapper
