"""Redis is killed (SIGKILL) while a worker runs a task whose message it has not acknowledged
yet (the site acknowledges late), then started again, empty, on the same port. The worker
process lives on, reconnects by itself and takes new tasks; the task it held is done once.

The worker runs as docker-compose runs it: the prefork pool with two processes. With one task
running, the worker still waits on Redis for another, so the connection it loses has a read
in flight, and its remote-control channel too: the case where the worker used to exit with
``AttributeError: 'NoneType' object has no attribute 'hostname'`` (see
dragonheart_site/celery.py)."""

from __future__ import annotations

import signal

from tests.faults.held_task import DONE, RELEASE, STARTED, hold, lines
from tests.support.celery_worker import wait_for
from tests.support.redis_server import OwnRedis
from tests.support.worker_process import WorkerProcess

PREFORK = ("--pool=prefork", "--concurrency=2", "-I", "tests.faults.held_task")


def _kill(redis: OwnRedis) -> None:
    assert redis.process is not None
    redis.process.send_signal(signal.SIGKILL)
    redis.process.wait(timeout=10)


def _log(worker: WorkerProcess) -> str:
    return worker.log.read_text() if worker.log.exists() else ""


RETRYING = "consumer: Cannot connect to"  # logged for each failed attempt to connect again
GAVE_UP = "Unrecoverable error"  # logged before a worker shuts down on an error it did not expect


def test_a_worker_holding_a_task_when_redis_is_killed_lives_on_and_the_task_is_done_once(
    workers, own_redis, tmp_path
):
    held, after = tmp_path / "held", tmp_path / "after"
    held.mkdir()
    after.mkdir()
    (after / RELEASE).touch()  # the task sent after the restart finishes at once
    own_redis.start()
    worker = workers.start(*PREFORK)
    hold.delay(str(held))
    assert wait_for(lambda: lines(held, STARTED) == 1, 60)  # the worker holds the message

    _kill(own_redis)
    # Redis stays down until the worker has let go of the old connection and is trying again:
    # so the message it held cannot have been given back to this Redis (nor run twice).
    assert wait_for(lambda: RETRYING in _log(worker) or GAVE_UP in _log(worker), 60)
    assert GAVE_UP not in _log(worker)
    own_redis.start()
    (held / RELEASE).touch()

    assert wait_for(lambda: lines(held, DONE) == 1, 60)
    hold.delay(str(after))  # a worker that reconnected takes it
    assert wait_for(lambda: lines(after, DONE) == 1 or worker.process.poll() is not None, 60)
    assert worker.process.poll() is None, "the worker exited"
    assert lines(after, DONE) == 1
    assert (lines(held, STARTED), lines(held, DONE)) == (1, 1)  # not delivered again
    worker.stop()
