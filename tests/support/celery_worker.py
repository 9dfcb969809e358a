"""A real Celery worker (in a thread of the test process) on the real Redis of this machine."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
import redis
from celery.contrib.testing.worker import start_worker
from django.db import connection

from dragonheart_site.celery import app
from tests.support.workers import real_worker_broker_url


def _forget_broker_connections() -> None:
    # The app keeps its producer pool, bound to the broker it first met (the in-memory one of
    # the eager tests): drop it, or messages would never reach Redis.
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def celery_on_redis(settings) -> Iterator[None]:  # type: ignore[no-untyped-def]
    # Tasks left in the queue by an earlier, interrupted run would only slow this worker down.
    broker = real_worker_broker_url()  # a database of its own, per test process (tests/support/workers.py)
    redis.Redis.from_url(broker).flushdb()
    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager", "result_backend")}
    app.conf.update(broker_url=broker, task_always_eager=False, result_backend=None)
    _forget_broker_connections()
    settings.BOT_MOVE_DELAY_SECONDS = 0
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        yield
    app.conf.update(saved)
    _forget_broker_connections()
    connection.close()


def wait_for(predicate: Callable[[], bool], seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False
