"""Capacity: one web node's plays/s and views/s, directly on PostgreSQL and through PgBouncer
in transaction mode, with the CPU each request costs where; and the database's cost per play.

    .venv/bin/python -m benchmarks.capacity [--rounds 3] [--seconds 10] [--clients 16]
    .venv/bin/python -m benchmarks.capacity --cost [--seconds 10]

Throughput (the default). On a scratch database of the shared PostgreSQL (127.0.0.1:5432) it
starts a PgBouncer of its own in front of it (pool_mode=transaction, auth_type=trust) and two
gunicorns with the site as deployed (4 sync workers): "direct" on PostgreSQL with prepared
statements, "pooled" on PgBouncer with PG_PREPARED_STATEMENTS=0 and CONN_HEALTH_CHECKS=1, as
docs/deploy.md deploys it behind a pooler; and the outbox relay (direct, as it must be). Each
round measures with wrk, direct then pooled (A B A B …, so the machine's drift falls on both):

- views: ``GET /api/games/{id}/`` of a game of about 60 events, by one of its players;
- plays: ``POST /api/games/{id}/plays/`` from a plan (benchmarks/plays.lua) for fresh games.

Beside each rate it prints the CPU per request of the node's gunicorn processes, of the
PostgreSQL backends connected to the scratch database (pg_stat_activity's pids, /proc CPU
times; the backends of every other session on the shared server are left out) and of
PgBouncer. The end gives the medians per variant and the pooled figure as a share of the
direct one.

Cost (``--cost``). A private PostgreSQL 15 (initdb under /tmp, a free port, nothing else on
it, pg_stat_statements loaded) behind the same node and relay. After a CHECKPOINT, then again
later in the same checkpoint cycle, it runs plays with wrk and prints per play: statements
sent (pg_stat_statements' calls, BEGIN and COMMIT and the relay's included), the foreign-key
checks the server's triggers run, the statements themselves, WAL bytes (pg_current_wal_lsn
before and after: the cluster holds nothing else) and full-page images, and the CPU of every
process of that cluster (backends, WAL writer, checkpointer, autovacuum). Then the same for
views.

Everything runs on this machine and talks only to 127.0.0.1; every wait is bounded.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from benchmarks.api_load import Seat, TableGame, _check_logs, _new_game, _plan, _play
from benchmarks.stack import (
    PASSWORD,
    ROOT,
    Client,
    fresh_database,
    prepare,
    site_env,
    start_gunicorn,
    start_relay,
    stop,
)

PG_BIN = Path("/usr/lib/postgresql/15/bin")
PGBOUNCER = "/usr/sbin/pgbouncer"
TICK = os.sysconf("SC_CLK_TCK")
WRK_THREADS = 2
PLAYERS = 20  # ten pairs, who share the games of a phase
PLAYS_LUA = str(ROOT / "benchmarks" / "plays.lua")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_postgres() -> dict[str, Any]:
    """PgBouncer and PostgreSQL refuse to run as root: run them as the postgres user then."""
    return {"user": "postgres", "group": "postgres"} if os.geteuid() == 0 else {}


def _scratch_dir(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")
    return path


def _wait_for(url: str, process: subprocess.Popen[bytes], what: str) -> None:
    for _ in range(200):
        if process.poll() is not None:
            raise SystemExit(f"{what} exited ({process.returncode})")
        try:
            with psycopg.connect(url, connect_timeout=2) as conn:
                conn.execute("SELECT 1")
            return
        except psycopg.OperationalError:
            time.sleep(0.1)
    process.terminate()
    raise SystemExit(f"{what} did not answer within 20 s")


def start_pgbouncer(database: str, upstream_port: int = 5432) -> tuple[subprocess.Popen[bytes], int, Path]:
    """A PgBouncer of our own in front of ``database``, in transaction mode; its port and its
    directory (configuration and log)."""
    port, home = free_port(), _scratch_dir("capacity-pgbouncer-")
    (home / "userlist.txt").write_text('"postgres" ""\n')
    (home / "pgbouncer.ini").write_text(
        f"""[databases]
{database} = host=127.0.0.1 port={upstream_port} dbname={database}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {home}/userlist.txt
pool_mode = transaction
max_client_conn = 200
default_pool_size = 20
logfile = {home}/pgbouncer.log
log_connections = 0
log_disconnections = 0
"""
    )
    process = subprocess.Popen([PGBOUNCER, "-q", str(home / "pgbouncer.ini")], **_as_postgres())
    _wait_for(f"postgres://postgres@127.0.0.1:{port}/{database}", process, "pgbouncer")
    return process, port, home


def start_private_postgres() -> tuple[subprocess.Popen[bytes], int, Path]:
    """A PostgreSQL 15 cluster of our own (nothing else writes to it, so its WAL is ours),
    with pg_stat_statements; its postmaster, port and directory."""
    port, home = free_port(), _scratch_dir("capacity-pg-")
    data = home / "data"
    subprocess.run(
        [str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
        check=True,
        stdout=subprocess.DEVNULL,
        **_as_postgres(),
    )
    process = subprocess.Popen(
        [
            str(PG_BIN / "postgres"),
            "-D",
            str(data),
            "-p",
            str(port),
            "-k",
            str(home),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "shared_preload_libraries=pg_stat_statements",
            "-c",
            "pg_stat_statements.track_utility=on",
        ],
        stdout=subprocess.DEVNULL,
        stderr=(home / "postgres.log").open("wb"),
        **_as_postgres(),
    )
    _wait_for(f"postgres://postgres@127.0.0.1:{port}/postgres", process, "private postgres")
    return process, port, home


def stop_postgres(process: subprocess.Popen[bytes], home: Path) -> None:
    process.send_signal(signal.SIGINT)  # fast shutdown: the cluster is thrown away
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
    shutil.rmtree(home, ignore_errors=True)


# --- CPU by process, from /proc ------------------------------------------------------------


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid``; 0 if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def children_of(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


Pids = Callable[[], list[int]]


def database_backends(monitor: psycopg.Connection[Any], database: str) -> Pids:
    """The PostgreSQL backends connected to ``database``, this monitoring one left out."""

    def pids() -> list[int]:
        rows = monitor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", [database]
        ).fetchall()
        return [row[0] for row in rows]

    return pids


def tree(pid: int) -> Pids:
    """A process and its children (a gunicorn master and its workers, a postmaster and its
    backends and helpers)."""
    return lambda: [pid, *children_of(pid)]


def cpu_snapshot(groups: dict[str, Pids]) -> dict[str, dict[int, float]]:
    return {name: {pid: cpu_of(pid) for pid in pids()} for name, pids in groups.items()}


def cpu_used(groups: dict[str, Pids], before: dict[str, dict[int, float]]) -> dict[str, float]:
    """CPU seconds each group used since ``before`` (a process started since counts whole)."""
    after = cpu_snapshot(groups)
    return {
        name: sum(cpu - before[name].get(pid, 0.0) for pid, cpu in after[name].items()) for name in groups
    }


# --- wrk ---------------------------------------------------------------------------------


@dataclass
class WrkRun:
    rate: float
    requests: int
    p50: str
    p99: str
    non_2xx: int
    plays: int  # plays.lua's count of 201s; 0 for plain GETs


def wrk(url: str, clients: int, seconds: float, token: str | None = None, plan: Path | None = None) -> WrkRun:
    header = ["-H", f"Authorization: Token {token}"] if token else []
    script = ["-s", PLAYS_LUA] if plan else []
    out = subprocess.run(
        ["wrk", f"-t{WRK_THREADS}", f"-c{clients}", f"-d{seconds:g}s", "--latency", *header, *script, url]
        + (["--", str(plan)] if plan else []),
        capture_output=True,
        text=True,
        check=True,
    ).stdout

    def number(pattern: str) -> float:
        found = re.search(pattern, out)
        return float(found.group(1)) if found else 0.0

    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.MULTILINE))
    starved = number(r"requests without a free game: (\d+)")
    if starved:
        print(f"  the plan ran out: {starved:.0f} requests were health checks; give more --games")
    return WrkRun(
        rate=number(r"Requests/sec:\s+([\d.]+)"),
        requests=int(number(r"(\d+) requests in")),
        p50=latency.get("50", "?"),
        p99=latency.get("99", "?"),
        non_2xx=int(number(r"Non-2xx or 3xx responses: (\d+)")),
        plays=int(number(r"plays accepted: (\d+)")),
    )


# --- the site's games --------------------------------------------------------------------


def sign_up(client: Client, count: int, prefix: str) -> list[tuple[str, Seat]]:
    seats = []
    for i in range(count):
        name = f"{prefix}{i}"
        status, _, _ = client.call("POST", "/api/users/", None, {"username": name, "password": PASSWORD})
        assert status == 201, status
        _, body, _ = client.call("POST", "/api/tokens/", None, {"username": name, "password": PASSWORD})
        seats.append((name, Seat(body["token"])))
    return seats


def fresh_games(client: Client, seats: list[tuple[str, Seat]], count: int) -> list[TableGame]:
    """``count`` new games, started, dealt round the pairs of ``seats`` (a pair may have many
    games at once: each sign-up hashes a password, so the players are few)."""
    pairs = [(seats[i][1], seats[i + 1][1], seats[i + 1][0]) for i in range(0, len(seats) - 1, 2)]
    return [_new_game(client, *pairs[i % len(pairs)]) for i in range(count)]


def long_game(client: Client, seats: list[tuple[str, Seat]], plays: int = 60) -> TableGame:
    """A game of about ``plays`` plays (or a whole game, if shorter), for the views."""
    game = fresh_games(client, seats[:2], 1)[0]
    for _ in range(plays):
        if game.over:
            break
        _play(client, game)
    return game


# --- throughput: direct beside pooled ----------------------------------------------------


@dataclass
class Node:
    name: str
    port: int
    cpu: dict[str, Pids]


def measure(
    node: Node, kind: str, args: argparse.Namespace, view: TableGame, seats: list[tuple[str, Seat]], url: str
) -> dict[str, float]:
    """One wrk phase on ``node``; prints it and returns its rate and CPU ms per request."""
    client = Client(node.port)
    plan = _plan(fresh_games(client, seats, args.games), url) if kind == "plays" else None
    before = cpu_snapshot(node.cpu)
    try:
        if plan:
            run = wrk(f"http://127.0.0.1:{node.port}/", args.clients, args.seconds, plan=plan)
        else:
            path = f"/api/games/{view.id}/"
            run = wrk(
                f"http://127.0.0.1:{node.port}{path}", args.clients, args.seconds, view.seats["a"].token
            )
    finally:
        if plan:
            plan.unlink()
    used = cpu_used(node.cpu, before)
    done = run.plays if plan else run.requests
    figures = {"rate": run.rate * (done / run.requests if run.requests else 0.0)}
    figures |= {f"{name} ms": 1000 * seconds / max(done, 1) for name, seconds in used.items()}
    cpu = "  ".join(f"{name} {figures[f'{name} ms']:.2f}" for name in node.cpu)
    print(
        f"{node.name:<17} {kind:<6} {figures['rate']:7.0f}/s  p50 {run.p50:>8} p99 {run.p99:>8}  "
        f"non-2xx {run.non_2xx}  CPU ms per {kind[:-1]}: {cpu}",
        flush=True,
    )
    return figures


def summarize(results: dict[tuple[str, str], list[dict[str, float]]]) -> None:
    print("\nmedians over the rounds (CPU in ms per request):")
    medians: dict[tuple[str, str], dict[str, float]] = {}
    for (node, kind), runs in results.items():
        medians[node, kind] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        parts = "  ".join(f"{k} {v:.2f}" for k, v in medians[node, kind].items() if k != "rate")
        print(f"  {node:<17} {kind:<6} {medians[node, kind]['rate']:7.0f}/s  {parts}")
    for kind in ("views", "plays"):
        direct = medians["direct", kind]["rate"]
        shares = "  ".join(
            f"{node} {m['rate'] / direct:.1%}"
            for (node, k), m in medians.items()
            if k == kind and node != "direct"
        )
        print(f"  {kind} as a share of direct: {shares}")
        # CPU per request drifts far less with the machine's load than a rate does: what a
        # given machine would do is inversely proportional to it.
        cpu = {
            node: sum(v for k, v in m.items() if k != "rate") for (node, k), m in medians.items() if k == kind
        }
        shares = "  ".join(f"{node} {cpu['direct'] / ms:.1%}" for node, ms in cpu.items() if node != "direct")
        print(
            f"  {kind} per CPU-second of every process measured, as a share of direct "
            f"({cpu['direct']:.2f} ms a request): {shares}"
        )


# Each variant is a node of its own (a gunicorn) on the same scratch database: whether it goes
# through PgBouncer, and the settings it runs with. "direct" and "pooled" are as deployed
# (docs/deploy.md); the other two tell where the difference between those goes.
VARIANTS: dict[str, tuple[bool, dict[str, str]]] = {
    "direct": (False, {}),
    "pooled": (True, {"PG_PREPARED_STATEMENTS": "0", "CONN_HEALTH_CHECKS": "1"}),
    "direct-unprepared": (False, {"PG_PREPARED_STATEMENTS": "0"}),
    "pooled-nocheck": (True, {"PG_PREPARED_STATEMENTS": "0", "CONN_HEALTH_CHECKS": "0"}),
}


def throughput(args: argparse.Namespace) -> None:
    database = f"{args.database}_load"
    url = fresh_database(args.postgres, database)
    env = site_env(url, args.redis)
    prepare(env)
    bouncer, bouncer_port, bouncer_home = start_pgbouncer(database)
    pooled_url = f"postgres://postgres@127.0.0.1:{bouncer_port}/{database}"
    servers: list[subprocess.Popen[bytes]] = []
    try:
        with psycopg.connect(url, autocommit=True) as monitor:
            backends = database_backends(monitor, database)
            nodes = []
            for name in args.variants.split(","):
                pooled, extra = VARIANTS[name]
                port = free_port()
                node_env = env | extra | ({"DATABASE_URL": pooled_url} if pooled else {})
                servers.append(start_gunicorn(node_env, port, args.workers))
                cpu = {"web": tree(servers[-1].pid), "postgres": backends}
                nodes.append(Node(name, port, cpu | ({"pgbouncer": tree(bouncer.pid)} if pooled else {})))
            servers.append(start_relay(env))
            client = Client(nodes[0].port)
            seats = sign_up(client, PLAYERS, "cap")
            view = long_game(client, seats)
            print(
                f"gunicorn: {args.workers} sync workers a node; wrk {args.clients} connections, "
                f"{args.seconds:g} s a phase; {args.games} fresh games a plays phase; "
                f"views of a game at version {view.version}; pgbouncer on port {bouncer_port}",
                flush=True,
            )
            results: dict[tuple[str, str], list[dict[str, float]]] = {}
            for _ in range(args.rounds):
                for node in nodes:
                    for kind in ("views", "plays"):
                        results.setdefault((node.name, kind), []).append(
                            measure(node, kind, args, view, seats, url)
                        )
        _check_logs(url)
        summarize(results)
    finally:
        stop(*servers)
        stop(bouncer)
        shutil.rmtree(bouncer_home, ignore_errors=True)
        with psycopg.connect(args.postgres, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


# --- cost per play, on a private cluster -------------------------------------------------

STATEMENTS = """
SELECT calls, total_exec_time, wal_bytes, wal_fpi, rows, regexp_replace(query, '\\s+', ' ', 'g')
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = %s)
  AND query NOT LIKE '%%pg_stat_statements%%' AND query NOT LIKE '%%pg_current_wal_lsn%%'
  AND query NOT LIKE '%%pg_stat_activity%%'
ORDER BY calls DESC, total_exec_time DESC
"""


def settle(monitor: psycopg.Connection[Any], database: str) -> None:
    """Wait (at most 10 s) until no backend of ``database`` is running a statement: the
    requests wrk left in flight finish inside the window that sent them."""
    for _ in range(100):
        (busy,) = monitor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND state = 'active' "
            "AND pid <> pg_backend_pid()",
            [database],
        ).fetchone() or (0,)
        if not busy:
            return
        time.sleep(0.1)


def cost_window(
    label: str,
    monitor: psycopg.Connection[Any],
    database: str,
    cpu: dict[str, Pids],
    run: Callable[[], int],
) -> None:
    """Run ``run`` (it returns how many requests it counted) and print what the cluster spent
    on each: statements, WAL, CPU."""
    monitor.execute("SELECT pg_stat_statements_reset()")
    start = monitor.execute("SELECT pg_current_wal_lsn(), (SELECT count(*) FROM games_gameevent)").fetchone()
    assert start is not None
    before = cpu_snapshot(cpu)
    done = run()
    settle(monitor, database)
    used = cpu_used(cpu, before)
    end = monitor.execute(
        "SELECT pg_current_wal_lsn() - %s::pg_lsn, (SELECT count(*) FROM games_gameevent)", [start[0]]
    ).fetchone()
    assert end is not None
    rows = monitor.execute(STATEMENTS, [database]).fetchall()
    # Foreign-key checks are statements the server's triggers run for each row written; the
    # node never sends them (no round trip), but they are work of the primary.
    sent = [row for row in rows if not row[5].startswith("SELECT 1 FROM ONLY")]
    # A play is one guarded append (statements.update_then_insert); counting those includes the
    # plays still in flight when wrk stopped, which wrk never saw answered.
    appends = sum(row[0] for row in sent if row[5].startswith('WITH "guard"'))
    done = appends if appends > done / 2 else done
    checks = sum(row[0] for row in rows) - sum(row[0] for row in sent)
    fpi = sum(row[3] for row in rows)
    exec_ms = sum(row[1] for row in rows)
    print(
        f"\n{label}: {done} requests, {end[1] - start[1]} events written; per request: "
        f"{sum(row[0] for row in sent) / done:.2f} statements sent, {checks / done:.2f} foreign-key checks, "
        f"{float(end[0]) / done:,.0f} WAL bytes ({fpi / done:.2f} full-page images), "
        f"statements' execution {exec_ms / done:.3f} ms; CPU ms: "
        + "  ".join(f"{name} {1000 * seconds / done:.2f}" for name, seconds in used.items()),
        flush=True,
    )
    for count, total_ms, wal_bytes, _, _, query in rows:
        if count / done >= 0.01:
            print(
                f"  {count / done:5.2f}/request  {total_ms / count:6.3f} ms  "
                f"WAL {float(wal_bytes) / done:6.0f} B/request  {query[:140]}"
            )


def cost(args: argparse.Namespace) -> None:
    postmaster, port, home = start_private_postgres()
    processes: list[subprocess.Popen[bytes]] = []
    try:
        database = f"{args.database}_cost"
        admin = f"postgres://postgres@127.0.0.1:{port}/postgres"
        url = fresh_database(admin, database)
        env = site_env(url, args.redis)
        prepare(env)
        web_port = free_port()
        processes.append(start_gunicorn(env, web_port, args.workers))
        processes.append(start_relay(env))
        client = Client(web_port)
        seats = sign_up(client, PLAYERS, "cost")
        view = long_game(client, seats)
        with psycopg.connect(url, autocommit=True) as monitor:
            monitor.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            cpu = {"postgres (whole cluster)": tree(postmaster.pid), "web": tree(processes[0].pid)}

            def plays() -> Callable[[], int]:
                """Fresh games and their plan, made before the window opens; its wrk run."""
                plan = _plan(fresh_games(client, seats, args.games), url)

                def run() -> int:
                    try:
                        return wrk(
                            f"http://127.0.0.1:{web_port}/", args.clients, args.seconds, plan=plan
                        ).plays
                    finally:
                        plan.unlink()

                return run

            def views() -> int:
                path = f"http://127.0.0.1:{web_port}/api/games/{view.id}/"
                return wrk(path, args.clients, args.seconds, view.seats["a"].token).requests

            run = plays()
            monitor.execute("CHECKPOINT")
            cost_window("plays right after a CHECKPOINT", monitor, database, cpu, run)
            cost_window("plays later in the same checkpoint cycle", monitor, database, cpu, plays())
            cost_window(f"views (a game at version {view.version})", monitor, database, cpu, views)
        _check_logs(url)
    finally:
        stop(*processes)
        stop_postgres(postmaster, home)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--cost", action="store_true", help="the database's cost per play, on a private cluster"
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of direct then pooled (medians)")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=16, help="wrk connections")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers a node")
    parser.add_argument(
        "--variants",
        default="direct,pooled",
        help=f"nodes to compare, direct first (of {', '.join(VARIANTS)})",
    )
    parser.add_argument("--games", type=int, default=120, help="fresh games a plays phase")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="dh_cap")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    args = parser.parse_args()
    if args.cost:
        cost(args)
    else:
        throughput(args)


if __name__ == "__main__":
    main()
