"""Fault tests: real processes, real servers, and faults made to happen at chosen moments.

Tests marked ``postgresql`` (see tests/conftest.py) are about PostgreSQL itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.smtp_sink import SmtpSink
from tests.support.worker_process import WorkerProcess


@pytest.fixture
def sink() -> Iterator[SmtpSink]:
    server = SmtpSink().start()
    yield server
    server.close()


class Workers:
    """Celery worker processes on the test's own Redis; all stopped at the end of the test."""

    def __init__(self, broker_url: str, smtp_port: int, log: Path) -> None:
        self.broker_url, self.smtp_port, self.log = broker_url, smtp_port, log
        self.started: list[WorkerProcess] = []

    def start(self, *options: str, **env: str) -> WorkerProcess:
        worker = WorkerProcess(
            broker_url=self.broker_url, smtp_port=self.smtp_port, log=self.log, options=options
        )
        worker.env.update(env)
        self.started.append(worker.start())
        return worker

    def stop_all(self) -> None:
        for worker in self.started:
            if worker.process is not None and worker.process.poll() is None:
                worker.kill()  # the test is over: nothing to finish


@pytest.fixture
def workers(transactional_db, own_redis, sink, tmp_path) -> Iterator[Workers]:
    # Stopped before transactional_db empties the tables, which would wait on their connections.
    pool = Workers(own_redis.url(), sink.port, tmp_path / "worker.log")
    yield pool
    pool.stop_all()
    print((tmp_path / "worker.log").read_text() if (tmp_path / "worker.log").exists() else "")
