"""Reads that may lag come from a real streaming replica, and never hide a player's own write.

A primary and a replica that applies the primary's changes 5 s late (recovery_min_apply_delay),
and the site on them as deployed (gunicorn, DEBUG off, DATABASE_REPLICA_URL). A player starts a
game: their own next read of their page shows it at once, from the primary, while a stranger's
read, served by the replica, does not have it yet."""

from __future__ import annotations

import http.client
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.cluster.postgres import PrimaryAndReplica, free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.postgresql
DELAY_MS = 5000


def _call(port: int, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    conn.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, json.loads(data) if data else None


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[int, PrimaryAndReplica]]:
    # Not pytest's tmp_path: the postgres user must reach the data directories, and pytest's
    # temp root is the test user's alone.
    folder = Path(tempfile.mkdtemp(prefix="dragonheart-replica-"))
    folder.chmod(0o755)
    cluster = PrimaryAndReplica(folder / "pg", apply_delay_ms=DELAY_MS).start()
    server = None
    try:
        with psycopg.connect(cluster.url(cluster.primary_port), autocommit=True) as admin:
            admin.execute("CREATE DATABASE dh")
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "dragonheart_site.settings",
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "127.0.0.1",
            "SECURE_SSL_REDIRECT": "0",
            "DATABASE_URL": cluster.url(cluster.primary_port, "dh"),
            "DATABASE_REPLICA_URL": cluster.url(cluster.replica_port, "dh"),
            "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/8"),
            "CELERY_TASK_ALWAYS_EAGER": "1",
            "LOG_LEVEL": "WARNING",
        }
        env.pop("DATABASE_DIRECT_URL", None)
        env.pop("PG_PREPARED_STATEMENTS", None)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300
        )
        port = free_port()
        gunicorn = Path(sys.executable).with_name("gunicorn")
        command = [str(gunicorn), "dragonheart_site.wsgi", f"--bind=127.0.0.1:{port}", "--workers=1"]
        server = subprocess.Popen(command, cwd=ROOT, env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if _call(port, "GET", "/api/health/")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        yield port, cluster
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _replica_transactions(cluster: PrimaryAndReplica) -> int:
    with psycopg.connect(cluster.url(cluster.replica_port), autocommit=True) as replica:
        row = replica.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = 'dh'").fetchone()
    assert row is not None
    return int(row[0])


def test_a_player_sees_their_new_game_at_once_while_the_replica_serves_others_late(site):
    port, cluster = site
    assert _call(port, "POST", "/api/users/", {"username": "alice", "password": "dragon-heart-42"})[0] == 201
    status, token = _call(port, "POST", "/api/tokens/", {"username": "alice", "password": "dragon-heart-42"})
    assert status == 201
    cluster.wait_until_replayed()
    served_before = _replica_transactions(cluster)

    status, game = _call(port, "POST", "/api/games/", {"opponent": "bot:random"}, token["token"])
    assert status == 201
    _, own = _call(port, "GET", "/api/players/alice/", token=token["token"])
    _, strangers = _call(port, "GET", "/api/players/alice/")

    assert game["id"] in [g["id"] for g in own["current_games"]]  # her write, read back at once
    assert game["id"] not in [g["id"] for g in strangers["current_games"]]  # 5 s behind
    assert _replica_transactions(cluster) > served_before
    cluster.wait_until_replayed()
    _, later = _call(port, "GET", "/api/players/alice/")
    assert game["id"] in [g["id"] for g in later["current_games"]]
