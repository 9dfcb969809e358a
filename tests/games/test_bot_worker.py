"""Bot turns are background tasks: here a real Celery worker takes them from the real Redis."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from accounts import services as account_services
from games import challenges, services, tasks
from games.models import Game
from tests.support.celery_worker import wait_for


def test_a_bot_that_moves_first_is_played_by_the_worker(transactional_db, celery_on_redis):
    alice = account_services.user_create(email_confirmed=True, username="alice", password="dragon-heart-42")
    game = challenges.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "b"})
    assert game.to_move == "b"

    assert wait_for(lambda: Game.objects.get(pk=game.pk).to_move == "a")
    played = Game.objects.get(pk=game.pk)
    assert played.version > 1
    assert played.events.filter(kind="cards_played", actor__isnull=True).count() == 1


def test_a_bot_turn_whose_task_was_lost_is_queued_again_by_the_sweep(
    db, monkeypatch, django_capture_on_commit_callbacks
):
    queued: list[str] = []
    monkeypatch.setattr(services, "_queue_bot_turn", queued.append)  # the broker "is down"
    alice = account_services.user_create(email_confirmed=True, username="alice", password="dragon-heart-42")
    with django_capture_on_commit_callbacks(execute=True):
        game = challenges.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "b"})
    assert queued == [game.pk]
    queued.clear()
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(minutes=5))

    assert tasks.sweep_bot_turns() == 1
    assert queued == [game.pk]


def test_the_sweep_leaves_fresh_bot_turns_and_human_turns_alone(db, monkeypatch):
    queued: list[str] = []
    monkeypatch.setattr(services, "_queue_bot_turn", queued.append)
    alice = account_services.user_create(email_confirmed=True, username="alice", password="dragon-heart-42")
    challenges.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "b"})  # fresh
    challenges.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "a"})  # alice's turn

    assert tasks.sweep_bot_turns() == 0
