"""Writing notifications in the transaction of what causes them, and delivering them once."""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from notifications.models import Notification, Preferences

log = logging.getLogger(__name__)
# A claim older than this belongs to a worker that died mid-send: the row may be taken again.
CLAIM_TIMEOUT = timedelta(minutes=2)
UNSUBSCRIBE_SALT = "notifications.unsubscribe"


def preferences_of(user: Any) -> Preferences:
    prefs, _ = Preferences.objects.get_or_create(user=user)
    return prefs


def turn_note(*, game: Any, seat: str, version: int) -> Notification | None:
    """The outbox row that tells ``seat`` it is their turn at ``version`` (None for a bot or an
    empty seat), for the play to write with its events: a play pays no query of its own for
    its email. Preferences are read at delivery. Once written, ``announce`` it."""
    user_id = game.player_a_id if seat == "a" else game.player_b_id
    if user_id is None or game.is_bot_seat(seat):
        return None
    return Notification(
        user_id=user_id, game=game, kind=Notification.Kind.YOUR_TURN, key=f"{game.pk}:{version}"
    )


def announce(note: Notification) -> None:
    """Have a written outbox row delivered once its transaction commits."""
    _deliver_after_commit(note.pk)


def game_notification(*, game: Any, user_id: int, kind: str, key: str = "") -> bool:
    """A challenge, an accepted challenge, a reminder or a finished game, told once to one
    player (the unique key drops a repeat); queued once the transaction commits."""
    note, created = Notification.objects.get_or_create(
        user_id=user_id, kind=kind, key=key or game.pk, defaults={"game": game}
    )
    if created:
        _deliver_after_commit(note.pk)
    return created


def _deliver_after_commit(note_id: int) -> None:
    """Queue the row's delivery when the transaction commits. With the outbox relay running
    (OUTBOX_RELAY, PostgreSQL) the row's own NOTIFY does that, and the request publishes
    nothing: a Celery publish cost a fifth of a play's CPU."""
    if not settings.OUTBOX_RELAY:
        transaction.on_commit(partial(queue_delivery, note_id))


def queue_delivery(note_id: int) -> None:
    from notifications.tasks import send_notification

    try:
        send_notification.delay(note_id)
    except Exception:  # the broker is down: the sweep sends it when it is back
        log.warning("could not queue notification %s; the outbox sweep will", note_id, exc_info=True)


def claim(note_id: int) -> bool:
    """Take the row for sending; False if it is sent or another worker holds a fresh claim."""
    now = timezone.now()
    return bool(
        Notification.objects.filter(pk=note_id, sent_at__isnull=True, skipped="")
        .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - CLAIM_TIMEOUT))
        .update(claimed_at=now, attempts=F("attempts") + 1)
    )


def deliver(note_id: int) -> bool:
    """Send one notification if it still should be; True if an email went out. A failure to
    send releases the claim and raises, so the task retries."""
    from notifications import emails

    if not claim(note_id):
        return False
    note = Notification.objects.select_related("user", "game").get(pk=note_id)
    reason = _reason_to_skip(note)
    if reason:
        Notification.objects.filter(pk=note.pk).update(skipped=reason)
        return False
    message = emails.email_for(note)
    try:
        message.send()
    except Exception as exc:
        Notification.objects.filter(pk=note.pk).update(claimed_at=None, last_error=str(exc)[:500])
        log.warning("sending notification %s failed: %s", note.pk, exc)
        raise
    Notification.objects.filter(pk=note.pk).update(sent_at=timezone.now(), subject=message.subject[:200])
    return True


def _reason_to_skip(note: Notification) -> str:
    user = note.user
    if not user.email:
        return "no email address"
    mode = preferences_of(user).email_mode
    about_a_turn = note.kind in (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER)
    if mode == Preferences.Mode.NONE or (mode == Preferences.Mode.DIGEST and about_a_turn):
        return "preferences"
    if note.kind == Notification.Kind.DIGEST:
        return "" if mode == Preferences.Mode.DIGEST else "preferences"
    if about_a_turn and not _turn_still_open(note):
        return "turn already played"
    return ""


def _turn_still_open(note: Notification) -> bool:
    """Whether the turn that ``note`` (a "your turn" or a reminder) is about is still waiting
    for its reader. Whose turn it is now is not enough: after a delivery outage a player's
    backlog of turn rows would all pass that test the moment they are on turn again. The row's
    key names the version it was written at; any play recorded after it ended that turn (a
    vacation's start or end is a clock fact, not a play, and leaves the turn open)."""
    from engine import events as ev
    from games.models import GameEvent

    game = note.game
    if game is None or game.status != game.Status.ACTIVE or game.to_move != game.seat_of(note.user):
        return False
    _, _, version = note.key.rpartition(":")
    if not version.isdigit():
        return False  # not a row about one turn of this game
    later = GameEvent.objects.filter(game_id=game.pk, seq__gt=int(version))
    return not later.exclude(kind__in=(ev.VACATION_STARTED, ev.VACATION_ENDED)).exists()


def waiting_games(user: Any) -> Any:
    from games.models import Game

    yours = (Q(player_a=user) & Q(to_move="a")) | (Q(player_b=user) & Q(to_move="b"))
    return Game.objects.defer("state").filter(yours, status=Game.Status.ACTIVE).order_by("turn_started_at")


def queue_digests(now: Any) -> int:
    """Write today's digest for every digest reader whose local hour has come and who has a
    game waiting; one per local day (the key is the local date), whenever this runs."""
    from zoneinfo import ZoneInfo

    written = 0
    for prefs in Preferences.objects.filter(email_mode=Preferences.Mode.DIGEST).select_related("user"):
        local = timezone.localtime(now, ZoneInfo(prefs.time_zone))
        if local.hour != prefs.digest_hour or not waiting_games(prefs.user).exists():
            continue
        with transaction.atomic():
            note, created = Notification.objects.get_or_create(
                user=prefs.user, kind=Notification.Kind.DIGEST, key=local.date().isoformat()
            )
            if created:
                _deliver_after_commit(note.pk)
                written += 1
    return written


def pending(older_than: timedelta) -> list[int]:
    """Rows never sent nor skipped, unclaimed or with a stale claim: lost on the way."""
    cutoff = timezone.now() - older_than
    rows = Notification.objects.filter(sent_at__isnull=True, skipped="", created_at__lt=cutoff).filter(
        Q(claimed_at__isnull=True) | Q(claimed_at__lt=timezone.now() - CLAIM_TIMEOUT)
    )
    return list(rows.values_list("pk", flat=True)[:500])


def unsubscribe_token(user: Any) -> str:
    return signing.dumps(user.pk, salt=UNSUBSCRIBE_SALT)


def unsubscribe(token: str) -> bool:
    """Turn every email off for the user the signed token names; False if it is not ours."""
    try:
        user_id = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return False
    updated = Preferences.objects.filter(user_id=user_id).update(email_mode=Preferences.Mode.NONE)
    if not updated:
        Preferences.objects.get_or_create(user_id=user_id, defaults={"email_mode": Preferences.Mode.NONE})
    return True
