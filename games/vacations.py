"""Vacations: a player's declared absence stops the clocks of their turns."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext

from core.errors import Conflict, InvalidRequest
from engine import apply_events
from engine import events as ev
from games import event_log
from games.errors import StaleVersion
from games.models import Game, Vacation

DAYS_A_YEAR = 21
ATTEMPTS = 5  # appends to one game before a vacation gives up (each lost to a play)


def away_user_ids(now: datetime) -> set[int]:
    return set(Vacation.objects.filter(starts_at__lte=now, ends_at__gt=now).values_list("user_id", flat=True))


def current(user: User, now: datetime | None = None) -> Vacation | None:
    now = now or timezone.now()
    return Vacation.objects.filter(user=user, starts_at__lte=now, ends_at__gt=now).first()


@transaction.atomic
def vacation_start(*, user: User, days: int, now: datetime | None = None) -> Vacation:
    """Start an absence of ``days`` days now, and record it in every running game: all or
    nothing, so that a failure leaves no vacation that some of the games do not know of."""
    now = now or timezone.now()
    if not 1 <= days <= DAYS_A_YEAR:
        raise InvalidRequest("invalid_vacation", gettext("A vacation lasts from 1 to 21 days."))
    if current(user, now) is not None:
        raise InvalidRequest("already_away", gettext("You are already away."))
    taken = (
        Vacation.objects.filter(user=user, starts_at__year=now.year).aggregate(days=Sum("days"))["days"] or 0
    )
    if taken + days > DAYS_A_YEAR:
        raise InvalidRequest(
            "vacation_limit",
            gettext("You have %(left)d vacation days left this year.") % {"left": DAYS_A_YEAR - taken},
        )
    vacation = Vacation.objects.create(
        user=user, starts_at=now, ends_at=now + timedelta(days=days), days=days
    )
    for game in _running_games(user):
        seat = game.seat_of(user)
        assert seat is not None
        _append_clock_event(game, ev.vacation_started(seat, vacation.ends_at.isoformat()))
    return vacation


def end_vacations(now: datetime) -> int:
    """Close the vacations that are over: record their end and give back, on each turn that
    was waiting for the player, the time the clock stood still."""
    closed = 0
    for vacation in Vacation.objects.filter(closed=False, ends_at__lte=now):
        closed += _close(vacation)
    return closed


@transaction.atomic
def _close(vacation: Vacation) -> bool:
    """Record one vacation's end in every running game and mark it closed, all or nothing: a
    run that fails part-way leaves it open for the next run, with no game told twice. False
    if another run (a second beat, a sweep overlapping the next) closed it first."""
    # Closing comes first, as a conditional update in the transaction that tells the games: it
    # locks the row, so a second closer waits for this one to commit, then finds it closed and
    # tells no game again; a failure below rolls the flag back with the games' events.
    if not Vacation.objects.filter(pk=vacation.pk, closed=False).update(closed=True):
        return False
    for game in _running_games(vacation.user):
        seat = game.seat_of(vacation.user)
        assert seat is not None
        extra: dict[str, Any] = {}
        if game.to_move == seat and game.deadline is not None and game.turn_started_at is not None:
            stopped = vacation.ends_at - max(vacation.starts_at, game.turn_started_at)
            extra["deadline"] = game.deadline + max(stopped, timedelta(0))
        _append_clock_event(game, ev.vacation_ended(seat), **extra)
    return True


def _running_games(user: User) -> list[Game]:
    return list(Game.objects.of_player(user).filter(status=Game.Status.ACTIVE))


def _append_clock_event(game: Game, event: ev.AnyEvent, **extra: Any) -> None:
    """Append a clock fact to one game; a play landing at the same moment moves the version,
    so reload and try again. A game that keeps moving under it is reported, never skipped: a
    vacation missing from a game would let its clock run out."""
    for _ in range(ATTEMPTS):
        state = event_log.load_state(game)
        apply_events(state, [event])
        try:
            with transaction.atomic():
                event_log.append(game, [event], expected_version=game.version, state=state, columns=extra)
            return
        except StaleVersion:
            game.refresh_from_db()
    raise Conflict("busy", gettext("The game is changing too fast; try again."))
