"""Time from a reply to a turn email reaching our SMTP server to its play being committed and
its answer email read by the outgoing SMTP server.

    .venv/bin/python -m benchmarks.inbound_latency [--replies 200]

Runs the real path on this machine: PostgreSQL (a scratch database), Redis and a Celery worker
(which sends the turn emails the plays write), the outbox relay, ``manage.py inbound_smtp`` as
its own process on a real socket, and a minimal SMTP sink in this process standing for the
outgoing mail server. Two players take turns by reply: each turn the player to move answers
their turn's Reply-To address with "1" (the first listed play), sent with smtplib. For each
reply the clock starts before smtplib connects and stops (a) when this process sees the game's
version move on in the database, and (b) when the sink has read the answer to the replier.
Prints p50, p95, p99 and max of both. Talks only to 127.0.0.1; every wait is bounded.
"""

from __future__ import annotations

import argparse
import os
import smtplib
import socket
import sys
import threading
import time
from collections.abc import Callable
from email.message import EmailMessage
from functools import partial
from typing import Any

from benchmarks.stack import (
    ROOT,
    Mailbox,
    fresh_database,
    next_game,
    percentiles,
    prepare,
    site_env,
    smtp_env,
    start_command,
    start_relay,
    start_sink,
    start_worker,
    stop,
    two_players,
)

DOMAIN = "in.bench.invalid"


def send(port: int, message: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.send_message(message)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(condition: Callable[[], bool], what: str, limit: float = 30) -> float:
    """Poll ``condition`` every millisecond; the wall-clock time it first held."""
    deadline = time.time() + limit
    while time.time() < deadline:
        if condition():
            return time.time()
        time.sleep(0.001)
    raise SystemExit(f"{what} did not happen within {limit:.0f} s")


def moved_on(game_id: Any, version: int) -> bool:
    """Autocommit: each query sees what has committed."""
    from games.models import Game

    return Game.objects.filter(pk=game_id, version__gt=version).exists()


def arrived_to(mailbox: Mailbox, address: str, since: int) -> bool:
    with mailbox.lock:
        return any(address in a.recipients for a in mailbox.arrivals[since:])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--replies", type=int, default=200)
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="dragonheart_inbound_bench")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    args = parser.parse_args()

    sink, mailbox = start_sink()
    inbound_port = free_port()
    env = site_env(
        fresh_database(args.postgres, args.database),
        args.redis,
        INBOUND_EMAIL_DOMAIN=DOMAIN,
        INBOUND_REPLIES_PER_HOUR="100000",
        **smtp_env(sink),
    )
    os.environ.update(env)
    prepare(env)
    worker = start_worker(env)
    relay = start_relay(env)
    inbound_server = start_command(env, ["inbound_smtp", f"--port={inbound_port}"], b"inbound SMTP on")
    try:
        sys.path.insert(0, str(ROOT))
        import django

        django.setup()
        from notifications.reply_addresses import reply_address
        from outbox.models import Notification

        players = two_players("r")
        by_seat = {"a": players[0], "b": players[1]}
        committed: list[float] = []
        answered: list[float] = []
        game = None
        while len(committed) < args.replies:
            game = next_game(game, players)
            mover = by_seat[game.to_move]
            version = game.version
            note = (
                Notification.objects.filter(user=mover, game=game, key__endswith=f":{version}")
                .order_by("-pk")
                .first()
            )
            if note is None:
                raise SystemExit(f"no turn email was written for version {version}")
            address = reply_address(note)
            assert address is not None
            reply = EmailMessage()
            reply["From"] = mover.email
            reply["To"] = address
            reply["Subject"] = "Re: your turn"
            reply["Message-ID"] = f"<bench-{game.pk}-{version}@bench.invalid>"
            reply.set_content("1\n\nOn Tue, Dec 1, 2026, Dragonheart wrote:\n> Your turn\n")
            seen = mailbox.count()
            began = time.time()
            # Sent from a thread: our server answers DATA only once the play has committed and
            # the answer is sent, so the two moments are watched from here while it works.
            sender = threading.Thread(target=send, args=(inbound_port, reply))
            sender.start()

            committed.append(wait_for(partial(moved_on, game.pk, version), "the reply's play") - began)
            answered.append(
                wait_for(partial(arrived_to, mailbox, mover.email, seen), "the answer email") - began
            )
            sender.join(timeout=30)
            game.refresh_from_db()
        print(f"{len(committed)} replies by SMTP to manage.py inbound_smtp, one Celery worker (solo pool)")
        print("reply sent → its play committed:")
        print(percentiles(committed))
        print("reply sent → its answer read by the outgoing SMTP server:")
        print(percentiles(answered))
    finally:
        stop(worker, relay, inbound_server)
        sink.shutdown()


if __name__ == "__main__":
    socket.setdefaulttimeout(30)
    main()
