"""Bot turns are background tasks: here a real Celery worker takes them from the real Redis."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from celery.contrib.testing.worker import start_worker
from django.db import connection
from django.utils import timezone

from accounts import services as account_services
from dragonheart_site.celery import app
from games import services, tasks
from games.models import Game

BROKER = "redis://127.0.0.1:6379/14"  # a database of its own, away from anything else


def _forget_broker_connections() -> None:
    # The app keeps its producer pool, bound to the broker it first met (the in-memory one of
    # the eager tests): drop it, or messages would never reach Redis.
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def celery_on_redis(settings):
    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager", "result_backend")}
    app.conf.update(broker_url=BROKER, task_always_eager=False, result_backend=None)
    _forget_broker_connections()
    settings.BOT_MOVE_DELAY_SECONDS = 0
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        yield
    app.conf.update(saved)
    _forget_broker_connections()
    connection.close()


def _wait_for(predicate, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_a_bot_that_moves_first_is_played_by_the_worker(transactional_db, celery_on_redis):
    alice = account_services.user_create(username="alice", password="dragon-heart-42")
    game = services.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "b"})
    assert game.to_move == "b"

    assert _wait_for(lambda: Game.objects.get(pk=game.pk).to_move == "a")
    played = Game.objects.get(pk=game.pk)
    assert played.version > 1
    assert played.events.filter(kind="cards_played", actor__isnull=True).count() == 1


def test_a_bot_turn_whose_task_was_lost_is_queued_again_by_the_sweep(
    db, monkeypatch, django_capture_on_commit_callbacks
):
    queued: list[str] = []
    monkeypatch.setattr(services, "_queue_bot_turn", queued.append)  # the broker "is down"
    alice = account_services.user_create(username="alice", password="dragon-heart-42")
    with django_capture_on_commit_callbacks(execute=True):
        game = services.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "b"})
    assert queued == [game.pk]
    queued.clear()
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(minutes=5))

    assert tasks.sweep_bot_turns() == 1
    assert queued == [game.pk]


def test_the_sweep_leaves_fresh_bot_turns_and_human_turns_alone(db, monkeypatch):
    queued: list[str] = []
    monkeypatch.setattr(services, "_queue_bot_turn", queued.append)
    alice = account_services.user_create(username="alice", password="dragon-heart-42")
    services.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "b"})  # fresh
    services.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "a"})  # alice's turn

    assert tasks.sweep_bot_turns() == 0
