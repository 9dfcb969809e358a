"""Redis stops: plays go on, and their emails go out once it is back. A Redis of the test's
own (on a spare port) is stopped and started; the machine's Redis is never touched."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from celery.contrib.testing.worker import start_worker
from django.core import mail
from django.db import connection
from django.utils import timezone

from dragonheart_site.celery import app
from games import services
from notifications import tasks
from notifications.models import Notification
from tests.celery_worker import _forget_broker_connections, wait_for
from tests.games.helpers import play_first_legal


class OwnRedis:
    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [
            "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ]
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
def own_redis(settings) -> Iterator[OwnRedis]:  # type: ignore[no-untyped-def]
    redis = OwnRedis()
    saved = {key: app.conf[key] for key in ("broker_url", "task_always_eager", "result_backend")}
    app.conf.update(broker_url=redis.url, task_always_eager=False, result_backend=None)
    _forget_broker_connections()
    yield redis
    if redis.process is not None and redis.process.poll() is None:
        redis.stop()
    app.conf.update(saved)
    _forget_broker_connections()
    connection.close()


def test_with_redis_stopped_a_play_succeeds_and_its_email_goes_out_when_redis_is_back(
    transactional_db, own_redis, api, alice, bob
):
    own_redis.start()
    own_redis.stop()
    game = services.game_create(creator=alice, opponent="bob", rules={"first_player": "a"})
    services.game_accept(game=game, user=bob)  # the turn email of alice cannot be queued
    mail.outbox.clear()

    began = time.monotonic()
    assert play_first_legal(api["alice"], game.pk).status_code == 201
    assert time.monotonic() - began < 5  # the play did not hang on the broker
    assert mail.outbox == []
    waiting = Notification.objects.filter(kind="your_turn", sent_at__isnull=True, skipped="")
    assert waiting.count() == 2  # alice's first turn and now bob's

    own_redis.start()
    _forget_broker_connections()
    Notification.objects.update(created_at=timezone.now() - timedelta(minutes=5))
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        assert tasks.sweep_outbox() >= 2
        assert wait_for(lambda: not waiting.exclude(skipped="turn already played").exists())
    turn_mails = [m for m in mail.outbox if "Your turn" in m.subject]
    assert [m.to for m in turn_mails] == [[bob.email]]  # alice's turn is over: skipped, not sent
    assert Notification.objects.get(kind="your_turn", user=alice).skipped == "turn already played"
