"""Delivering the outbox's rows once, as each reader prefers, and the daily digests.

The rows are written by outbox.services, in the transactions of what causes them: one email
row per fact. Its first delivery writes the fact's push row (same user, kind and key, channel
"push") when the reader wants that kind by push (notifications.channels) and has a browser
subscribed, and queues it; the unique key writes it once however often the email row is
delivered, so a push is never lost to a worker that died between the two. Each row is then
claimed and sent once, neither while its reader is at the table. The email row asks its push
row what became of it: with ``push`` it is skipped once the push went, with
``push_then_email`` it waits EMAIL_HOLD_SECONDS after the push and goes only if the turn is
still open (for a challenge or a game over, the push is enough), with ``both`` or ``email`` it
goes as it always did. A push that could not go (no browser took it, push off) leaves the
email to go as it always did: a reader is never left untold. While its push is on its way the
email row is held; the push's delivery wakes it as soon as the push has gone or will not."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import bots as bot_accounts
from accounts import presence
from accounts import services as account_services
from games import event_log
from notifications import emails, push, selectors
from notifications.channels import channel_of
from notifications.models import Channel, Preferences
from notifications.preferences import preferences_of
from outbox import services as outbox
from outbox.models import Notification

log = logging.getLogger(__name__)
TURN_KINDS = (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER)


def deliver(note_id: int) -> bool:
    """Send one notification if it still should be; True if an email or a push went out. A
    failure to send releases the claim and raises, so the task retries."""
    if not outbox.claim(note_id):
        return False
    note = Notification.objects.select_related("user", "user__bot_account", "game").get(pk=note_id)
    if note.channel == Notification.Channel.PUSH:
        return _deliver_push(note)
    _write_push(note)
    return _deliver_email(note)


def _deliver_email(note: Notification) -> bool:
    reason = _reason_to_skip(note)
    if reason:
        Notification.objects.filter(pk=note.pk).update(skipped=reason)
        return False
    now = timezone.now()
    if note.kind in TURN_KINDS and (until := presence.held_until(note.user_id, now)):
        outbox.hold(note.pk, until - now)  # its reader is at the table: no email while they are
        return False
    after_push = _after_push(note, now)
    if isinstance(after_push, str):
        Notification.objects.filter(pk=note.pk).update(skipped=after_push)
        return False
    if after_push is not None:
        outbox.hold(note.pk, after_push)
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


def _write_push(note: Notification) -> None:
    """The push row of an email row, when its reader wants its kind by push and has a browser
    for it; written once (the unique key), and queued once written."""
    kind = push.PREFERENCE_OF_KIND.get(note.kind)
    if kind is None or note.game_id is None or channel_of(note.user_id, kind) == Channel.EMAIL:
        return
    if not push.has_subscription(note.user_id):
        return
    if note.kind in TURN_KINDS and not selectors.turn_still_open(note, note.user):
        return
    row, created = Notification.objects.get_or_create(
        user_id=note.user_id,
        kind=note.kind,
        key=note.key,
        channel=Notification.Channel.PUSH,
        defaults={"game_id": note.game_id},
    )
    if created:
        outbox.deliver_after_commit(row.pk)


def _after_push(note: Notification, now: datetime) -> str | timedelta | None:
    """What the reader's channel makes of an email row whose push row is as it is now: a
    reason to skip it, how long it must wait yet, or None to send it now."""
    kind = push.PREFERENCE_OF_KIND.get(note.kind)
    channel = channel_of(note.user_id, kind) if kind else Channel.EMAIL
    if channel in (Channel.EMAIL, Channel.BOTH):
        return None
    pushed = (
        Notification.objects.filter(
            user_id=note.user_id, kind=note.kind, key=note.key, channel=Notification.Channel.PUSH
        )
        .values("sent_at", "skipped")
        .first()
    )
    if pushed is None or pushed["skipped"]:
        return None  # no push went, nor will: the email goes as it always did
    hold = timedelta(seconds=settings.EMAIL_HOLD_SECONDS)
    if pushed["sent_at"] is None:
        return hold  # the push waits (its reader at the table) or is on its way: so does this
    if channel == Channel.PUSH or note.kind not in TURN_KINDS:
        return "sent by push"
    wait = pushed["sent_at"] + hold - now
    return wait if wait > timedelta(0) else None


def _deliver_push(note: Notification) -> bool:
    """Push one row to its reader's browsers, once, never while they are at the table."""
    reason = _reason_not_to_push(note)
    if reason:
        Notification.objects.filter(pk=note.pk).update(skipped=reason)
        _wake_email(note)
        return False
    now = timezone.now()
    if until := presence.held_until(note.user_id, now):
        outbox.hold(note.pk, until - now)  # at the table: the push waits until they leave
        return False
    try:
        delivered = push.send(note)
    except OSError as exc:
        Notification.objects.filter(pk=note.pk).update(claimed_at=None, last_error=str(exc)[:500])
        log.warning("pushing notification %s failed: %s", note.pk, exc)
        raise
    if not delivered:
        Notification.objects.filter(pk=note.pk).update(skipped="no push subscription")
        _wake_email(note)
        return False
    Notification.objects.filter(pk=note.pk).update(sent_at=timezone.now())
    _wake_email(note)
    return True


def _wake_email(pushed: Notification) -> None:
    """Once a push has gone or will not, its email row decides at once (skipped, held for its
    hold after the push, or sent in its stead) instead of at the end of the hold it took while
    the push was on its way. Queued, not run here: a lost task leaves it to the hold's end."""
    email = Notification.objects.filter(
        user_id=pushed.user_id,
        kind=pushed.kind,
        key=pushed.key,
        channel=Notification.Channel.EMAIL,
        sent_at__isnull=True,
        skipped="",
        held_until__isnull=False,
    ).values_list("pk", flat=True)
    for email_id in email:
        outbox.queue_delivery(email_id)


def _reason_not_to_push(note: Notification) -> str:
    if not push.enabled():
        return "push off"
    if note.game is None or note.kind not in push.PREFERENCE_OF_KIND:
        return "preferences"
    if note.kind in TURN_KINDS and not selectors.turn_still_open(note, note.user):
        return "turn already played"
    return ""


def _reason_to_skip(note: Notification) -> str:
    user = note.user
    if not user.email:
        return "no email address"
    if note.kind == Notification.Kind.CONFIRM_EMAIL:
        # Goes to an address not confirmed yet, whatever the game-email preferences say.
        return "address confirmed already" if account_services.may_email(user) else ""
    if bot_accounts.is_bot(user):
        return "bot account"  # a bot hears of its games on its account stream, never by email
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
