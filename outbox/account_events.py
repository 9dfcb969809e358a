"""Account streams' events: written with what causes them, read back by an account's streams.

A change says "tell this account" with ``event`` (an unsaved row that the change writes with
its own rows, in the same statement or transaction) and never learns how a stream sends it;
the database numbers the rows (outbox.models.AccountEvent) and announces them at commit
(core/live.py). Events are kept for EVENTS_KEPT (settings.STREAM_EVENTS_KEPT_DAYS): a stream
resumed from an older cursor starts over from a snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Min
from django.utils import timezone

from core.renderers import JSONRenderer
from outbox.models import AccountEvent, AccountStreamHead

_renderer = JSONRenderer()


def encode(data: dict[str, Any]) -> str:
    """``data`` as the API's answers encode it (dates and times included), so that a view sent
    in an event is byte for byte the body the API returned."""
    return _renderer.render(data).decode()


def event(*, user_id: int, kind: str, data: dict[str, Any], game_id: str = "") -> AccountEvent:
    """An event for ``user_id``'s stream, unsaved: the change that causes it writes it."""
    return AccountEvent(user_id=user_id, kind=kind, game_id=game_id, data=encode(data))


def write(events: Sequence[AccountEvent]) -> None:
    """Write ``events`` now, in the caller's transaction, one statement each so that each
    account's ids follow the given order; accounts in ascending order, so that two
    transactions writing for the same two accounts wait on each other's heads in one order
    and never deadlock."""
    for row in sorted(events, key=lambda e: e.user_id):  # a stable sort keeps each account's order
        row.save(force_insert=True)


def newest(user_id: int) -> int:
    """The account's newest event id (0 before its first)."""
    head = AccountStreamHead.objects.filter(user_id=user_id).values_list("last_seq", flat=True).first()
    return int(head or 0)


def oldest_kept(user_id: int) -> int | None:
    """The id of the account's oldest event still kept (None if none is)."""
    oldest = AccountEvent.objects.filter(user_id=user_id).aggregate(oldest=Min("seq"))["oldest"]
    return None if oldest is None else int(oldest)


def after(user_id: int, seq: int, limit: int = 100) -> list[AccountEvent]:
    """The account's events after ``seq``, oldest first, at most ``limit``."""
    rows = AccountEvent.objects.filter(user_id=user_id, seq__gt=seq).order_by("seq")
    return list(rows.only("seq", "kind", "data")[:limit])


def kept_for() -> timedelta:
    return timedelta(days=settings.STREAM_EVENTS_KEPT_DAYS)


def prune() -> int:
    """Forget events older than what is kept (the heads keep the ids counting); returns how
    many went."""
    deleted, _ = AccountEvent.objects.filter(created_at__lt=timezone.now() - kept_for()).delete()
    return deleted
