"""A web node told to stop (SIGTERM, as an orchestrator or a deployment stops it) drains: it
keeps serving while its readiness answers 503, so the load balancer takes it out of rotation
first; then it stops gracefully, finishing the request it is serving, and exits 0. gunicorn
runs as deployed (gunicorn.conf.py), on the test's database, on a loopback port."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.celery_worker import wait_for
from tests.support.worker_process import ROOT, database_url

# Long enough for the test's readiness polls to land inside the drain on a loaded machine (with
# 2 s, a poll that came after the window waited in the closed listener's backlog until its
# timeout, under the parallel suite).
DRAIN_SECONDS = 6


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _get(port: int, path: str) -> tuple[int, dict[str, object]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def _status(port: int, path: str) -> int | None:
    """The answer's status; None when nothing listens yet (or any more)."""
    try:
        return _get(port, path)[0]
    except ConnectionRefusedError:
        return None


class Gunicorn:
    def __init__(self, log: Path, drain_seconds: float = DRAIN_SECONDS) -> None:
        self.port = _free_port()
        self.log = log
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "dragonheart_site.settings",
            "DATABASE_URL": database_url(),
            "DATABASE_DIRECT_URL": database_url("direct"),
            "DRAIN_SECONDS": str(drain_seconds),
        }
        env.pop("REDIS_URL", None)  # the node's cache in memory: the subject is the database and drain
        command = [str(Path(sys.executable).with_name("gunicorn")), "dragonheart_site.wsgi"]
        # Two workers: one is held by the request in flight, the other answers the checks.
        command += [f"--bind=127.0.0.1:{self.port}", "--workers=2"]
        with log.open("wb") as out:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)

    def logged(self, text: str) -> int:
        return self.log.read_text().count(text)

    def ready(self) -> bool:
        return _status(self.port, "/api/health/ready/") == 200

    def draining(self) -> bool:
        return _status(self.port, "/api/health/ready/") == 503


@pytest.fixture
def start_gunicorn(transactional_db, tmp_path) -> Iterator[Callable[..., Gunicorn]]:
    started: list[Gunicorn] = []

    def start(**options: float) -> Gunicorn:
        started.append(Gunicorn(tmp_path / f"gunicorn-{len(started)}.log", **options))
        assert wait_for(started[-1].ready)
        return started[-1]

    yield start
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait(timeout=30)
        print(server.log.read_text())


class InFlight:
    """A request whose body the client sends in two parts: the worker that took it waits in
    the middle of it until the client sends the rest."""

    BODY = json.dumps({"username": "dave", "password": "a long passphrase 7"}).encode()

    def __init__(self, port: int) -> None:
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=60)
        head = "POST /api/users/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        head += f"Content-Length: {len(self.BODY)}\r\nConnection: close\r\n\r\n"
        self.socket.sendall(head.encode() + self.BODY[:10])

    def finish(self) -> int:
        self.socket.sendall(self.BODY[10:])
        response = http.client.HTTPResponse(self.socket)
        response.begin()
        response.read()
        self.socket.close()
        return response.status


def test_a_node_told_to_stop_drains_then_finishes_its_request_and_exits_0(start_gunicorn):
    gunicorn = start_gunicorn()
    in_flight = InFlight(gunicorn.port)

    gunicorn.process.send_signal(signal.SIGTERM)

    # Draining: not ready, still alive and serving.
    assert wait_for(gunicorn.draining)
    assert _get(gunicorn.port, "/api/health/ready/")[1]["code"] == "draining"
    assert _status(gunicorn.port, "/api/health/") == 200
    # Then it stops: the idle worker has exited, the busy one still holds its request.
    assert wait_for(lambda: gunicorn.logged("draining over: stopping") == 1)
    assert wait_for(lambda: gunicorn.logged("Worker exiting") == 1)
    assert gunicorn.process.poll() is None

    assert in_flight.finish() == 201
    assert gunicorn.process.wait(timeout=DRAIN_SECONDS + 60) == 0
    assert gunicorn.logged("Worker exiting") == 2


def test_a_second_sigterm_stops_a_draining_node_at_once(start_gunicorn):
    gunicorn = start_gunicorn(drain_seconds=3600)  # longer than the test would wait
    gunicorn.process.send_signal(signal.SIGTERM)
    assert wait_for(gunicorn.draining)

    gunicorn.process.send_signal(signal.SIGTERM)

    assert gunicorn.process.wait(timeout=60) == 0
    assert gunicorn.logged("draining over: stopping") == 1
