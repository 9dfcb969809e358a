"""Turn clocks: the deadline a change sets, a reminder when three quarters of a turn's time
have gone, and the games whose deadline has passed (services.time_out_overdue_games ends
them: a loss on time, or an abort if the first move never came). The sweeps run by the beat
scheduler, never by someone opening a page."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q

from engine import State
from games import vacations
from games.models import DAYS_PER_TURN, Game
from outbox import services as outbox


def send_reminders(now: datetime) -> int:
    """One reminder per turn, once 75% of its time has passed (one query for all games)."""
    late = Q()
    for days in DAYS_PER_TURN:
        late |= Q(days_per_turn=days, deadline__lte=now + timedelta(days=days) * 0.25)
    due = Game.objects.defer("state", "options").filter(late, status=Game.Status.ACTIVE, deadline__gt=now)
    away = vacations.away_user_ids(now)
    sent = 0
    for game in due:
        user_id = game.player_a_id if game.to_move == "a" else game.player_b_id
        if user_id is None or game.is_bot_seat(game.to_move) or user_id in away:
            continue
        key = f"{game.pk}:{game.version}"
        sent += outbox.game_notification(game=game, user_id=user_id, kind="reminder", key=key)
    return sent


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


def overdue(now: datetime) -> list[Game]:
    """The running games whose player to move ran out of time, except those whose player is
    away (the clock stands still; the vacation's end gives the time back)."""
    away = vacations.away_user_ids(now)
    return [
        game
        for game in Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now)
        if (game.player_a_id if game.to_move == "a" else game.player_b_id) not in away
    ]
