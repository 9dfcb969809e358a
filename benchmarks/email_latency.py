"""Time from a play's commit to its "your turn" email reaching an SMTP server.

    .venv/bin/python benchmarks/email_latency.py [--plays 200]

Runs the real path on this machine: PostgreSQL (a scratch database), Redis as broker, a Celery
worker process, and a minimal SMTP sink in this process that timestamps every message. Plays are
made one at a time through the services (as the API does); for each, the clock starts when the
play's transaction has committed and stops when the sink has read the email to the player whose
turn it became. Prints p50, p95, p99 and max. Talks only to 127.0.0.1; every wait is bounded.
"""

from __future__ import annotations

import argparse
import os
import socket
import socketserver
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARRIVALS: list[tuple[float, str]] = []
LOCK = threading.Lock()


class Sink(socketserver.StreamRequestHandler):
    """Just enough SMTP to accept messages and note when each one has been read in full."""

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
                while self.rfile.readline() not in (b".\r\n", b""):
                    pass
                with LOCK:
                    ARRIVALS.extend((time.monotonic(), r) for r in recipients)
                recipients = []
                self.wfile.write(b"250 queued\r\n")
            elif verb == b"QUIT":
                self.wfile.write(b"221 bye\r\n")
                return
            else:  # MAIL, RSET, NOOP
                self.wfile.write(b"250 ok\r\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--plays", type=int, default=200)
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="dragonheart_email_bench")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12")
    args = parser.parse_args()

    sink = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Sink)
    sink.daemon_threads = True
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    import psycopg

    with psycopg.connect(args.postgres, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{args.database}"')
    env = {
        "DEBUG": "0",
        "SECRET_KEY": "bench-" + "x" * 60,
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": args.postgres.rsplit("/", 1)[0] + "/" + args.database,
        "REDIS_URL": args.redis,
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(sink.server_address[1]),
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "dragonheart_site.settings",
    }
    os.environ.update(env)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, check=True)
    worker = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("celery")),
            "-A",
            "dragonheart_site",
            "worker",
            "--pool=solo",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env={**os.environ},
    )
    try:
        sys.path.insert(0, str(ROOT))
        import django

        django.setup()
        from accounts import services as accounts
        from engine.rules import legal_plays
        from games import event_log, services
        from games.models import Game

        stamp = str(int(time.time()))
        players = [
            accounts.user_create(
                username=f"p{i}x{stamp}", password="bench-dragon-heart-42", email=f"p{i}@bench.invalid"
            )
            for i in range(2)
        ]
        time.sleep(3)  # let the worker connect
        latencies: list[float] = []
        game = None
        while len(latencies) < args.plays:
            if game is None or game.status != Game.Status.ACTIVE:
                game = services.game_create(creator=players[0], opponent=players[1].username)
                services.game_accept(game=game, user=players[1])
                game.refresh_from_db()
            state = event_log.load_state(game)
            play = legal_plays(state)[0]
            mover = players[0] if state.to_move == "a" else players[1]
            waiting = players[1] if mover is players[0] else players[0]
            with LOCK:
                seen = len(ARRIVALS)
            services.game_play(
                game=game,
                user=mover,
                cards=list(play.cards),
                choice=play.choice,
                expected_version=game.version,
            )
            committed = time.monotonic()
            if game.status != Game.Status.ACTIVE:
                continue  # the last play of a game makes nobody's turn
            deadline = committed + 30
            arrival = None
            while arrival is None and time.monotonic() < deadline:
                with LOCK:
                    arrival = next((t for t, r in ARRIVALS[seen:] if r == waiting.email), None)
                time.sleep(0.001)
            if arrival is None:
                raise SystemExit("an email never arrived within 30 s")
            latencies.append(arrival - committed)
        latencies.sort()

        def pct(q: float) -> float:
            return 1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))]

        print(f"{len(latencies)} plays, commit → email read by the SMTP sink, one worker (solo pool)")
        print(
            f"p50 {pct(0.5):.0f} ms   p95 {pct(0.95):.0f} ms   p99 {pct(0.99):.0f} ms   "
            f"max {1000 * latencies[-1]:.0f} ms"
        )
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        sink.shutdown()


if __name__ == "__main__":
    socket.setdefaulttimeout(30)
    main()
