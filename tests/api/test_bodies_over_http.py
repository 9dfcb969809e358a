"""A large body sent to gunicorn as deployed (gunicorn.conf.py's sync workers) on a loopback
port: an ordinary client sends all of it, then reads a complete JSON answer. A server that
answers and closes while the client is still sending resets the connection, and the client
sees a broken pipe instead of any answer."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes  # starts processes of its own: not in scripts/test --quick

ROOT = Path(__file__).resolve().parents[2]
FIVE_MB = 5 * 1024 * 1024


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _call(
    port: int, method: str, path: str, body: bytes | Iterator[bytes] | None = None
) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        chunked = body is not None and not isinstance(body, bytes)  # an iterable: sent in chunks
        headers = {"Content-Type": "application/json"}
        connection.request(method, path, body=body, headers=headers, encode_chunked=chunked)
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type") or "", response.read()
    finally:
        connection.close()


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """gunicorn on the embedded default settings (no request here reaches a database)."""
    scratch = tmp_path_factory.mktemp("gunicorn")
    port = _free_port()
    env = {
        "PATH": str(Path(sys.executable).parent),
        "DJANGO_SETTINGS_MODULE": "dragonheart_site.settings",
        "DATABASE_URL": f"sqlite:///{scratch / 'unused.sqlite3'}",
    }
    with (scratch / "gunicorn.log").open("wb") as log:
        server = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "gunicorn"),
                "dragonheart_site.wsgi",
                f"--bind=127.0.0.1:{port}",
                "--workers=1",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        for _ in range(600):  # up to half a minute
            assert server.poll() is None, (scratch / "gunicorn.log").read_text()
            try:
                if _call(port, "GET", "/api/health/")[0] == 200:
                    break
            except OSError:  # not listening yet
                time.sleep(0.05)
        else:
            pytest.fail("gunicorn did not answer")
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("path", ["/api/games/abcdefabcdef/plays/", "/api/users/", "/api/health/"])
def test_a_5_mb_body_gets_the_whole_json_413(gunicorn, path):
    body = b'{"cards": ["' + b"a" * FIVE_MB + b'"], "expected_version": 1}'

    status, content_type, content = _call(gunicorn, "POST", path, body)

    assert (status, content_type) == (413, "application/json")
    assert json.loads(content)["code"] == "body_too_large"
    assert _call(gunicorn, "GET", "/api/health/")[0] == 200  # and the worker serves on


def test_a_5_mb_body_in_chunks_gets_the_whole_json_411(gunicorn):
    """A chunked body has no length for Django to check or read: refused, and still read to its
    end first."""
    chunks = (b" " * (FIVE_MB // 5) for _ in range(5))

    status, content_type, content = _call(gunicorn, "POST", "/api/games/abcdefabcdef/plays/", chunks)

    assert (status, content_type) == (411, "application/json")
    assert json.loads(content)["code"] == "length_required"
