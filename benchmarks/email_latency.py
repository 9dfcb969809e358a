"""Time from a play's commit to its "your turn" email reaching an SMTP server.

    .venv/bin/python -m benchmarks.email_latency [--plays 200]

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
import sys
import time

from benchmarks.stack import (
    ROOT,
    fresh_database,
    next_game,
    percentiles,
    play_first_legal,
    prepare,
    site_env,
    smtp_env,
    start_relay,
    start_sink,
    start_worker,
    stop,
    two_players,
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--plays", type=int, default=200)
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="dragonheart_email_bench")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12")
    args = parser.parse_args()

    sink, mailbox = start_sink()
    env = site_env(fresh_database(args.postgres, args.database), args.redis, **smtp_env(sink))
    os.environ.update(env)
    prepare(env)
    worker = start_worker(env)
    relay = start_relay(env)
    try:
        sys.path.insert(0, str(ROOT))
        import django

        django.setup()
        from games.models import Game

        players = two_players("p")
        time.sleep(3)  # let the worker connect
        latencies: list[float] = []
        game = None
        while len(latencies) < args.plays:
            game = next_game(game, players)
            waiting = players[1] if game.to_move == "a" else players[0]
            seen = mailbox.count()
            play_first_legal(game, {"a": players[0], "b": players[1]})
            committed = time.time()
            if game.status != Game.Status.ACTIVE:
                continue  # the last play of a game makes nobody's turn
            deadline = committed + 30
            arrival = None
            while arrival is None and time.time() < deadline:
                with mailbox.lock:
                    arrival = next(
                        (a.at for a in mailbox.arrivals[seen:] if waiting.email in a.recipients), None
                    )
                time.sleep(0.001)
            if arrival is None:
                raise SystemExit("an email never arrived within 30 s")
            latencies.append(arrival - committed)
        print(f"{len(latencies)} plays, commit → email read by the SMTP sink, one worker (solo pool)")
        print(percentiles(latencies))
    finally:
        stop(worker, relay)
        sink.shutdown()


if __name__ == "__main__":
    socket.setdefaulttimeout(30)
    main()
