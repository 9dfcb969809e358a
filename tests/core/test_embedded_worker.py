"""The worker beside `manage.py runserver` (core/embedded_worker.py): wanted only where nobody
else can take the tasks, and, once started, it runs them on their countdowns."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from core import deferred, embedded_worker
from games import challenges
from games.models import Game
from tests.support.celery_worker import wait_for


def _app(broker: str, eager: bool) -> SimpleNamespace:
    return SimpleNamespace(conf=SimpleNamespace(broker_url=broker, task_always_eager=eager))


@pytest.mark.parametrize(
    ("broker", "eager", "wanted"),
    [
        ("memory://localhost//", False, True),  # the embedded default
        ("memory://localhost//", True, False),  # tasks run in the caller's thread
        ("redis://127.0.0.1:6379/1", False, False),  # workers of their own take them
    ],
)
def test_the_process_runs_the_worker_only_where_nobody_else_can(broker, eager, wanted):
    assert embedded_worker.wanted(_app(broker, eager)) is wanted  # type: ignore[arg-type]


def test_a_bot_turn_queued_with_its_countdown_is_played_by_the_worker_thread(
    transactional_db, alice, settings, worker_in_process
):
    settings.BOT_MOVE_DELAY_SECONDS = 0.5
    game = challenges.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "b"})

    assert wait_for(lambda: Game.objects.get(pk=game.pk).to_move == "a", 30)
    assert deferred.countdowns_kept()
