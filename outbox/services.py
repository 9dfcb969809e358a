"""Writing outbox rows in the transaction of what causes them, and claiming them for delivery.

Delivery itself (the email, the preferences, whether a turn is still open) belongs to the
notifications app above; the outbox queues it by the task named in settings.OUTBOX_DELIVERY_TASK,
as Django names an email backend, so that nothing here imports the floor above.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from functools import partial
from typing import Protocol

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from engine.cards import Seat
from outbox.models import Notification

log = logging.getLogger(__name__)
# A claim older than this belongs to a worker that died mid-send: the row may be taken again.
CLAIM_TIMEOUT = timedelta(minutes=2)


class SeatedGame(Protocol):
    """What the outbox reads of a game (games.models.Game is one)."""

    pk: str
    player_a_id: int | None
    player_b_id: int | None

    def is_bot_seat(self, seat: str) -> bool: ...


def turn_note(*, game: SeatedGame, seat: Seat, version: int) -> Notification | None:
    """The outbox row that tells ``seat`` it is their turn at ``version`` (None for a bot or an
    empty seat), for the play to write with its events: a play pays no query of its own for
    its email. Preferences are read at delivery. Once written, ``announce`` it."""
    user_id = game.player_a_id if seat == "a" else game.player_b_id
    if user_id is None or game.is_bot_seat(seat):
        return None
    return Notification(
        user_id=user_id, game_id=game.pk, kind=Notification.Kind.YOUR_TURN, key=f"{game.pk}:{version}"
    )


def announce(note: Notification) -> None:
    """Have a written outbox row delivered once its transaction commits."""
    deliver_after_commit(note.pk)


def game_notification(*, game: SeatedGame, user_id: int, kind: str, key: str = "") -> bool:
    """A challenge, an accepted challenge, a reminder or a finished game, told once to one
    player (the unique key drops a repeat); queued once the transaction commits."""
    note, created = Notification.objects.get_or_create(
        user_id=user_id, kind=kind, key=key or game.pk, defaults={"game_id": game.pk}
    )
    if created:
        deliver_after_commit(note.pk)
    return created


def deliver_after_commit(note_id: int) -> None:
    """Queue the row's delivery when the transaction commits. With the outbox relay running
    (OUTBOX_RELAY, PostgreSQL) the row's own NOTIFY does that, and the request publishes
    nothing: a Celery publish cost a fifth of a play's CPU."""
    if not settings.OUTBOX_RELAY:
        transaction.on_commit(partial(queue_delivery, note_id))


def queue_delivery(note_id: int) -> None:
    try:
        current_app.signature(settings.OUTBOX_DELIVERY_TASK, (note_id,)).apply_async()
    except Exception:  # the broker is down: the sweep sends it when it is back
        log.warning("could not queue notification %s; the outbox sweep will", note_id, exc_info=True)


def hold(note_id: int, until: datetime) -> None:
    """Give a claimed row back, to be sent no sooner than ``until`` (the sweep takes it then)."""
    Notification.objects.filter(pk=note_id).update(claimed_at=None, held_until=until)


def claim(note_id: int) -> bool:
    """Take the row for sending; False if it is sent or another worker holds a fresh claim."""
    now = timezone.now()
    return bool(
        Notification.objects.filter(pk=note_id, sent_at__isnull=True, skipped="")
        .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - CLAIM_TIMEOUT))
        .update(claimed_at=now, attempts=F("attempts") + 1)
    )


def pending(older_than: timedelta) -> list[int]:
    """Rows never sent nor skipped, unclaimed or with a stale claim, and not held for a reader
    still at the table: lost on the way, or due now."""
    now = timezone.now()
    rows = (
        Notification.objects.filter(sent_at__isnull=True, skipped="", created_at__lt=now - older_than)
        .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - CLAIM_TIMEOUT))
        .exclude(held_until__gt=now)
    )
    return list(rows.values_list("pk", flat=True)[:500])
