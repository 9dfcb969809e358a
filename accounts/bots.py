"""Bot accounts (issue 27): accounts that a program plays through the API.

An account becomes a bot once and for good (``make_bot``); whether it may (it has played no
game) is the players floor's question, which knows games. A bot is "online" while one of its
account streams is open: the stream marks it (``mark_streaming``) when it opens and at every
heartbeat, and a bot whose last mark is older than ONLINE_WINDOW has left the list.

Callers that show many users at once read ``bot_user_ids`` (one query), or load users with
``select_related("bot_account")`` so that ``is_bot`` asks nothing more of the database.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone
from redis.exceptions import RedisError

from accounts.models import BotAccount
from core.errors import Conflict

log = logging.getLogger(__name__)

# A stream marks its bot at least every 15 s (its heartbeat), and every heartbeat that comes
# MARK_SKIP or more after the stored mark is written: the stored mark of an open stream is
# never 20 s old. A closed stream's last mark is no later than its closing, so the bot leaves
# the list within this window of it, inside the 30 s the API promises.
ONLINE_WINDOW = timedelta(seconds=20)
# A mark younger than this is not written again by the process that wrote it.
MARK_SKIP = timedelta(seconds=5)
_marked: dict[int, datetime] = {}


class AlreadyBot(Conflict):
    # The API's words (POST /api/account/bot/), in English as every API error.
    def __init__(self) -> None:
        super().__init__("already_bot", "This account is already a bot; that cannot be undone.")


def is_bot(user: Any) -> bool:
    """Whether ``user`` is a bot account; False for anonymous users (and None). Reads the
    reverse one-to-one, which Django caches on the user (found or not) and which
    ``select_related("bot_account")`` fills ahead."""
    if user is None or not getattr(user, "is_authenticated", False) or user.pk is None:
        return False
    return hasattr(user, "bot_account")


def bot_user_ids(user_ids: Iterable[int | None]) -> set[int]:
    """Which of ``user_ids`` are bot accounts, in one query (none for an empty list; None ids,
    such as an open seat's, are left out)."""
    wanted = {user_id for user_id in user_ids if user_id is not None}
    if not wanted:
        return set()
    return set(BotAccount.objects.filter(user_id__in=wanted).values_list("user_id", flat=True))


def make_bot(user: Any, now: datetime | None = None) -> None:
    """Turn ``user`` into a bot account, irreversibly. Raises AlreadyBot (409) when it is one.
    Two concurrent calls meet at the primary key: one inserts, the other gets AlreadyBot."""
    if is_bot(user):
        raise AlreadyBot()
    account = BotAccount(user=user, became_bot_at=now or timezone.now())
    try:
        with transaction.atomic():
            account.save(force_insert=True)
    except IntegrityError:
        raise AlreadyBot() from None


def _online_key(user_id: int) -> str:
    return f"bot-online:{user_id}"


def mark_streaming(user_id: int, now: datetime | None = None) -> None:
    """Record that an account stream of ``user_id`` is open now (called when it opens and at
    every heartbeat). The mark lives in the cache, as a player's presence does
    (accounts/presence.py): it is a hint, never a fact of the database, and a stream, which
    is a GET, writes no row. None again while this process's mark is under MARK_SKIP old; a
    cache that cannot answer lists nobody."""
    now = now or timezone.now()
    last = _marked.get(user_id)
    if last is not None and timedelta(0) <= now - last < MARK_SKIP:
        return
    try:
        cache.set(_online_key(user_id), now, timeout=int(ONLINE_WINDOW.total_seconds()) + 1)
    except RedisError:
        log.warning("bot %s: its stream's mark was not kept (the cache is unreachable)", user_id)
        return
    _marked[user_id] = now


def mark_stream_closed(user_id: int) -> None:
    """A stream of ``user_id`` closed. Deliberately nothing: the bot may have another stream
    open (on this node or another), and no node knows the others' streams; the mark simply
    ages out of ONLINE_WINDOW, which the listing's promise (gone within 30 s) allows."""
    del user_id


def online_bots(now: datetime | None = None) -> dict[int, datetime]:
    """The bot accounts with a stream open now (a mark within ONLINE_WINDOW), each with its
    last mark: one query for the bots, one read of the cache."""
    now = now or timezone.now()
    ids = list(BotAccount.objects.order_by("user_id").values_list("user_id", flat=True))
    try:
        marks = cache.get_many([_online_key(user_id) for user_id in ids])
    except RedisError:
        log.warning("the online bots are unknown: the cache is unreachable")
        return {}
    online = {}
    for user_id in ids:
        seen = marks.get(_online_key(user_id))
        if seen is not None and now - ONLINE_WINDOW < seen <= now + MARK_SKIP:
            online[user_id] = seen
    return online


def online_bot_ids(now: datetime | None = None) -> list[int]:
    """The ids of the bot accounts with a stream open now, in id order."""
    return list(online_bots(now))


def forget() -> None:
    """Drop this process's memo of the marks it wrote (tests that move the clock)."""
    _marked.clear()
