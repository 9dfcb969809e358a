"""The one way work with a due time is queued: a Celery task, named (the floor that queues it
may sit below the one that defines it), with a countdown. A bot's move after its "thinking", a
finished game's review and an email at once, a held email at the end of its hold, a turn's
reminder and its deadline to their second all go this way, to Redis in a deployment and to the
worker threads beside `manage.py runserver` in the embedded default (core/embedded_worker.py).
No page request runs any of it.

A broker that refuses a task never fails the write that queued it: the failure is logged, and
beat's sweeps queue again what they find due and not done (bot turns, outbox rows, reviews,
clocks)."""

from __future__ import annotations

import logging
from typing import Any

from celery import current_app

log = logging.getLogger(__name__)


def defer(task: str, *args: Any, countdown: float = 0.0) -> bool:
    """Queue ``task`` with ``args`` to run ``countdown`` seconds from now; False (logged) if
    the broker refused it."""
    try:
        # A countdown of 0 (or one already past) sets no ETA: the task goes to the queue as is.
        current_app.signature(task, args).apply_async(countdown=max(countdown, 0.0))
    except Exception:  # the broker is down: the write stands, a sweep queues it later
        log.warning("could not queue %s%r; the sweeps will", task, args, exc_info=True)
        return False
    return True


def countdowns_kept() -> bool:
    """Whether a countdown is kept. Not where tasks run eagerly (CELERY_TASK_ALWAYS_EAGER, the
    tests' unit runs): a task queued for later runs at once in the caller's thread, so a task
    that queues itself again until its time has come (a held email whose reader is still
    there) must not there, or it would never stop; the sweeps take its work."""
    return not current_app.conf.task_always_eager
