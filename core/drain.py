"""Whether this node is draining: told to stop, it still serves what comes while its readiness
answers 503, so that the load balancer sends it nothing new before it closes (gunicorn.conf.py
does the telling). gunicorn's master gets the signal and its workers answer the requests:
separate processes, so the flag is a file. The master names it in the environment before it
forks a worker, creates it on SIGTERM, and each worker looks for it on every readiness check
(a stat, no I/O on /dev/shm or a page-cached /tmp).

A stream service's worker (dragonheart_site/stream_worker.py) has one more step: when gunicorn
stops it, after the drain, it ends its open streams at once (``end_streams``) instead of holding
them until gunicorn's graceful timeout. By then the load balancer has taken the node out and
the node has stopped listening, so each client reconnects, with its cursor, to another node."""

from __future__ import annotations

import os
import threading
from pathlib import Path

ENVIRONMENT = "DRAGONHEART_DRAIN_FILE"

# In this process only: set once, when its server begins to stop.
_streams_ending = threading.Event()


def name_file(path: Path) -> None:
    """In the master, before any worker is forked: the flag the workers will look for."""
    os.environ[ENVIRONMENT] = str(path)
    path.unlink(missing_ok=True)  # a node that starts is not draining


def start() -> None:
    path = os.environ.get(ENVIRONMENT)
    if path:
        Path(path).touch()


def draining() -> bool:
    path = os.environ.get(ENVIRONMENT)
    return path is not None and os.path.exists(path)


def clear() -> None:
    path = os.environ.get(ENVIRONMENT)
    if path:
        Path(path).unlink(missing_ok=True)


def end_streams() -> None:
    """In a stream worker that is stopping: every open stream ends at its next wake
    (games/streams.py), and every one is woken now."""
    from core.live import hub  # here, not above: gunicorn's master imports this module too

    _streams_ending.set()
    hub.ring_all()


def streams_ending() -> bool:
    return _streams_ending.is_set()
