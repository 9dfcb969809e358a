"""A Redis of the test's own, on a spare port, that a test may stop and start at will (the
machine's Redis is never touched), and the fixture that makes it Celery's broker."""

from __future__ import annotations

import socket
import subprocess
import tempfile
from collections.abc import Iterator

import pytest
from django.db import connection

from tests.support.celery_worker import celery_conf, wait_for


class OwnRedis:
    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process: subprocess.Popen[bytes] | None = None
        self.folder = tempfile.mkdtemp(prefix="dragonheart-redis-")

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        """Start it empty (no persistence: a restart loses every queued message)."""
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        # --dir: an empty directory, so no dump.rdb left in the working directory is loaded.
        command += ["--save", "", "--appendonly", "no", "--dir", self.folder]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        assert wait_for(self._answers, 10)

    def stop(self) -> None:
        assert self.process is not None
        self.process.terminate()
        self.process.wait(timeout=10)
        assert not self._answers()

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False


@pytest.fixture
def own_redis(settings) -> Iterator[OwnRedis]:
    """Celery's broker is a Redis of the test's own (not started yet); tasks are not eager."""
    redis = OwnRedis()
    with celery_conf(broker_url=redis.url(), task_always_eager=False, result_backend=None):
        yield redis
        if redis.process is not None and redis.process.poll() is None:
            redis.stop()
    connection.close()
