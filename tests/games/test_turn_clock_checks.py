"""A turn's reminder and its deadline are tasks queued with a countdown to their second by the
minute's sweep; time is moved, never waited for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.utils import timezone

from games import challenges, clocks, services, tasks, vacations
from games.models import Game
from outbox.models import Notification
from tests.support.celery_worker import Queued
from tests.support.tables import play_first_legal

START = datetime(2026, 10, 24, 12, 0, tzinfo=UTC)


def _checks(queued: Queued) -> list[tuple[tuple[Any, ...], float]]:
    return [(args, countdown) for task, args, countdown in queued if task == clocks.CHECK_TASK]


def _game(alice: Any, bob: Any, days: int = 2) -> Game:
    """alice has played her first turn; bob's started at START, with ``days`` days to play it."""
    game = challenges.game_create(
        creator=alice, opponent="bob", rules={"first_player": "a"}, days_per_turn=days
    )
    challenges.game_accept(game=game, user=bob)
    play_first_legal(game)
    Game.objects.filter(pk=game.pk).update(turn_started_at=START, deadline=START + timedelta(days=days))
    return Game.objects.get(pk=game.pk)


def _check(game: Game, at: datetime) -> bool:
    return services.turn_clock_check(game_id=game.pk, turn_started=START, now=at)


def test_the_sweep_queues_the_reminder_due_within_its_lookahead_to_its_second(alice, bob, queued):
    game = _game(alice, bob)  # the reminder is due at START + 36 h

    assert clocks.queue_checks(START + timedelta(hours=35, minutes=58)) == 0
    assert clocks.queue_checks(START + timedelta(hours=35, minutes=59)) == 1
    assert _checks(queued) == [((game.pk, START.isoformat()), 60.0)]


def test_the_sweep_queues_the_deadline_due_within_its_lookahead_to_its_second(alice, bob, queued):
    game = _game(alice, bob)

    assert clocks.queue_checks(START + timedelta(days=2, seconds=-30)) == 1
    assert _checks(queued) == [((game.pk, START.isoformat()), 30.0)]


def test_the_minutes_sweep_queues_the_checks_and_does_what_is_overdue(alice, bob, queued, monkeypatch):
    game = _game(alice, bob)
    monkeypatch.setattr(timezone, "now", lambda: START + timedelta(hours=35, minutes=59, seconds=30))

    assert tasks.sweep_clocks() == (0, 0, 1)
    assert _checks(queued) == [((game.pk, START.isoformat()), 30.0)]


def test_the_check_at_three_quarters_of_the_time_sends_one_reminder(alice, bob):
    game = _game(alice, bob)
    reminders = Notification.objects.filter(game=game, user=bob, kind="reminder")

    assert _check(game, START + timedelta(hours=35, minutes=59)) is False  # early: nothing yet
    assert not reminders.exists()
    assert _check(game, START + timedelta(hours=36)) is True
    assert _check(game, START + timedelta(hours=36)) is False  # delivered twice: one reminder
    assert reminders.count() == 1


def test_the_check_at_the_deadline_ends_the_game_on_time(alice, bob):
    game = _game(alice, bob)

    assert _check(game, START + timedelta(days=2)) is True
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.end_reason == "timeout"


def test_a_check_for_a_turn_already_played_does_nothing(alice, bob):
    game = _game(alice, bob)
    Game.objects.filter(pk=game.pk).update(turn_started_at=START + timedelta(hours=1))  # a later turn

    assert _check(game, START + timedelta(days=3)) is False
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    assert not Notification.objects.filter(game=game, kind="reminder").exists()


def test_a_player_away_at_the_deadline_loses_no_time(alice, bob):
    game = _game(alice, bob)
    vacations.vacation_start(user=bob, days=3, now=START + timedelta(days=1))
    Game.objects.filter(pk=game.pk).update(turn_started_at=START, deadline=START + timedelta(days=2))

    assert _check(game, START + timedelta(days=2)) is False
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def test_the_task_checks_the_turn_it_names(alice, bob, monkeypatch):
    game = _game(alice, bob)
    monkeypatch.setattr(timezone, "now", lambda: START + timedelta(days=2, seconds=1))

    assert tasks.check_turn_clock(game.pk, START.isoformat()) is True
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
