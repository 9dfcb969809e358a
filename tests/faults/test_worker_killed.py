"""The worker is killed (SIGKILL) while it sends a turn email. Its claim on the outbox row goes
stale, the sweep queues the row again and the next worker sends it. Killed before the SMTP
server accepted the email, the player gets it once; after, a second copy with the same
Message-ID goes out (at least once: see "Faults and guarantees" in docs/service.md)."""

from __future__ import annotations

from typing import Any

from games.models import Game
from notifications import tasks
from tests.faults.helpers import started, turn_rows, two_minutes_later
from tests.faults.smtp_sink import Stage
from tests.support.api_plays import play_first_legal
from tests.support.celery_worker import wait_for


def _killed_while_sending(stage: Stage, workers, own_redis, sink, api, alice, bob) -> Game:
    """Alice plays; the worker sending bob's turn email is held at ``stage`` and killed."""
    own_redis.start()
    sink.hold_first(stage)
    worker = workers.start()  # it gets ready while the game is set up
    game = started(alice, bob)
    assert play_first_legal(api["alice"], game.pk).status_code == 201
    assert sink.held.wait(60)
    row = turn_rows(game, bob).get()
    assert (row.claimed_at is not None, row.sent_at) == (True, None)  # claimed, not recorded
    worker.kill()
    return game


def _the_next_worker_sends_it(game: Game, workers: Any, bob: Any) -> None:
    two_minutes_later(game)
    workers.start()
    assert tasks.sweep_outbox() == 1
    assert wait_for(lambda: turn_rows(game, bob).filter(sent_at__isnull=False).exists(), 60)
    assert turn_rows(game, bob).get().attempts == 2


def test_a_worker_killed_before_the_server_accepted_the_email_leaves_it_to_the_next_worker(
    workers, own_redis, sink, api, alice, bob
):
    game = _killed_while_sending("data", workers, own_redis, sink, api, alice, bob)
    assert wait_for(lambda: sink.dropped == 1)

    _the_next_worker_sends_it(game, workers, bob)

    assert [m["To"] for m in sink.accepted] == [bob.email]


def test_a_worker_killed_after_the_server_accepted_the_email_sends_a_copy_with_the_same_message_id(
    workers, own_redis, sink, api, alice, bob
):
    game = _killed_while_sending("quit", workers, own_redis, sink, api, alice, bob)
    assert len(sink.accepted) == 1

    _the_next_worker_sends_it(game, workers, bob)

    copies = sink.to(bob.email)
    assert len(copies) == 2  # the dead worker's copy cannot be told from a lost one
    assert copies[0]["Message-ID"] == copies[1]["Message-ID"]  # so the reader's mail shows one
    assert copies[0]["Subject"] == copies[1]["Subject"]
