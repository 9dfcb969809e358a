"""Reads for the notifications app: what is waiting for a reader, and what became of each
email to them (the profile's email log)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games import event_log
from games.models import Game
from notifications.models import Preferences
from outbox.models import Notification

TURN_KINDS = (Notification.Kind.YOUR_TURN, Notification.Kind.REMINDER)
# notifications.services writes these reasons in Notification.skipped; the log says them in words.
SKIP_REASONS: dict[str, Promise] = {
    "no email address": _("you had no email address"),
    "address not confirmed": _("your address was not confirmed"),
    "address bounced": _("emails to your address came back"),
    "address confirmed already": _("your address was confirmed already"),
    "preferences": _("your email preferences"),
    "turn already played": _("you had played that turn already"),
    "sent by push": _("a push notification told you, as you chose"),
}


@dataclass(frozen=True)
class LogLine:
    """One email of the log and what became of it. ``outcome`` is one of:
    "sent" (at ``at``), "held" (held while its reader was at the table, and not sent),
    "due" (held until ``at``, then sent unless they play first), "on_way" (being sent now),
    "not_sent" and "will_not" (for ``reason``)."""

    note: Notification
    outcome: str
    day: date
    at: datetime | None = None
    reason: str | Promise = ""


@dataclass(frozen=True)
class Stop:
    """What the reader's address and preferences say of an email to them now."""

    address: str  # a key of SKIP_REASONS if no game email may go to their address, else ""
    has_address: bool
    mode: str  # Preferences.Mode


def waiting_games(user: User) -> QuerySet[Game]:
    yours = (Q(player_a=user) & Q(to_move="a")) | (Q(player_b=user) & Q(to_move="b"))
    return Game.objects.defer("state").filter(yours, status=Game.Status.ACTIVE).order_by("turn_started_at")


def email_log(user: User, *, now: datetime, zone: ZoneInfo, stopped: Stop, limit: int = 20) -> list[LogLine]:
    """The reader's last ``limit`` emails, newest first, each with what became of it, dated
    in ``zone``; a row not yet sent nor skipped is told by what its delivery will do, given
    ``stopped`` (what would stop an email to them now: see ``stops``)."""
    rows = (
        Notification.objects.filter(user=user, channel=Notification.Channel.EMAIL)
        .select_related("game")
        .defer("game__state")
        .order_by("-created_at")[:limit]
    )
    return [_line(note, user, now, stopped, note.created_at.astimezone(zone).date()) for note in rows]


def stops(user: User, *, mode: str, may_email: bool, bounced: bool) -> Stop:
    """The reader's Stop, as notifications.services decides it at delivery."""
    if not user.email:
        address = "no email address"
    elif not may_email:
        address = "address bounced" if bounced else "address not confirmed"
    else:
        address = ""
    return Stop(address=address, has_address=bool(user.email), mode=mode)


def _skip_reason(note: Notification, stop: Stop) -> str:
    """The reason its delivery would skip ``note`` for, before the turn's own test (as
    notifications.services._reason_to_skip), or ""."""
    if note.kind == Notification.Kind.CONFIRM_EMAIL:
        return "" if stop.has_address else "no email address"
    if stop.address:
        return stop.address
    if stop.mode == Preferences.Mode.NONE:
        return "preferences"
    if note.kind == Notification.Kind.DIGEST:
        return "" if stop.mode == Preferences.Mode.DIGEST else "preferences"
    return "preferences" if stop.mode == Preferences.Mode.DIGEST and note.kind in TURN_KINDS else ""


def _line(note: Notification, user: User, now: datetime, stopped: Stop, day: date) -> LogLine:
    if note.sent_at:
        return LogLine(note, "sent", day, at=note.sent_at)
    if note.skipped:
        if note.skipped == "turn already played" and note.held_until:
            return LogLine(note, "held", day)
        return LogLine(note, "not_sent", day, reason=SKIP_REASONS.get(note.skipped, note.skipped))
    return _pending(note, user, now, stopped, day)


def _pending(note: Notification, user: User, now: datetime, stopped: Stop, day: date) -> LogLine:
    """A row its delivery has not decided yet: what it will decide."""
    if reason := _skip_reason(note, stopped):
        return LogLine(note, "will_not", day, reason=SKIP_REASONS[reason])
    if note.kind in TURN_KINDS and not turn_still_open(note, user):
        if note.held_until:
            return LogLine(note, "held", day)
        return LogLine(note, "will_not", day, reason=SKIP_REASONS["turn already played"])
    if note.held_until and note.held_until > now:
        return LogLine(note, "due", day, at=note.held_until)
    return LogLine(note, "on_way", day)


def turn_still_open(note: Notification, user: User) -> bool:
    """Whether the turn a "your turn" or reminder row is about still waits for ``user``, as
    delivery (notifications.services) and the profile's log judge it. The row's key names the
    version it was written at; any play recorded after it ended that turn (a vacation's start
    or end is a clock fact, not a play, and leaves the turn open). Read from the game's row
    first, so that the game's events are read only when the row cannot tell (the version
    moved, and the same player is still to move)."""
    game = note.game
    _, _, version = note.key.rpartition(":")
    if game is None or not version.isdigit():
        return False
    if game.status != Game.Status.ACTIVE or game.to_move != game.seat_of(user):
        return False
    return game.version == int(version) or not event_log.played_since(game, int(version))
