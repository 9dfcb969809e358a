"""Turn clocks: the deadline a change sets, a reminder when three quarters of a turn's time
have gone, and the games whose deadline has passed (services.time_out_overdue_games ends
them: a loss on time, or an abort if the first move never came).

Each reminder and each deadline is a task queued with a countdown to its second
(tasks.check_turn_clock, services.turn_clock_check), by the beat sweep of the minute before
(queue_checks); the same sweep does what is overdue, should a check have been lost. Never by
someone opening a page, and never by a play: a play publishes no task of its own for its clock
(with the outbox relay, a play against a person publishes nothing), and no countdown runs for
the days a turn lasts (Redis hands a message that a worker has held past the broker's
visibility timeout, an hour, to another worker too)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q

from core import deferred
from engine import State
from games import vacations
from games.models import DAYS_PER_TURN, Game
from outbox import services as outbox

CHECK_TASK = "games.tasks.check_turn_clock"
# The share of a turn's time left when its reminder goes.
REMINDER_LEFT = 0.25
# How far ahead each minute's sweep queues the checks: more than the minute, so that a sweep
# that runs late leaves no gap (a check queued twice does its work once).
LOOKAHEAD = timedelta(seconds=90)


def send_reminders(now: datetime) -> int:
    """One reminder per turn, once 75% of its time has passed (one query for all games)."""
    late = Q()
    for days in DAYS_PER_TURN:
        late |= Q(days_per_turn=days, deadline__lte=now + timedelta(days=days) * REMINDER_LEFT)
    due = Game.objects.defer("state", "options").filter(late, status=Game.Status.ACTIVE, deadline__gt=now)
    away = vacations.away_user_ids(now)
    return sum(remind(game, away) for game in due)


def remind(game: Game, away: set[int]) -> bool:
    """The reminder of the turn ``game`` waits for, once (its key names the version); none to
    a bot, an empty seat or a player away."""
    user_id = player_to_move(game)
    if user_id is None or game.is_bot_seat(game.to_move) or user_id in away:
        return False
    key = f"{game.pk}:{game.version}"
    return outbox.game_notification(game=game, user_id=user_id, kind="reminder", key=key)


def player_to_move(game: Game) -> int | None:
    return game.player_a_id if game.to_move == "a" else game.player_b_id


def turn_clock(game: Game, state: State, now: datetime) -> dict[str, Any]:
    """The clock columns a change to ``state`` writes: a turn handed on starts with the full
    time the game gives a turn (vacations stop it: games/vacations.py); an ended game has
    no deadline."""
    columns: dict[str, Any] = {}
    if (state.to_move or "") != game.to_move:
        columns["turn_started_at"] = now
        columns["deadline"] = now + timedelta(days=game.days_per_turn) if game.days_per_turn else None
    if state.over:
        columns["deadline"] = None
    return columns


def reminder_at(deadline: datetime, days_per_turn: int | None) -> datetime:
    assert days_per_turn is not None  # a turn has a deadline only in a game with a clock
    return deadline - timedelta(days=days_per_turn) * REMINDER_LEFT


def queue_checks(now: datetime) -> int:
    """Queue a check, with a countdown to its second, for every reminder and deadline of a
    running game that falls within LOOKAHEAD from ``now`` (one query for all games)."""
    soon = now + LOOKAHEAD
    reminders = Q()
    for days in DAYS_PER_TURN:
        left = timedelta(days=days) * REMINDER_LEFT
        reminders |= Q(days_per_turn=days, deadline__gt=now + left, deadline__lte=soon + left)
    due = Game.objects.filter(reminders | Q(deadline__gt=now, deadline__lte=soon), status=Game.Status.ACTIVE)
    games = list(due.only("turn_started_at", "deadline", "days_per_turn"))
    for game in games:
        assert game.deadline is not None  # as filtered
        assert game.turn_started_at is not None  # set with every deadline
        reminder = reminder_at(game.deadline, game.days_per_turn)
        at = reminder if now < reminder <= soon else game.deadline
        countdown = (at - now).total_seconds()
        deferred.defer(CHECK_TASK, game.pk, game.turn_started_at.isoformat(), countdown=countdown)
    return len(games)


def overdue(now: datetime) -> list[Game]:
    """The running games whose player to move ran out of time, except those whose player is
    away (the clock stands still; the vacation's end gives the time back)."""
    away = vacations.away_user_ids(now)
    return [
        game
        for game in Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now)
        if player_to_move(game) not in away
    ]
