"""Many players at once on the real deployment: complete games through the HTTP API.

    .venv/bin/python -m benchmarks.players [--players 50] [--seconds 60] [--think 1.0]

Starts what production runs, on this machine: gunicorn (sync workers) on a scratch PostgreSQL
database, a Celery worker on Redis sending real SMTP to a sink in this script. Signs up the
players (with email addresses, emails on every turn), pairs each with the next two around a
ring, so that every player has two games running, and lets them play for ``--seconds``: a
player whose turn it is thinks (exponential, mean ``--think`` seconds; 0 = as fast as the
server allows), opens the game (``GET``: hand and legal plays), and plays one of the legal
plays at random (``POST …/plays/``). A finished game is followed by a new challenge, accepted
by the other player. Then it waits for the outbox to drain and checks every "your turn" email:
delivered exactly once (by its Message-ID), or skipped because the turn had already been
played when the worker came to it; none lost, none doubled.

With ``--outage SECONDS`` the stack runs on a Redis of its own and, halfway through, the
Celery worker is killed and that Redis stopped for SECONDS, then both are started again (beat
runs too, so its sweep queues what the outage lost): the delivery outage after which a
player's backlog of turn emails once all went out at the same moment.

Prints plays/s, latency percentiles of plays and views, errors by status, games finished,
the emails and the time from a play to its email, and the stale ones: turn emails sent
although a play had ended their turn before a worker took them (the target is none). The
load runs in several processes (a Python client is bound by its interpreter lock); each
process owns its players and games.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import psycopg

from benchmarks.stack import (
    PASSWORD,
    Client,
    Mailbox,
    fresh_database,
    percentiles,
    prepare,
    site_env,
    smtp_env,
    start_beat,
    start_gunicorn,
    start_redis,
    start_relay,
    start_sink,
    start_worker,
    stop,
)


@dataclass
class Table:
    """One game as its two players' clients know it."""

    players: tuple[int, int]  # seat a, seat b
    id: str = ""
    status: str = "none"
    to_move: str | None = None
    busy: bool = False


@dataclass
class Tally:
    plays: list[float] = field(default_factory=list)
    views: list[float] = field(default_factory=list)
    plays_at: list[tuple[float, str, int]] = field(default_factory=list)  # wall time, game, version
    errors: Counter[str] = field(default_factory=Counter)
    games_finished: int = 0


def _run_players(
    port: int, tokens: dict[int, str], names: dict[int, str], seconds: float, think: float, seed: int
) -> Tally:
    """Play with the given players (ids → tokens) for ``seconds``; their games are the ring
    pairs among them."""
    client = Client(port)
    rng = random.Random(seed)
    ids = sorted(tokens)
    tables = [Table((ids[i], ids[(i + 1) % len(ids)])) for i in range(len(ids))]
    cond = threading.Condition()
    tally = Tally()
    stop_at = time.monotonic() + seconds

    def seat_of(table: Table, player: int) -> str:
        return "a" if table.players[0] == player else "b"

    def task_for(player: int) -> tuple[Table, str] | None:
        for table in tables:
            if player not in table.players or table.busy:
                continue
            seat = seat_of(table, player)
            if table.status in ("none", "finished") and seat == "a":
                return table, "challenge"
            if table.status == "challenge" and seat == "b":
                return table, "accept"
            if table.status == "active" and table.to_move == seat:
                return table, "play"
        return None

    def act(player: int, table: Table, what: str) -> None:
        token = tokens[player]
        if what == "challenge":
            opponent = names[table.players[1]]
            status, body, _ = client.call("POST", "/api/games/", token, {"opponent": opponent})
            if status != 201:
                tally.errors[f"challenge {status}"] += 1
                return
            table.id, table.status = body["id"], "challenge"
            return
        if what == "accept":
            status, body, _ = client.call("POST", f"/api/games/{table.id}/accept/", token)
            if status != 200:
                tally.errors[f"accept {status}"] += 1
                return
            table.status, table.to_move = body["status"], body["to_move"]
            return
        time.sleep(rng.expovariate(1 / think) if think else 0)
        status, view, elapsed = client.call("GET", f"/api/games/{table.id}/", token)
        if status != 200:
            tally.errors[f"view {status}"] += 1
            return
        tally.views.append(elapsed)
        play = rng.choice(view["legal_plays"])
        body = {**play, "expected_version": view["version"]}
        status, after, elapsed = client.call("POST", f"/api/games/{table.id}/plays/", token, body)
        if status != 201:
            tally.errors[f"play {status}"] += 1
            return
        tally.plays.append(elapsed)
        tally.plays_at.append((time.time(), table.id, after["version"]))
        table.status, table.to_move = after["status"], after["to_move"]
        if table.status == "finished":
            tally.games_finished += 1

    def player_loop(player: int) -> None:
        while time.monotonic() < stop_at:
            with cond:
                task = task_for(player)
                while task is None and time.monotonic() < stop_at:
                    cond.wait(0.2)
                    task = task_for(player)
                if task is None:
                    return
                task[0].busy = True
            try:
                act(player, *task)
            finally:
                with cond:
                    task[0].busy = False
                    cond.notify_all()

    threads = [threading.Thread(target=player_loop, args=(p,)) for p in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally


def _sign_up(client: Client, count: int, stamp: str) -> tuple[dict[int, str], dict[int, str]]:
    tokens, names = {}, {}
    for i in range(count):
        name = f"player{i}x{stamp}"
        body = {"username": name, "password": PASSWORD, "email": f"{name}@bench.invalid"}
        assert client.call("POST", "/api/users/", None, body)[0] == 201
        _, answer, _ = client.call("POST", "/api/tokens/", None, {"username": name, "password": PASSWORD})
        tokens[i], names[i] = answer["token"], name
    return tokens, names


def _drain(database_url: str, timeout: float) -> list[tuple[Any, ...]]:
    """Wait until no "your turn" email is waiting to be sent; return the rows' outcome."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(database_url, autocommit=True) as conn:
        while True:
            pending = conn.execute(
                "SELECT count(*) FROM notifications_notification "
                "WHERE sent_at IS NULL AND skipped = '' AND kind = 'your_turn'"
            ).fetchone()
            if (pending is not None and pending[0] == 0) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        return conn.execute(
            "SELECT id, key, sent_at, skipped FROM notifications_notification WHERE kind = 'your_turn'"
        ).fetchall()


def _stale_sent(database_url: str) -> int:
    """Turn emails that went out although a play recorded before a worker took the row (its
    last claim) had already ended that turn. A play landing between the check and the send is
    a race no check can close and is not counted."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM notifications_notification n WHERE n.kind = 'your_turn' "
            "AND n.sent_at IS NOT NULL AND EXISTS (SELECT 1 FROM games_gameevent e "
            "WHERE e.game_id = n.game_id AND e.seq > split_part(n.key, ':', 2)::int "
            "AND e.kind NOT IN ('vacation_started', 'vacation_ended') AND e.created_at < n.claimed_at)"
        ).fetchone()
    return int(row[0]) if row is not None else 0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--think", type=float, default=1.0, help="mean think time in seconds (0: none)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--celery-concurrency", type=int, default=2, help="as docker-compose.yml runs it")
    parser.add_argument("--processes", type=int, default=2, help="load-generator processes")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="dragonheart_players_bench")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/10")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--outage", type=float, default=0.0, help="seconds of Redis and worker outage halfway (0: none)"
    )
    parser.add_argument("--redis-port", type=int, default=6397, help="the run's own Redis, with --outage")
    args = parser.parse_args()

    sink, mailbox = start_sink()
    database_url = fresh_database(args.postgres, args.database)
    redis = start_redis(args.redis_port) if args.outage else None
    redis_url = f"redis://127.0.0.1:{args.redis_port}/0" if args.outage else args.redis
    env = site_env(database_url, redis_url, **smtp_env(sink))
    prepare(env)
    server = start_gunicorn(env, args.port, args.workers)
    running = {"worker": start_worker(env, args.celery_concurrency), "relay": start_relay(env)}
    if args.outage:
        running["beat"] = start_beat(env)
        assert redis is not None
        running["redis"] = redis

        def outage() -> None:
            time.sleep(args.seconds / 2)
            running["worker"].kill()
            running["redis"].kill()
            print(f"outage: worker killed, Redis stopped for {args.outage:g} s")
            time.sleep(args.outage)
            running["redis"] = start_redis(args.redis_port)
            running["worker"] = start_worker(env, args.celery_concurrency)

        threading.Thread(target=outage, daemon=True).start()
    try:
        client = Client(args.port)
        tokens, names = _sign_up(client, args.players, str(int(time.time())))
        print(
            f"{args.players} players, 2 games each, think {args.think:g} s (mean); gunicorn "
            f"{args.workers} sync workers, celery worker concurrency {args.celery_concurrency}; "
            f"{args.seconds:g} s"
        )
        shares = [
            ({i: tokens[i] for i in range(k, args.players, args.processes)}, names)
            for k in range(args.processes)
        ]
        began = time.perf_counter()
        jobs = [(args.port, t, n, args.seconds, args.think, args.seed + k) for k, (t, n) in enumerate(shares)]
        with multiprocessing.get_context("fork").Pool(args.processes) as pool:
            tallies = pool.starmap(_run_players, jobs)
        elapsed = time.perf_counter() - began
        plays = [x for t in tallies for x in t.plays]
        views = [x for t in tallies for x in t.views]
        errors = sum((t.errors for t in tallies), Counter())
        print(f"plays  {len(plays) / elapsed:7.1f}/s  {percentiles(plays)}  ({len(plays)} plays)")
        print(f"views  {len(views) / elapsed:7.1f}/s  {percentiles(views)}")
        print(f"errors {dict(errors) or 0}; games finished {sum(t.games_finished for t in tallies)}")

        _report_emails(_drain(database_url, timeout=150), mailbox, [p for t in tallies for p in t.plays_at])
        print(f"stale turn emails (sent after a play had ended their turn): {_stale_sent(database_url)}")
    finally:
        stop(server, *running.values())
        sink.shutdown()


def _report_emails(
    rows: list[tuple[Any, ...]], mailbox: Mailbox, plays_at: list[tuple[float, str, int]]
) -> None:
    time.sleep(1)  # the last SMTP conversation may still be closing
    with mailbox.lock:
        arrivals = list(mailbox.arrivals)
    received = Counter(a.message_id.split("@", 1)[0] for a in arrivals)
    first_arrival: dict[str, float] = {}
    for arrival in arrivals:
        first_arrival.setdefault(arrival.message_id.split("@", 1)[0], arrival.at)
    played_at = {f"{game}:{version}": at for at, game, version in plays_at}
    sent = {f"<notification-{r[0]}": r[1] for r in rows if r[2] is not None}
    skipped = Counter(r[3] for r in rows if r[3])
    never = [r for r in rows if r[2] is None and not r[3]]
    missing = [m for m in sent if received[m] == 0]
    doubled = [m for m in sent if received[m] > 1]
    lags = [
        first_arrival[m] - played_at[key]
        for m, key in sent.items()
        if m in first_arrival and key in played_at
    ]
    print(
        f"turn emails: {len(rows)} due; {len(sent)} sent, of which received once "
        f"{len(sent) - len(missing) - len(doubled)}, missing {len(missing)}, doubled {len(doubled)}; "
        f"skipped {dict(skipped) or 0}; never sent {len(never)}"
    )
    print(f"play → its email at the sink: {percentiles(lags)}")


if __name__ == "__main__":
    main()
