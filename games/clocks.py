"""Turn clocks, run by the beat scheduler (never by someone opening a page): a reminder when
three quarters of a turn's time have gone, and at the deadline a loss on time — or, if the
first move never came, an abort without a result."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db.models import Q

from core.errors import ServiceError
from games import services, vacations
from games.models import DAYS_PER_TURN, Game
from outbox import services as outbox

log = logging.getLogger(__name__)


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


def expire(now: datetime) -> int:
    """End every game whose player to move ran out of time."""
    ended = 0
    away = vacations.away_user_ids(now)
    for game in Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now):
        if (game.player_a_id if game.to_move == "a" else game.player_b_id) in away:
            continue  # the clock stands still; end_vacations gives the time back
        try:
            services.game_time_out(game=game)
            ended += 1
        except ServiceError as exc:  # a play came in at the last second: the clock restarted
            log.info("game %s not timed out: %s", game.pk, exc.code)
    return ended
