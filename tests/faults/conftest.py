"""Fault tests: real processes, real servers, and faults made to happen at chosen moments.

Tests marked ``postgresql`` are about PostgreSQL itself (a dropped connection) and fail on
another database rather than pass unseen: the SQLite run deselects them with
``-m "not postgresql"``; the PostgreSQL run (scripts/test, second pass) runs them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from tests.faults.smtp_sink import SmtpSink
from tests.faults.worker_process import WorkerProcess
from tests.games.conftest import alice, api, bob, charlie, make_user  # noqa: F401  (the same cast)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "postgresql: a fault of PostgreSQL itself; needs DATABASE_URL=postgres://…"
    )


@pytest.fixture(autouse=True)
def _postgresql_when_marked(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("postgresql") and connection.vendor != "postgresql":
        pytest.fail(
            "this fault test needs PostgreSQL: run it with DATABASE_URL=postgres://… "
            "(scripts/test, second pass), or deselect it with -m 'not postgresql'",
            pytrace=False,
        )


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

    def start(self, **env: str) -> WorkerProcess:
        worker = WorkerProcess(broker_url=self.broker_url, smtp_port=self.smtp_port, log=self.log)
        worker.env.update(env)
        self.started.append(worker.start())
        return worker

    def stop_all(self) -> None:
        for worker in self.started:
            if worker.process is not None and worker.process.poll() is None:
                worker.kill()  # the test is over: nothing to finish


@pytest.fixture
def workers(transactional_db, own_redis, sink, tmp_path) -> Iterator[Workers]:  # type: ignore[no-untyped-def]
    # Stopped before transactional_db empties the tables, which would wait on their connections.
    pool = Workers(own_redis.url(), sink.port, tmp_path / "worker.log")
    yield pool
    pool.stop_all()
    print((tmp_path / "worker.log").read_text() if (tmp_path / "worker.log").exists() else "")
