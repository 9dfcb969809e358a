"""The background worker of the one-command site. Without Redis (the embedded default) the broker
is kombu's in-memory transport, whose messages pass only between the threads of one process;
so the process that serves the pages (``manage.py runserver``: core's override of it) also runs
Celery workers and beat in threads of its own. Bot moves, reviews, emails and clock checks then
run on their countdowns, as in a deployment, whether or not any page is open.

One solo worker per queue, so that no bot move or email waits behind a review (the queues of
settings.CELERY_TASK_ROUTES), and beat with its schedule in memory (no file in the checkout).
Nothing here installs a signal handler: the server's own thread keeps Ctrl-C and the
autoreloader's restarts. The messages live in the process: a restart loses those queued, and
beat's sweeps queue again what they find lost (bot turns and emails within a minute or two,
reviews within ten).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from celery import Celery
from celery.beat import EmbeddedService
from celery.worker import WorkController
from celery.worker import state as worker_state

log = logging.getLogger(__name__)
QUEUES = ("celery", "reviews")
IN_MEMORY = "memory://"
READY_SECONDS = 60


class _Worker(WorkController):
    """A worker that says when its consumer is ready, as celery.contrib.testing's does."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.ready = threading.Event()
        super().__init__(*args, **kwargs)

    def on_consumer_ready(self, consumer: Any) -> None:
        self.ready.set()


@dataclass
class EmbeddedWorker:
    """The running threads: one worker per queue, and beat (None when not asked for)."""

    threads: list[threading.Thread] = field(default_factory=list)
    beat: Any = None

    def stop(self, timeout: float = 10.0) -> None:
        """Stop beat, then the workers once the task each is running has finished (within
        ``timeout`` seconds; they are daemon threads, so a stuck one never holds the exit)."""
        if self.beat is not None:
            self.beat.stop()
        # How celery.contrib.testing's worker stops a worker in a thread: the loop of every
        # worker of the process sees it and returns.
        worker_state.should_terminate = 0  # type: ignore[assignment]  # typed None; any other value stops
        for thread in self.threads:
            thread.join(timeout)
        worker_state.should_terminate = None


def wanted(app: Celery) -> bool:
    """Whether this process must run the workers: the broker is in memory (nobody else can
    take its tasks) and tasks are not run eagerly in the caller's thread."""
    return str(app.conf.broker_url).startswith(IN_MEMORY) and not app.conf.task_always_eager


def start(app: Celery, *, beat: bool = True) -> EmbeddedWorker:
    """Start a worker thread per queue, and beat's thread if ``beat``; returns once every
    worker consumes."""
    app.finalize()
    running = EmbeddedWorker()
    # Celery keeps one queue selection per app (a worker's `queues` select in it), read by a
    # consumer as it starts: each worker is started, and awaited, before the next selects its own.
    for queue in QUEUES:
        worker = _Worker(
            app=app,
            hostname=f"embedded-{queue}@%h",
            pool="solo",
            concurrency=1,
            queues=[queue],
            ready_callback=None,
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
        )
        thread = threading.Thread(target=worker.start, name=f"celery-{queue}", daemon=True)
        thread.start()
        running.threads.append(thread)
        if not worker.ready.wait(READY_SECONDS):
            running.stop()
            raise RuntimeError(f"the background worker for {queue} did not start (its log says why)")
    if beat:
        # The schedule in memory: a restart starts each sweep's interval afresh.
        running.beat = EmbeddedService(app, thread=True, scheduler_cls="celery.beat:Scheduler")
        running.beat.start()
    log.info("background worker running in this process (queues %s)", ", ".join(QUEUES))
    return running
