"""Celery tasks: thin, take ids, call services."""

from __future__ import annotations

from datetime import datetime, timedelta

from celery import shared_task
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from games import clocks, reviews, services, vacations
from outbox import account_events


@shared_task(ignore_result=True)
def play_bot_turn(game_id: str) -> bool:
    return services.bot_play_turn(game_id=game_id)


@shared_task(ignore_result=True)
def sweep_bot_turns() -> int:
    """Periodic (beat): pick up bot turns whose task never ran."""
    return services.queue_overdue_bot_turns(waited_seconds=60)


@shared_task(ignore_result=True)
def check_turn_clock(game_id: str, turn_started: str) -> bool:
    """A turn's clock at its reminder or its deadline (queued by sweep_clocks with a countdown
    to that second); a turn over since asks for nothing. Delivered twice, it reminds once
    (the reminder's key) and times out once (the version)."""
    started = datetime.fromisoformat(turn_started)
    return services.turn_clock_check(game_id=game_id, turn_started=started, now=timezone.now())


@shared_task(ignore_result=True)
def sweep_clocks() -> tuple[int, int, int]:
    """Periodic (beat, every minute): vacations that are over; the reminders and deadlines of
    the next LOOKAHEAD queued as checks to their second; and, should a check have been lost,
    reminders at 75% of a turn's time and losses on time at its end that are due now."""
    now = timezone.now()
    vacations.end_vacations(now)
    overdue = clocks.send_reminders(now), services.time_out_overdue_games(now=now)
    return (*overdue, clocks.queue_checks(now))


# A review cut off by the database (a restart, a failover) gives its claim back and is tried
# again within a minute or so, rather than waiting for the sweep, which looks only at games over
# for ten minutes and runs every ten.
@shared_task(
    ignore_result=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=5,
    retry_backoff_max=120,
    max_retries=5,
)
def review_game(game_id: str) -> bool:
    """The computer's review of a finished game, computed once: a task delivered twice, or
    queued again by a sweep while a worker reviews it, finds the review or its claim."""
    return reviews.game_review_build_by_id(game_id=game_id)


@shared_task(ignore_result=True)
def sweep_reviews() -> int:
    """Periodic (beat): review the games of the last week whose review task was lost (the
    broker was down at their end, or a worker died). Older games are left to the command."""
    now = timezone.now()
    game_ids = reviews.unreviewed_games(
        finished_before=now - timedelta(minutes=10), finished_after=now - timedelta(days=7), limit=20
    )
    for game_id in game_ids:
        review_game.delay(game_id)
    return len(game_ids)


@shared_task(ignore_result=True)
def prune_stream_events() -> int:
    """Forget account streams' events older than they are kept (outbox.account_events)."""
    return account_events.prune()
