"""Whether this node is draining: told to stop, it still serves what comes while its readiness
answers 503, so that the load balancer sends it nothing new before it closes (gunicorn.conf.py
does the telling). gunicorn's master gets the signal and its workers answer the requests:
separate processes, so the flag is a file. The master names it in the environment before it
forks a worker, creates it on SIGTERM, and each worker looks for it on every readiness check
(a stat, no I/O on /dev/shm or a page-cached /tmp)."""

from __future__ import annotations

import os
from pathlib import Path

ENVIRONMENT = "DRAGONHEART_DRAIN_FILE"


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
