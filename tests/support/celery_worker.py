"""A real Celery worker (in a thread of the test process) on the real Redis of this machine."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

import pytest
import redis
from celery.contrib.testing.worker import start_worker
from django.db import connection

from dragonheart_site.celery import app

# A database of its own, away from anything else; test runs side by side on one machine give
# each its own (a worker of one run would take the other's tasks).
BROKER = os.environ.get("CELERY_TEST_BROKER_URL", "redis://127.0.0.1:6379/14")


def _forget_broker_connections() -> None:
    # The app keeps its producer pool, bound to the broker it first met (the in-memory one of
    # the eager tests): drop it, or messages would never reach Redis.
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def celery_on_redis(settings) -> Iterator[None]:  # type: ignore[no-untyped-def]
    # Tasks left in the queue by an earlier, interrupted run would only slow this worker down.
    redis.Redis.from_url(BROKER).flushdb()
    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager", "result_backend")}
    app.conf.update(broker_url=BROKER, task_always_eager=False, result_backend=None)
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
