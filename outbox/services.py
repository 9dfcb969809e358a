"""Writing outbox rows in the transaction of what causes them, and claiming them for delivery.

Delivery itself (the email, the preferences, whether a turn is still open) belongs to the
notifications app above; the outbox queues it by the task named in settings.OUTBOX_DELIVERY_TASK,
as Django names an email backend, so that nothing here imports the floor above.
"""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Protocol
from uuid import uuid4

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, Q

from core import deferred
from core.dbclock import db_ago, db_in, db_now
from engine.cards import Seat
from outbox.models import Notification

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


def confirmation_note(sender: object, *, user: User, **kwargs: object) -> None:
    """The email with a new confirmation link, written in the transaction that asks for it
    (accounts.signals.confirmation_requested; connected in OutboxConfig.ready). Each request
    is its own row (a fresh key): a player who asks again gets a new email, each sent once."""
    note = Notification.objects.create(user=user, kind=Notification.Kind.CONFIRM_EMAIL, key=uuid4().hex)
    deliver_after_commit(note.pk)


def deliver_after_commit(note_id: int) -> None:
    """Queue the row's delivery when the transaction commits. With the outbox relay running
    (OUTBOX_RELAY, PostgreSQL) the row's own NOTIFY does that, and the request publishes
    nothing: a Celery publish cost a fifth of a play's CPU."""
    if not settings.OUTBOX_RELAY:
        transaction.on_commit(partial(queue_delivery, note_id))


def queue_delivery(note_id: int) -> None:
    # A broker that is down is logged: the sweep sends the row when it is back.
    deferred.defer(settings.OUTBOX_DELIVERY_TASK, note_id)


def hold(note_id: int, delay: timedelta) -> None:
    """Give a claimed row back, to be sent no sooner than ``delay`` from now (by the database's
    clock, which every sweep compares with), and queue its delivery for then: it goes when its
    hold ends, if its reader has gone and its turn is still open then (the delivery asks
    again, and holds it again if not), and once (the claim). The sweep is the safety net."""
    Notification.objects.filter(pk=note_id).update(claimed_at=None, held_until=db_in(delay))
    if deferred.countdowns_kept():  # else it would run at once, hold again, and never stop
        deferred.defer(settings.OUTBOX_DELIVERY_TASK, note_id, countdown=delay.total_seconds())


def claim(note_id: int) -> bool:
    """Take the row for sending; False if it is sent or another worker holds a fresh claim.
    The claim's time is the database's, as are the times it is compared with: a worker whose
    own clock runs fast must not take a fresh claim for a stale one."""
    return bool(
        Notification.objects.filter(pk=note_id, sent_at__isnull=True, skipped="")
        .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=db_ago(CLAIM_TIMEOUT)))
        .update(claimed_at=db_now(), attempts=F("attempts") + 1)
    )


def pending(older_than: timedelta) -> list[int]:
    """Rows never sent nor skipped, unclaimed or with a stale claim, and not held for a reader
    still at the table: lost on the way (older than ``older_than``: a younger one is still on
    its way to a worker), or held and due now, whatever their age (their delivery at the
    hold's end was lost). By the database's clock: a sweep on a host whose clock runs slow
    must not leave a due row waiting."""
    lost_or_due = Q(created_at__lt=db_ago(older_than)) | Q(held_until__lte=db_now())
    rows = (
        Notification.objects.filter(lost_or_due, sent_at__isnull=True, skipped="")
        .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=db_ago(CLAIM_TIMEOUT)))
        .exclude(held_until__gt=db_now())
    )
    return list(rows.values_list("pk", flat=True)[:500])
