"""The production stack on this machine, for the benchmarks: a scratch PostgreSQL database,
gunicorn, a Celery worker on Redis, an SMTP sink, and a plain HTTP client. Everything talks
only to 127.0.0.1 and every wait is bounded."""

from __future__ import annotations

import http.client
import json
import os
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PASSWORD = "bench-dragon-heart-42"


def fresh_database(admin_url: str, name: str) -> str:
    """Drop and create database ``name``; returns its URL."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return admin_url.rsplit("/", 1)[0] + "/" + name


def site_env(database_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    """Production settings (DEBUG off) on the given services, throttles out of the way."""
    return {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "bench-" + "x" * 60,
        "ALLOWED_HOSTS": "127.0.0.1,testserver",
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CONN_MAX_AGE": "600",
        "THROTTLE_SIGNUP": "100000/minute",
        "THROTTLE_TOKENS": "100000/minute",
        "THROTTLE_PLAYS": "100000/minute",
        "LOG_LEVEL": "WARNING",
        "OUTBOX_RELAY": "1",
        "DJANGO_SETTINGS_MODULE": "dragonheart_site.settings",
        # collectstatic's output outside the checkout (dragonheart_site/settings.py, STATIC_ROOT)
        "STATIC_ROOT": str(Path(tempfile.gettempdir()) / "dragonheart-bench-static"),
        **extra,
    }


def prepare(env: dict[str, str]) -> None:
    """What a deployment does before starting: migrate, collect the static files."""
    for command in (["migrate"], ["collectstatic", "--noinput"]):
        subprocess.run([sys.executable, "manage.py", *command, "-v0"], cwd=ROOT, env=env, check=True)


def start_gunicorn(
    env: dict[str, str], port: int, workers: int, app: str = "dragonheart_site.wsgi"
) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [
            str(BIN / "gunicorn"),
            app,
            f"--bind=127.0.0.1:{port}",
            f"--workers={workers}",  # the rest as deployed: gunicorn.conf.py, read from ROOT
            "--log-level=warning",
        ],
        cwd=ROOT,
        env=env,
    )
    client = Client(port)
    for _ in range(200):
        if server.poll() is not None:  # e.g. the port was taken: never measure another server
            raise SystemExit(f"gunicorn exited ({server.returncode}); is port {port} in use?")
        try:
            if client.call("GET", "/api/health/")[0] == 200:
                return server
        except OSError:
            time.sleep(0.05)
    server.terminate()
    raise SystemExit("gunicorn did not answer within 10 s")


def start_worker(env: dict[str, str], concurrency: int = 1) -> subprocess.Popen[bytes]:
    """A Celery worker; its banner and warnings go to celery-worker.log in the temp dir."""
    log = (Path(tempfile.gettempdir()) / "celery-worker.log").open("ab")
    pool = ["--pool=solo"] if concurrency == 1 else ["--pool=prefork", f"--concurrency={concurrency}"]
    return subprocess.Popen(
        [
            str(BIN / "celery"),
            "-A",
            "dragonheart_site",
            "worker",
            *pool,
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def start_beat(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """The beat scheduler, as deployed: its sweeps queue what an outage lost."""
    log = (Path(tempfile.gettempdir()) / "celery-beat.log").open("ab")
    schedule = Path(tempfile.mkdtemp()) / "celerybeat-schedule"
    return subprocess.Popen(
        [
            str(BIN / "celery"),
            "-A",
            "dragonheart_site",
            "beat",
            "--loglevel=WARNING",
            f"--schedule={schedule}",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def start_redis(port: int) -> subprocess.Popen[bytes]:
    """A throw-away Redis of the benchmark's own (nothing on disk), for runs that stop it;
    returns once it answers."""
    server = subprocess.Popen(
        ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    for _ in range(100):
        if server.poll() is not None:
            raise SystemExit(f"redis-server exited ({server.returncode}); is port {port} in use?")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    return server
        except OSError:
            time.sleep(0.05)
    server.kill()
    raise SystemExit("redis-server did not answer within 5 s")


def start_relay(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """The outbox relay (manage.py relay_outbox), which queues the emails the plays write;
    returns once it listens."""
    return start_command(env, ["relay_outbox"], b"listening")


def start_command(env: dict[str, str], command: list[str], ready: bytes) -> subprocess.Popen[bytes]:
    """A long-running ``manage.py`` command; returns once its first line of output holds
    ``ready``."""
    process = subprocess.Popen(
        [sys.executable, "-u", "manage.py", *command], cwd=ROOT, env=env, stdout=subprocess.PIPE
    )
    assert process.stdout is not None
    timer = threading.Timer(30, process.kill)  # bounded: a command that never says so is killed
    timer.start()
    line = process.stdout.readline()
    timer.cancel()
    if ready not in line:
        raise SystemExit(f"manage.py {command[0]} did not start: {line!r}")
    # Keep draining its output (one line per reconnection) so that it never blocks on a pipe.
    threading.Thread(target=process.stdout.read, daemon=True).start()
    return process


def two_players(prefix: str) -> list[Any]:
    """Two new players with confirmed addresses, named afresh for each run; needs Django."""
    from accounts import services as accounts

    stamp = str(int(time.time()))
    return [
        accounts.user_create(
            email_confirmed=True,
            username=f"{prefix}{i}x{stamp}",
            password=PASSWORD,
            email=f"{prefix}{i}@bench.invalid",
        )
        for i in range(2)
    ]


def next_game(game: Any, players: list[Any]) -> Any:
    """``game`` while it is being played, else a new one between ``players``, started."""
    from games import challenges
    from games.models import Game

    if game is not None and game.status == Game.Status.ACTIVE:
        return game
    game = challenges.game_create(creator=players[0], opponent=players[1].username)
    challenges.game_accept(game=game, user=players[1])
    game.refresh_from_db()
    return game


def stop(*processes: subprocess.Popen[bytes]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


@dataclass
class Arrival:
    at: float  # wall clock, to compare with times taken in other processes
    recipients: list[str]
    message_id: str


@dataclass
class Mailbox:
    arrivals: list[Arrival] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self) -> int:
        with self.lock:
            return len(self.arrivals)


def start_sink() -> tuple[socketserver.ThreadingTCPServer, Mailbox]:
    """Just enough SMTP to accept messages and note when each one was read in full, with its
    recipients and Message-ID."""
    mailbox = Mailbox()

    class Sink(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            self.wfile.write(b"220 sink\r\n")
            recipients: list[str] = []
            while line := self.rfile.readline():
                verb = line[:4].upper()
                if verb in (b"EHLO", b"HELO"):
                    self.wfile.write(b"250 sink\r\n")
                elif verb == b"RCPT":
                    recipients.append(line.decode().split(":", 1)[1].strip().strip("<>"))
                    self.wfile.write(b"250 ok\r\n")
                elif verb == b"DATA":
                    self.wfile.write(b"354 go on\r\n")
                    message_id = ""
                    while (data := self.rfile.readline()) not in (b".\r\n", b""):
                        if data[:11].lower() == b"message-id:":
                            message_id = data[11:].decode().strip()
                    with mailbox.lock:
                        mailbox.arrivals.append(Arrival(time.time(), recipients, message_id))
                    recipients = []
                    self.wfile.write(b"250 queued\r\n")
                elif verb == b"QUIT":
                    self.wfile.write(b"221 bye\r\n")
                    return
                else:  # MAIL, RSET, NOOP
                    self.wfile.write(b"250 ok\r\n")

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Sink)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, mailbox


def smtp_env(server: socketserver.ThreadingTCPServer) -> dict[str, str]:
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(server.server_address[1]),
    }


class Client:
    """One keep-nothing HTTP client (sync gunicorn workers close every connection)."""

    def __init__(self, port: int) -> None:
        self.port = port

    def call(
        self, method: str, path: str, token: str | None = None, body: Any = None
    ) -> tuple[int, Any, float]:
        headers = {"Content-Type": "application/json", "Host": "127.0.0.1"}
        if token:
            headers["Authorization"] = f"Token {token}"
        payload = json.dumps(body) if body is not None else None
        began = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        elapsed = time.perf_counter() - began
        return response.status, json.loads(data) if data else None, elapsed


def percentiles(samples: list[float]) -> str:
    """p50/p95/p99/max of durations in seconds, as milliseconds."""
    if not samples:
        return "no samples"
    ordered = sorted(samples)

    def pct(q: float) -> float:
        return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return (
        f"p50 {pct(0.50):5.1f} ms  p95 {pct(0.95):5.1f} ms  p99 {pct(0.99):5.1f} ms  "
        f"max {1000 * ordered[-1]:6.1f} ms"
    )


def play_first_legal(game: Any, users: dict[str, Any]) -> None:
    """The seat to move (``users`` by seat) plays its first legal play through the services,
    as the API would; needs Django set up."""
    from engine.rules import legal_plays
    from games import event_log, services

    state = event_log.load_state(game)
    play = legal_plays(state)[0]
    assert state.to_move is not None
    services.game_play(
        game=game,
        user=users[state.to_move],
        cards=list(play.cards),
        choice=play.choice,
        expected_version=game.version,
    )


def planned_plays(snapshot: dict[str, Any], rng: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every remaining play of the game whose stored state is ``snapshot``, as (seat to move,
    request body): a random legal play, but never one whose outcome the server draws at
    random (a card put back on losing the dragon), so that a plan made in advance and the
    server's game stay the same."""
    from engine import IllegalMove, apply_events, decide, legal_plays
    from engine.state import State

    state = State.from_snapshot(snapshot).copy()  # the snapshot's lists stay the caller's
    while not state.over:
        assert state.to_move is not None
        plays = legal_plays(state)
        rng.shuffle(plays)
        for play in plays:
            try:
                events = decide(state, play, None)
            except IllegalMove:  # needs the server's random card: take another play
                continue
            break
        else:  # never seen; a plan that guessed would part from the server's game
            raise AssertionError(f"every legal play at version {state.version} needs a random card")
        yield (
            state.to_move,
            {"cards": list(play.cards), "choice": play.choice, "expected_version": state.version},
        )
        apply_events(state, events)
