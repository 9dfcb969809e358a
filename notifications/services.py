"""Delivering the outbox's rows once, as each reader prefers, and the daily digests.

The rows are written by outbox.services, in the transactions of what causes them."""

from __future__ import annotations

import logging
from datetime import datetime
from zoneinfo import ZoneInfo

from django.db import transaction
from django.utils import timezone

from accounts import presence
from accounts import services as account_services
from games import event_log
from notifications import emails, selectors
from notifications.models import Preferences
from notifications.preferences import preferences_of
from outbox import services as outbox
from outbox.models import Notification

log = logging.getLogger(__name__)
TURN_KINDS = (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER)


def deliver(note_id: int) -> bool:
    """Send one notification if it still should be; True if an email went out. A failure to
    send releases the claim and raises, so the task retries."""
    if not outbox.claim(note_id):
        return False
    note = Notification.objects.select_related("user", "game").get(pk=note_id)
    reason = _reason_to_skip(note)
    if reason:
        Notification.objects.filter(pk=note.pk).update(skipped=reason)
        return False
    now = timezone.now()
    if note.kind in TURN_KINDS and (until := presence.held_until(note.user_id, now)):
        outbox.hold(note.pk, until - now)  # its reader is at the table: no email while they are
        return False
    message = emails.email_for(note)
    if note.kind in TURN_KINDS and _played_meanwhile(note):
        # Drawing the board picture takes a moment, in which the turn may have been played:
        # the email would be stale the moment it arrived.
        Notification.objects.filter(pk=note.pk).update(skipped="turn already played")
        return False
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
    if note.kind == Notification.Kind.CONFIRM_EMAIL:
        # Goes to an address not confirmed yet, whatever the game-email preferences say.
        return "address confirmed already" if account_services.may_email(user) else ""
    if not account_services.may_email(user):
        status = getattr(user, "email_status", None)
        return "address bounced" if status is not None and status.bounced_at else "address not confirmed"
    mode = preferences_of(user).email_mode
    about_a_turn = note.kind in TURN_KINDS
    if mode == Preferences.Mode.NONE or (mode == Preferences.Mode.DIGEST and about_a_turn):
        return "preferences"
    if note.kind == Notification.Kind.DIGEST:
        return "" if mode == Preferences.Mode.DIGEST else "preferences"
    # Whose turn it is now is not enough: after a delivery outage a player's backlog of turn
    # rows would all pass that test the moment they are on turn again (the selector says how).
    if about_a_turn and not selectors.turn_still_open(note, note.user):
        return "turn already played"
    return ""


def _played_meanwhile(note: Notification) -> bool:
    """Whether a play was recorded after the version the turn row names (read afresh)."""
    _, _, version = note.key.rpartition(":")
    return note.game is not None and version.isdigit() and event_log.played_since(note.game, int(version))


def queue_digests(now: datetime) -> int:
    """Write today's digest for every digest reader whose local hour has come and who has a
    game waiting; one per local day (the key is the local date), whenever this runs."""
    written = 0
    for prefs in Preferences.objects.filter(email_mode=Preferences.Mode.DIGEST).select_related("user"):
        local = timezone.localtime(now, ZoneInfo(prefs.time_zone))
        if local.hour != prefs.digest_hour or not selectors.waiting_games(prefs.user).exists():
            continue
        with transaction.atomic():
            note, created = Notification.objects.get_or_create(
                user=prefs.user, kind=Notification.Kind.DIGEST, key=local.date().isoformat()
            )
            if created:
                outbox.deliver_after_commit(note.pk)
                written += 1
    return written
