"""A real Celery worker (in a thread of the test process) on the real Redis of this machine."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import redis
from celery.contrib.testing.worker import start_worker
from django.db import connection

from core import deferred, embedded_worker
from core.embedded_worker import EmbeddedWorker
from dragonheart_site.celery import app
from tests.support.workers import real_worker_broker_url

IN_MEMORY_BROKER = "memory://localhost//"


def _forget_broker_connections() -> None:
    # The app keeps its producer pool, bound to the broker it first met (the in-memory one of
    # the eager tests): drop it, or messages would never reach Redis.
    app._pool = None  # type: ignore[attr-defined]
    app.amqp._producer_pool = None  # type: ignore[attr-defined]


@contextmanager
def celery_conf(**values: Any) -> Iterator[None]:
    """Celery's settings ``values`` for the block; after it, the app reads Django's settings for
    them again, as a test's ``settings`` fixture changes them (a value put back with
    app.conf.update would stay pinned over the settings for the rest of the run)."""
    changes = app.conf.changes
    assert changes is not None  # the settings the app was configured from
    pinned = {key: changes[key] for key in values if key in changes}
    app.conf.update(values)
    _forget_broker_connections()
    try:
        yield
    finally:
        changed = app.conf.changes  # read again: the block may have configured the app anew
        assert changed is not None
        for key in values:
            changed.pop(key, None)
        app.conf.update(pinned)
        _forget_broker_connections()


@pytest.fixture
def celery_on_redis(settings) -> Iterator[None]:
    # Tasks left in the queue by an earlier, interrupted run would only slow this worker down.
    broker = real_worker_broker_url()  # a database of its own, per test process (tests/support/workers.py)
    redis.Redis.from_url(broker).flushdb()
    settings.BOT_MOVE_DELAY_SECONDS = 0
    with (
        celery_conf(broker_url=broker, task_always_eager=False, result_backend=None),
        start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10),
    ):
        yield
    connection.close()


Queued = list[tuple[str, tuple[Any, ...], float]]


@pytest.fixture
def queued(settings, monkeypatch) -> Queued:
    """A worker's site where nothing runs by itself: each task queued (core.deferred) is kept,
    as (name, arguments, countdown), for the test to run as the worker would, when it would."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    found: Queued = []

    def defer(task: str, *args: Any, countdown: float = 0.0) -> bool:
        found.append((task, args, countdown))
        return True

    monkeypatch.setattr(deferred, "defer", defer)
    return found


@pytest.fixture
def worker_in_process() -> Iterator[EmbeddedWorker]:
    """The embedded default's background work, as `manage.py runserver` runs it: tasks go
    through the in-memory broker, whatever this run's broker, to worker threads of this
    process, on their countdowns (core/embedded_worker.py; beat is left out: a test runs a
    sweep itself). Its tasks see only what is committed: use it with transactional_db or the
    live server."""
    # The transport too: a run on Redis names kombu's Redis transport (settings), which would
    # read the in-memory URL as Redis' database 0, shared by every test process of the run,
    # whose workers would then take each other's tasks.
    with celery_conf(
        broker_url=IN_MEMORY_BROKER, broker_transport=None, task_always_eager=False, result_backend=None
    ):
        with app.connection_for_write() as broker:  # what earlier tests queued and no one took
            assert broker.transport.driver_type == "memory", broker.as_uri()
            for queue in embedded_worker.QUEUES:
                broker.default_channel.queue_purge(queue)  # type: ignore[attr-defined]
        # Each worker picks its queue in the app's one selection (Celery has one worker a
        # process in mind): put back what later workers of this run start from.
        selected = app.amqp.queues._consume_from  # type: ignore[attr-defined]
        running = embedded_worker.start(app, beat=False)
        yield running
        running.stop()
        app.amqp.queues._consume_from = selected  # type: ignore[attr-defined]
    connection.close()


def wait_for(predicate: Callable[[], bool], seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False
