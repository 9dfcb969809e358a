"""Bot turns are background tasks: here a real Celery worker takes them from the real Redis."""

from __future__ import annotations

import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.db import connection

from accounts import services as account_services
from dragonheart_site.celery import app
from games import services
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
