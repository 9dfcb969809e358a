"""The long-running commands stop cleanly on SIGTERM, which is how a container or a service
manager stops them (each started with ``exec``, so the signal reaches it): they exit 0."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.celery_worker import wait_for
from tests.support.worker_process import ROOT, database_url

pytestmark = pytest.mark.processes  # starts processes of its own: not in scripts/test --quick


def _run(command: list[str], log: Path, **env: str) -> subprocess.Popen[bytes]:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "dragonheart_site.settings", **env}
    environment.pop("REDIS_URL", None)  # nothing here is queued
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "manage.py", *command], cwd=ROOT, env=environment, stdout=out, stderr=out
        )


def _stops_on_sigterm(process: subprocess.Popen[bytes], log: Path, started: str) -> None:
    try:
        assert wait_for(lambda: started in log.read_text() or process.poll() is not None, 60), log.read_text()
        assert process.poll() is None, log.read_text()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, log.read_text()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.postgresql
def test_the_outbox_relay_exits_0_on_sigterm(transactional_db, tmp_path):
    log = tmp_path / "relay.log"
    relay = _run(
        ["relay_outbox"],
        log,
        DATABASE_URL=database_url(),
        DATABASE_DIRECT_URL=database_url("direct"),
        OUTBOX_RELAY="1",
    )
    _stops_on_sigterm(relay, log, "outbox relay listening")


def test_the_inbound_smtp_server_exits_0_on_sigterm(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "inbound.log"
    server = _run(["inbound_smtp", "--port", str(port)], log, INBOUND_EMAIL_DOMAIN="play.example")
    _stops_on_sigterm(server, log, "inbound SMTP on")
