"""Celery tasks: thin, take ids, call services."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from games import clocks, services, vacations


@shared_task(ignore_result=True)
def play_bot_turn(game_id: str) -> bool:
    return services.bot_play_turn(game_id=game_id)


@shared_task(ignore_result=True)
def sweep_bot_turns() -> int:
    """Periodic (beat): pick up bot turns whose task never ran."""
    return services.queue_overdue_bot_turns(waited_seconds=60)


@shared_task(ignore_result=True)
def sweep_clocks() -> tuple[int, int]:
    """Periodic (beat): reminders at 75% of a turn's time, losses on time at its end."""
    now = timezone.now()
    vacations.end_vacations(now)
    return clocks.send_reminders(now), services.time_out_overdue_games(now=now)
