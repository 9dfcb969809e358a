"""Load benchmark of the REST API on the production stack: gunicorn (sync workers) on
PostgreSQL with persistent connections, Redis as cache (throttle counters).

    .venv/bin/python -m benchmarks.api_load [--clients 16] [--seconds 10] [--workers 5]

It creates a scratch database, starts gunicorn on 127.0.0.1 with the site (and the outbox
relay, as deployed), and a second gunicorn with a bare Django + DRF project
(benchmarks/bare_drf.py); signs up players and starts games through the API, then runs these
phases at the same concurrency and prints requests/s and latency percentiles for each:

1. ``GET /api/health/`` of the bare project — the issue's reference, this machine's baseline
   at this moment;
2. ``GET /api/health/`` of the site — the same bare view behind the site's middleware;
3. ``GET /api/games/{id}/`` — a player opening a game (games of every length);
4. ``POST /api/games/{id}/plays/`` — plays, each from the player to move, as a client that
   knows its own hand: it puts down one card, which is always legal (a limited space always
   has a free slot between turns), with the choice a princess or a completing hero needs.

Every phase is measured by Python clients (in ``--processes`` processes). With ``--wrk``
they are measured again by wrk, a C load generator that leaves the server more of the
machine: the GETs as they are, the plays from a plan (benchmarks/plays.lua) made for fresh
games by the engine from their stored states, each play legal at the version it states (no
play takes the dragon from a player who would put back a card the server draws at random,
so the plan never parts from the server's game). Afterwards every game's log is checked
for gaps and duplicates. The last lines give each figure as a fraction of the same
generator's bare-project figure.

Everything runs on this machine and talks only to 127.0.0.1; every loop is bounded in time.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import re
import resource
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from benchmarks.stack import (
    PASSWORD,
    ROOT,
    Client,
    fresh_database,
    percentiles,
    planned_plays,
    prepare,
    site_env,
    start_gunicorn,
    start_relay,
    stop,
)


@dataclass
class Seat:
    token: str
    hand: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class TableGame:
    """What a pair of clients knows of one game: each seat's own hand and the public table."""

    id: str
    seats: dict[str, Seat]
    version: int = 0
    to_move: str | None = None
    heroes_on_board: int = 0
    dragon: str | None = None
    over: bool = False
    b_name: str = ""


def _absorb(game: TableGame, seat: str, view: dict[str, Any]) -> None:
    game.version = view["version"]
    game.to_move = view["to_move"]
    game.over = view["status"] == "finished"
    if view["hand"] is not None:
        game.seats[seat].hand = view["hand"]
    if view["board"] is not None:
        game.heroes_on_board = len(view["board"]["hero"])
    game.dragon = view["dragon"]


def _one_card_play(game: TableGame) -> dict[str, Any]:
    assert game.to_move is not None
    hand = game.seats[game.to_move].hand
    card = hand[len(hand) // 2]
    choice = None
    if card["type"] == "princess":
        choice = "stones"
    elif card["type"] == "hero" and game.heroes_on_board == 1:
        choice = "princesses"
    return {"cards": [card["id"]], "choice": choice, "expected_version": game.version}


def _new_game(client: Client, a: Seat, b: Seat, b_name: str) -> TableGame:
    status, view, _ = client.call("POST", "/api/games/", a.token, {"opponent": b_name})
    assert status == 201, view
    game = TableGame(view["id"], {"a": a, "b": b}, b_name=b_name)
    status, view, _ = client.call("POST", f"/api/games/{game.id}/accept/", b.token)
    assert status == 200, view
    _absorb(game, "b", view)
    _, view, _ = client.call("GET", f"/api/games/{game.id}/", a.token)
    _absorb(game, "a", view)
    return game


def _play(client: Client, game: TableGame) -> tuple[int, float]:
    """One play by the seat to move; refreshes a hand that changed behind the client's back
    (a card put back on losing the dragon)."""
    seat = game.to_move
    assert seat is not None
    before = game.dragon
    status, view, elapsed = client.call(
        "POST", f"/api/games/{game.id}/plays/", game.seats[seat].token, _one_card_play(game)
    )
    if status == 201:
        _absorb(game, seat, view)
        if before is not None and before != game.dragon:
            _, other, _ = client.call("GET", f"/api/games/{game.id}/", game.seats[before].token)
            _absorb(game, before, other)
    return status, elapsed


def _refreshed(client: Client, game: TableGame) -> TableGame:
    for seat in ("a", "b"):
        _, view, _ = client.call("GET", f"/api/games/{game.id}/", game.seats[seat].token)
        _absorb(game, seat, view)
    if game.over:
        return _new_game(client, game.seats["a"], game.seats["b"], game.b_name)
    return game


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: dict[int, int] = field(default_factory=dict)

    def add(self, status: int, elapsed: float, ok: int) -> None:
        if status == ok:
            self.latencies.append(elapsed)
        else:
            self.errors[status] = self.errors.get(status, 0) + 1


def _phase_in_process(kind: str, games: list[TableGame], threads: int, seconds: float, port: int) -> Tally:
    # "bare" is the bare project's health view, "health" the site's.
    """One load process: ``threads`` clients on their share of the games for ``seconds``."""
    client = Client(port + 1 if kind == "bare" else port)
    tallies = [Tally() for _ in range(threads)]
    stop = time.monotonic() + seconds
    shares = [games[i::threads] for i in range(threads)]

    def work(i: int) -> None:
        tally, mine, n = tallies[i], shares[i], 0
        while time.monotonic() < stop:
            if kind in ("bare", "health"):
                status, _, elapsed = client.call("GET", "/api/health/")
                tally.add(status, elapsed, 200)
                continue
            game = mine[n % len(mine)]
            n += 1
            if kind == "view":
                status, _, elapsed = client.call("GET", f"/api/games/{game.id}/", game.seats["a"].token)
                tally.add(status, elapsed, 200)
            elif game.over:
                mine[(n - 1) % len(mine)] = _new_game(client, game.seats["a"], game.seats["b"], game.b_name)
            else:
                status, elapsed = _play(client, game)
                tally.add(status, elapsed, 201)

    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    merged = Tally()
    for tally in tallies:
        merged.latencies.extend(tally.latencies)
        for status, count in tally.errors.items():
            merged.errors[status] = merged.errors.get(status, 0) + count
    return merged


def _phase(name: str, kind: str, games: list[TableGame], args: argparse.Namespace) -> float:
    """Run a phase from ``args.processes`` processes (a Python client is GIL-bound: one
    process alone could not load the server) with ``args.clients`` clients in all."""
    per = args.clients // args.processes
    jobs = [(kind, games[i :: args.processes], per, args.seconds, args.port) for i in range(args.processes)]
    began = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.processes) as pool:
        tallies = pool.starmap(_phase_in_process, jobs)
    elapsed = time.perf_counter() - began
    latencies = sorted(x for t in tallies for x in t.latencies)
    errors: dict[int, int] = {}
    for t in tallies:
        for status, count in t.errors.items():
            errors[status] = errors.get(status, 0) + count
    rate = len(latencies) / elapsed
    print(f"{name:<38} {rate:>7.0f}/s  {percentiles(latencies)}  ok {len(latencies)}  errors {errors or 0}")
    return rate


WRK_THREADS = 2
TICK = os.sysconf("SC_CLK_TCK")


def _cpu_seconds() -> dict[str, float]:
    """CPU seconds used so far by every process on the machine, summed by program name (the
    gunicorn workers, PostgreSQL's backends, Redis…); wrk's come from our own children."""
    totals: dict[str, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # it ended meanwhile
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        totals[name] = totals.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / TICK
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    totals["wrk (load)"] = children.ru_utime + children.ru_stime
    return totals


def _cpu_report(before: dict[str, float], requests: float) -> None:
    """Where the machine's CPU went during a wrk phase, in ms per request."""
    after = _cpu_seconds()
    used = {name: after[name] - before.get(name, 0.0) for name in after}
    shown = sorted(((ms, name) for name, ms in used.items() if ms * 1000 / requests >= 0.05), reverse=True)
    parts = "  ".join(f"{name} {1000 * ms / requests:.2f}" for ms, name in shown)
    print(f"  CPU ms per request: {parts}; total {1000 * sum(used.values()) / requests:.2f}")


def _wrk(
    name: str,
    path: str,
    token: str | None,
    args: argparse.Namespace,
    port: int,
    script: list[str] | None = None,
) -> float:
    """The same requests from wrk (a C load generator, far lighter than the Python clients):
    what the server alone can do. ``script``: a Lua script and its arguments."""
    header = ["-H", f"Authorization: Token {token}"] if token else []
    lua = ["-s", script[0]] if script else []
    cpu = _cpu_seconds()
    out = subprocess.run(
        [
            "wrk",
            f"-t{WRK_THREADS}",
            f"-c{args.clients}",
            f"-d{args.seconds:g}s",
            "--latency",
            *header,
            *lua,
            f"http://127.0.0.1:{port}{path}",
            *(["--", *script[1:]] if script else []),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = re.search(r"Requests/sec:\s+([\d.]+)", out)
    rate = float(found.group(1)) if found else 0.0
    latency = dict(re.findall(r"^\s+(50|90|99)%\s+(\S+)", out, re.MULTILINE))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    print(
        f"{name:<38} {rate:>7.0f}/s  p50 {latency.get('50')}  p90 {latency.get('90')}  "
        f"p99 {latency.get('99')}  non-2xx {errors.group(1) if errors else 0}"
    )
    requests = re.search(r"(\d+) requests in", out)
    if requests:
        _cpu_report(cpu, float(requests.group(1)))
    starved = re.search(r"requests without a free game: (\d+)", out)
    if starved and int(starved.group(1)):
        print(f"  the plan ran out: {starved.group(1)} requests were health checks; give more --games")
    return rate


def _plan(games: list[TableGame], database_url: str, seed: int = 1) -> Path:
    """Every remaining play of each game, made by the engine from the game's stored state
    (stack.planned_plays)."""
    rng = random.Random(seed)
    plan = Path(tempfile.mkstemp(prefix="plays-", suffix=".tsv")[1])
    with psycopg.connect(database_url) as conn, plan.open("w") as out:
        for n, game in enumerate(games):
            row = conn.execute("SELECT state FROM games_game WHERE id = %s", [game.id]).fetchone()
            assert row is not None
            for seat, body in planned_plays(row[0], rng):
                token = game.seats[seat].token
                out.write(
                    f"{n % WRK_THREADS}\t{game.id}\t{token}\t{json.dumps(body, separators=(',', ':'))}\n"
                )
    return plan


def _check_logs(database_url: str) -> None:
    """Every game's log runs 1..version with no gap or duplicate, after all the racing."""
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            """SELECT count(*), count(*) FILTER (WHERE g.version <> coalesce(e.n, 0)
                                                 OR g.version <> coalesce(e.top, 0)
                                                 OR e.n <> e.distinct_seqs)
               FROM games_game g LEFT JOIN (
                   SELECT game_id, count(*) AS n, max(seq) AS top, count(DISTINCT seq) AS distinct_seqs
                   FROM games_gameevent GROUP BY game_id) e ON e.game_id = g.id"""
        ).fetchone()
    assert row is not None
    print(f"logs checked: {row[0]} games, {row[1]} with a gap or a duplicate")


def _ratios(label: str, bare: float, figures: dict[str, float]) -> None:
    parts = "  ".join(f"{name} {rate / bare:.0%}" for name, rate in figures.items())
    print(f"as a share of the bare project ({label}): {parts}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--workers", type=int, default=4, help="gunicorn sync workers (4, as deployed: 2 to 8 measured)"
    )
    parser.add_argument("--processes", type=int, default=4, help="load-generator processes")
    parser.add_argument("--games", type=int, default=160, help="games in play (each client owns some)")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--wrk", action="store_true", help="also measure the GETs with wrk (Debian package)")
    parser.add_argument("--rounds", type=int, default=1, help="repeat the plays phase (noise shows)")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="dragonheart_bench")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    args = parser.parse_args()

    env = site_env(fresh_database(args.postgres, args.database), args.redis)
    prepare(env)
    server = start_gunicorn(env, args.port, args.workers)
    try:
        bare_env = {k: v for k, v in env.items() if k != "DJANGO_SETTINGS_MODULE"}
        bare = start_gunicorn(bare_env, args.port + 1, args.workers, app="benchmarks.bare_drf")
    except BaseException:
        stop(server)
        raise
    relay = start_relay(env)
    client = Client(args.port)
    try:
        print(
            f"gunicorn: {args.workers} sync workers; {args.clients} clients in {args.processes} processes; "
            f"{args.seconds:.0f} s a phase"
        )
        seats = []
        for i in range(2 * args.games):
            name = f"player{i}"
            assert (
                client.call("POST", "/api/users/", None, {"username": name, "password": PASSWORD})[0] == 201
            )
            _, body, _ = client.call("POST", "/api/tokens/", None, {"username": name, "password": PASSWORD})
            seats.append((name, Seat(body["token"])))
        games = [
            _new_game(client, seats[2 * i][1], seats[2 * i + 1][1], seats[2 * i + 1][0])
            for i in range(args.games)
        ]
        # Give the games every length for the viewing phase: the i-th game gets i % 60 plays.
        for i, game in enumerate(games):
            for _ in range(i % 60):
                if not game.over:
                    _play(client, game)
        events = sum(g.version for g in games)
        print(f"{len(games)} games, {events} events stored before the phases")
        python = {"bare project": _phase("bare project (GET /api/health/)", "bare", games, args)}
        python["site health"] = _phase("site's bare view (GET /api/health/)", "health", games, args)
        python["open a game"] = _phase("open a game (GET /api/games/{id}/)", "view", games, args)
        python["play"] = 0.0
        for _ in range(args.rounds):
            python["play"] = max(python["play"], _phase("play (POST …/plays/)", "play", games, args))
            # The phase played in child processes: learn where each game now stands.
            games = [_refreshed(client, game) for game in games]
        if args.wrk:
            longest = max(games, key=lambda g: g.version)
            wrk = {"bare project": _wrk("bare project, wrk", "/api/health/", None, args, args.port + 1)}
            wrk["site health"] = _wrk("site's bare view, wrk", "/api/health/", None, args, args.port)
            wrk["open a game"] = _wrk(
                f"open a game of {longest.version} events, wrk",
                f"/api/games/{longest.id}/",
                longest.seats["a"].token,
                args,
                args.port,
            )
            fresh = [_new_game(client, g.seats["a"], g.seats["b"], g.b_name) for g in games]
            plan = _plan(fresh, env["DATABASE_URL"])
            try:
                wrk["play"] = _wrk(
                    "play (POST …/plays/), wrk",
                    "/",
                    None,
                    args,
                    args.port,
                    [str(ROOT / "benchmarks" / "plays.lua"), str(plan)],
                )
            finally:
                plan.unlink()
        _check_logs(env["DATABASE_URL"])
        _ratios("Python clients", python.pop("bare project"), python)
        if args.wrk:
            _ratios("wrk", wrk.pop("bare project"), wrk)
    finally:
        stop(server, bare, relay)


if __name__ == "__main__":
    main()
