"""The stream service as an operator runs it beside the site: gunicorn with the stream worker
(uvicorn, dragonheart_site.asgi) and a web node (gunicorn's sync workers,
dragonheart_site.wsgi), each started with its command in docker-compose.yml and the project's
gunicorn.conf.py, as processes of their own on loopback ports over the test's database. A play
made through the web node reaches the streams the stream node serves: by PostgreSQL's NOTIFY
from one process to another on PostgreSQL, by polling on SQLite. Told to stop, the stream node
drains (still serving its streams while its readiness answers 503), then ends every stream
cleanly and exits, well before gunicorn's graceful timeout would have cut them."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.contrib.auth.models import User

from accounts import services as account_services
from games.models import Game
from tests.support.api_plays import ordinary_play
from tests.support.celery_worker import wait_for
from tests.support.streams import Received, StreamReader
from tests.support.tables import start, to_move, waiting
from tests.support.worker_process import ROOT, database_url

pytestmark = pytest.mark.processes  # starts processes of its own: not in scripts/test --quick

# Long enough that nothing in the test could outlast them: a stream that did not end when its
# worker was told to stop would hold the process for this long, and a heartbeat could not be
# what woke a stream.
GRACEFUL_SECONDS = 600
HEARTBEAT_SECONDS = 600
# The stream node's drain lasts until the test's second SIGTERM ends it (gunicorn.conf.py).
DRAIN_SECONDS = 3600
# How long the test waits for what should come at once (a bound against hanging, far above
# what it takes, far below the two above).
PATIENCE = 60


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _compose_command(service: str, port: int) -> list[str]:
    """``service``'s command in docker-compose.yml, on a loopback port with one worker."""
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    command: list[str] = services[service]["command"]
    assert command[0] == "gunicorn", command
    kept = [word for word in command[1:] if not word.startswith(("--bind=", "--workers="))]
    return [str(Path(sys.executable).with_name("gunicorn")), *kept, f"--bind=127.0.0.1:{port}", "--workers=1"]


class Node:
    def __init__(self, service: str, log: Path, drain_seconds: float, *options: str) -> None:
        self.port = _free_port()
        self.log = log
        self.readers: list[StreamReader] = []
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "dragonheart_site.settings",
            "DATABASE_URL": database_url(),
            "DATABASE_DIRECT_URL": database_url("direct"),
            "DRAIN_SECONDS": str(drain_seconds),
            "STREAM_HEARTBEAT_SECONDS": str(HEARTBEAT_SECONDS),
        }
        env.pop("REDIS_URL", None)  # each node's cache in memory: the subject is the database
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [*_compose_command(service, self.port), *options],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its workers in a group of their own, for stop()
            )

    def call(self, method: str, path: str, key: str, body: Any = None) -> tuple[int, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=PATIENCE)
        headers = {"Authorization": f"Token {key}", "Content-Type": "application/json"}
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            connection.close()

    def readiness(self) -> int | None:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=PATIENCE)
            connection.request("GET", "/api/health/ready/")
            status = connection.getresponse().status
            connection.close()
            return status
        except ConnectionRefusedError:
            return None

    def stream(self, path: str, key: str) -> StreamReader:
        url = f"http://127.0.0.1:{self.port}{path}"
        self.readers.append(StreamReader(url, {"Authorization": f"Token {key}"}, timeout=PATIENCE))
        return self.readers[-1].open()

    def logged(self, text: str) -> int:
        return self.log.read_text().count(text)

    def stop(self) -> None:
        """Stopped as compose stops it (SIGTERM), its workers and their database connections
        with it; killed, workers too, if it does not exit."""
        for reader in self.readers:
            reader.close()
        for _ in range(2):  # the first starts its drain, the second ends it (gunicorn.conf.py)
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=PATIENCE)


@pytest.fixture
def nodes(transactional_db, tmp_path) -> Iterator[dict[str, Node]]:
    started: dict[str, Node] = {}
    try:
        started["web"] = Node("web", tmp_path / "web.log", 0)
        started["stream"] = Node(
            "stream", tmp_path / "stream.log", DRAIN_SECONDS, f"--graceful-timeout={GRACEFUL_SECONDS}"
        )
        for node in started.values():
            assert wait_for(partial(_ready, node), PATIENCE), node.log.read_text()
        yield started
    finally:
        for node in started.values():
            node.stop()
            print(node.log.read_text())


def _ready(node: Node) -> bool:
    return node.readiness() == 200


def _key(user: User) -> str:
    return account_services.token_create(user=user, name="stream service")[1]


def _play(web: Node, game: Game, key: str) -> int:
    """A play by the seat to move (``key`` its token) through the web node: the game's new
    version."""
    status, answer = web.call("POST", f"/api/games/{game.pk}/plays/", key, ordinary_play(game.pk))
    assert status == 201, answer
    return Game.objects.get(pk=game.pk).version


def _until_version(stream: StreamReader, version: int) -> list[Received]:
    seen: list[Received] = []
    while not seen or seen[-1].id != version:
        event = stream.next_event()
        assert event is not None, f"the stream ended before version {version}: {seen}"
        seen.append(event)
    return seen


def _ends(stream: StreamReader) -> bool:
    """Read until the server ends the stream. One cut short (the connection closed inside the
    chunked body, as when a worker is killed) raises IncompleteRead instead."""
    while stream.next_event() is not None:
        pass
    return True


def test_a_play_on_the_web_node_reaches_the_stream_nodes_streams_which_end_when_it_stops(nodes):
    web, node = nodes["web"], nodes["stream"]
    alice = account_services.user_create(username="alice", password="dragon-heart-42")
    bob = account_services.user_create(username="bob", password="dragon-heart-42")
    game = start(alice, bob)
    mover, other = to_move(game), waiting(game)
    keys = {user.pk: _key(user) for user in (alice, bob)}

    # The web node leaves streams to the stream service: its workers serve one request each.
    status, answer = web.call("GET", "/api/stream/", keys[other.pk])
    assert (status, answer["code"]) == (503, "stream_elsewhere")

    account = node.stream("/api/stream/", keys[other.pk])
    table = node.stream(f"/api/games/{game.pk}/stream/", keys[other.pk])
    assert (account.status, table.status) == (200, 200)
    account.until("synced")
    [state] = table.until("state")
    assert state.id == game.version

    version = _play(web, game, keys[mover.pk])

    [turn] = account.until("your_turn")
    assert (turn.data["game_id"], turn.data["version"]) == (game.pk, version)
    assert _until_version(table, version)[-1].id == version

    # Told to stop, the node drains: not ready, and still serving its streams.
    node.process.send_signal(signal.SIGTERM)
    assert wait_for(lambda: node.readiness() == 503, PATIENCE)
    version = _play(web, game, keys[other.pk])
    assert _until_version(table, version)[-1].id == version

    # The drain over, its streams end, whole, and the node exits.
    node.process.send_signal(signal.SIGTERM)
    assert _ends(account)
    assert _ends(table)
    assert node.process.wait(timeout=PATIENCE) == 0
    assert node.logged("draining over: stopping gracefully") == 1
    assert node.logged("Finished server process") == 1
    assert node.logged("SIGKILL") == 0
