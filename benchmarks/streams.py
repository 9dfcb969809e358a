"""How many idle live streams one stream process holds, what each costs, and what they do to an
event's latency.

    .venv/bin/python -m benchmarks.streams [--database sqlite|postgresql] [--counts 500,1000,2000]
                                           [--plays 20] [--haproxy as-deployed|without-no-delay]

Starts one stream process as deployed (gunicorn.conf.py, dragonheart_site.asgi on one uvicorn
worker: dragonheart_site.stream_worker.StreamWorker) on a free loopback port, over a fresh
database (an SQLite file, whose changes the worker polls for, or a scratch database on the
local PostgreSQL, which NOTIFYs it), with a throw-away Redis of its own. It creates an account
and a token for every stream, then opens the account streams (``GET /api/stream/``) over raw
asyncio sockets, each read until its snapshot's ``synced`` and then left idle (heartbeats only),
in steps up to each count. At each step it prints the worker's resident memory (RSS) and open
file descriptors, the memory per idle stream since the step with none, the worker's CPU while
the streams idle, and the latency from a play's commit to its ``your_turn`` on the waiting
player's stream: plays made in this process through the services, one at a time, the clock
started when the play's transaction has committed and stopped when the event's bytes arrive.
Latencies are given as a share of the same latency with no idle stream open, measured at the
start of the run and again after every idle stream is closed.

With ``--haproxy`` every stream goes through HAProxy (/usr/sbin/haproxy) with the one-machine
configuration (deploy/haproxy/one-machine.cfg, its addresses made loopback ones), as deployed
or without its ``option http-no-delay``; its memory and descriptors are printed too.

Everything talks only to 127.0.0.1; every wait is bounded. Raises this process's descriptor
limit to its hard limit (the worker inherits it): the largest count needs that many
descriptors on each side.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.stack import (
    BIN,
    ROOT,
    Client,
    fresh_database,
    next_game,
    play_first_legal,
    site_env,
    start_redis,
    stop,
    two_players,
)

WORKER_CLASS = "dragonheart_site.stream_worker.StreamWorker"
HAPROXY = "/usr/sbin/haproxy"
OPENING_AT_ONCE = 50  # streams being opened at one time
IDLE_WINDOW_SECONDS = 10.0  # one heartbeat period: the worker's CPU while its streams idle
PATIENCE = 60.0  # the longest any one wait may last
HEARTBEAT_SECONDS = 10.0  # STREAM_HEARTBEAT_SECONDS, as deployed
PAUSE_SECONDS = 0.3  # before each play, up to this long: longer than SQLite's polling period


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# --- The worker, seen from /proc ----------------------------------------------------------------


def worker_pid(master: int) -> int:
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.05)
    raise SystemExit("gunicorn started no worker")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise SystemExit(f"no VmRSS for {pid}")


def descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


# --- Streams over raw sockets -------------------------------------------------------------------


@dataclass
class Stream:
    """One account stream: its HTTP/1.1 chunked body decoded, split into SSE events."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    events: asyncio.Queue[tuple[str, dict[str, Any], float]] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None

    async def _chunks(self) -> None:
        pending = b""
        while True:
            size = int((await self.reader.readline()).strip() or b"0", 16)
            if size == 0:
                return  # the server ended the stream
            pending += (await self.reader.readexactly(size + 2))[:-2]
            arrived = time.monotonic()
            *whole, pending = pending.split(b"\n\n")
            for block in whole:
                lines = dict(line.split(": ", 1) for line in block.decode().splitlines() if ": " in line)
                if "event" in lines:
                    self.events.put_nowait((lines["event"], json.loads(lines.get("data", "{}")), arrived))

    async def until(self, kind: str, **expected: Any) -> float:
        """When the next ``kind`` event whose data holds ``expected`` arrived."""
        while True:
            event, data, arrived = await asyncio.wait_for(self.events.get(), PATIENCE)
            if event == kind and all(data.get(key) == value for key, value in expected.items()):
                return arrived

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()


async def open_stream(port: int, key: str) -> Stream:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        (
            "GET /api/stream/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
            f"Authorization: Token {key}\r\n\r\n"
        ).encode()
    )
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), PATIENCE)
    if not head.startswith(b"HTTP/1.1 200") or b"transfer-encoding: chunked" not in head.lower():
        raise SystemExit(f"the stream did not open: {head!r}")
    stream = Stream(reader, writer)
    stream.task = asyncio.create_task(stream._chunks())
    await stream.until("synced")
    return stream


async def open_many(port: int, keys: list[str]) -> list[Stream]:
    gate = asyncio.Semaphore(OPENING_AT_ONCE)

    async def one(key: str) -> Stream:
        async with gate:
            return await open_stream(port, key)

    return list(await asyncio.gather(*(one(key) for key in keys)))


# --- The accounts and the plays -----------------------------------------------------------------


def idle_accounts(count: int) -> list[str]:
    """``count`` new accounts with a token each (written in bulk, no password); their keys."""
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    from accounts.models import ApiToken, token_digest

    stamp = int(time.time())
    unusable = make_password(None)
    users = User.objects.bulk_create(
        User(username=f"idle{i}x{stamp}", password=unusable) for i in range(count)
    )
    keys = [ApiToken.new_key() for _ in users]
    ApiToken.objects.bulk_create(
        ApiToken(user=user, name="bench", digest=token_digest(key), prefix=key[:8])
        for user, key in zip(users, keys, strict=True)
    )
    return keys


@dataclass
class Table:
    """Two players whose plays the benchmark makes, each with a stream open."""

    players: list[Any]
    streams: dict[int, Stream]
    game: Any = None
    pause: random.Random = field(default_factory=lambda: random.Random(27))
    db: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1))  # one connection

    def _play(self) -> tuple[Any, int, float] | None:
        """A play by the seat to move: (the player now waiting, the game's version, when it
        committed), or None when it ended the game."""
        from games.models import Game

        self.game = next_game(self.game, self.players)
        by_seat = {"a": self.players[0], "b": self.players[1]}
        play_first_legal(self.game, by_seat)  # one statement, committed when it returns
        committed = time.monotonic()
        self.game.refresh_from_db()
        if self.game.status != Game.Status.ACTIVE:
            return None
        return by_seat[self.game.to_move], self.game.version, committed

    async def latencies(self, plays: int) -> list[float]:
        loop = asyncio.get_running_loop()
        measured: list[float] = []
        while len(measured) < plays:
            # Each play at a moment of its own: right after the last event it would keep step
            # with the worker's polling (SQLite) and always wait the same part of its period.
            await asyncio.sleep(self.pause.uniform(0, PAUSE_SECONDS))
            made = await loop.run_in_executor(self.db, self._play)
            if made is None:
                continue
            waiting, version, committed = made
            game_id = self.game.pk
            arrived = await self.streams[waiting.pk].until("your_turn", game_id=game_id, version=version)
            measured.append(arrived - committed)
        return measured


# --- The run --------------------------------------------------------------------------------------


def start_stream_process(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    command = [str(BIN / "gunicorn"), "dragonheart_site.asgi", f"--worker-class={WORKER_CLASS}"]
    command += ["--workers=1", f"--bind=127.0.0.1:{port}", "--log-level=warning"]
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    client = Client(port)
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited ({server.returncode})")
        try:
            if client.call("GET", "/api/health/")[0] == 200:
                return server
        except OSError:
            time.sleep(0.05)
    server.terminate()
    raise SystemExit("gunicorn did not answer")


def start_haproxy(variant: str, stream_port: int, scratch: Path, descriptors: int) -> tuple[Any, int]:
    """HAProxy with deploy/haproxy/one-machine.cfg on loopback addresses, both backends on the
    stream process (only streams are asked for), its connections within this process's
    descriptor limit; returns once it passes a stream's request on."""
    port = free_port()
    config = (ROOT / "deploy" / "haproxy" / "one-machine.cfg").read_text()
    config = re.sub(r"resolvers docker\n(    .*\n)+", "", config)
    for before, after in (
        (" resolvers docker", ""),
        ("bind :8000", f"bind 127.0.0.1:{port}"),
        ("web:8000", f"127.0.0.1:{stream_port}"),
        ("stream:8000", f"127.0.0.1:{stream_port}"),
        ("hdr Host localhost", "hdr Host 127.0.0.1"),  # the benchmark's ALLOWED_HOSTS
        ("maxconn 30000", f"maxconn {min(30000, descriptors // 2 - 500)}"),
    ):
        assert before in config, before
        config = config.replace(before, after)
    if variant == "without-no-delay":
        config = config.replace("    option http-no-delay\n", "")
    (scratch / "haproxy.cfg").write_text(config)
    log = (scratch / "haproxy.log").open("wb")
    proxy = subprocess.Popen([HAPROXY, "-db", "-f", str(scratch / "haproxy.cfg")], stdout=log, stderr=log)
    client = Client(port)
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if proxy.poll() is not None:
            raise SystemExit(f"haproxy exited: {(scratch / 'haproxy.log').read_text()}")
        try:
            # The stream backend up: an unauthenticated stream is the site's 401, not a 503.
            if client.call("GET", "/api/stream/")[0] == 401:
                return proxy, port
        except OSError:
            pass
        time.sleep(0.1)
    proxy.terminate()
    raise SystemExit("haproxy did not pass a stream on")


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.1f} ms"


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


async def measure(
    args: argparse.Namespace, port: int, master: int, proxy: int | None, keys: list[str], table: Table
) -> None:
    worker = worker_pid(master)
    print(
        f"stream process: master {master}, worker {worker}; database {args.database}; haproxy {args.haproxy}"
    )
    await table.latencies(3)  # warm the play's path and the event's

    async def idle_cpu() -> float:
        before, began = cpu_seconds(worker), time.monotonic()
        await asyncio.sleep(IDLE_WINDOW_SECONDS)
        return (cpu_seconds(worker) - before) / (time.monotonic() - began)

    async def step(label: str, open_now: int) -> tuple[float, float]:
        cpu = await idle_cpu()
        median, p95 = summary(await table.latencies(args.plays))
        rss, fds = rss_kib(worker), descriptors(worker)
        per = f"{(rss - base_rss) / open_now:.1f} KiB a stream" if open_now else "-"
        print(
            f"{label:>18}: RSS {rss / 1024:7.1f} MiB ({per}), {fds:5d} fds, idle CPU {100 * cpu:4.1f} %, "
            f"commit -> your_turn median {ms(median)}, p95 {ms(p95)}"
            + (f" ({100 * median / base_median:.0f} % of none open)" if open_now else "")
        )
        if proxy is not None:
            proxy_rss = rss_kib(proxy)
            per = f"{(proxy_rss - base_proxy_rss) / open_now:.1f} KiB a stream" if open_now else "-"
            print(f"{'haproxy':>18}: RSS {proxy_rss / 1024:7.1f} MiB ({per}), {descriptors(proxy):5d} fds")
        return median, p95

    base_rss = rss_kib(worker)
    base_proxy_rss = rss_kib(proxy) if proxy is not None else 0
    base_median, _ = await step("none open", 0)
    idle: list[Stream] = []
    for count in args.counts:
        began = time.monotonic()
        idle += await open_many(port, keys[len(idle) : count])
        took = time.monotonic() - began
        print(f"   opened {count} idle streams ({took:.1f} s for the last step)")
        await step(f"{count} idle", count)
    for stream in idle:
        await stream.close()
    # The worker notices closed connections at once; through HAProxy, only once a write to the
    # gone client has failed there: at its next heartbeats.
    await asyncio.sleep(3 if proxy is None else 2.5 * HEARTBEAT_SECONDS)
    closed_median, _ = await step("all closed again", 0)
    print(f"   none open, at the start and at the end: {ms(base_median)}, {ms(closed_median)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="postgresql")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--counts", default="500,1000,2000", help="idle streams open at each step")
    parser.add_argument("--plays", type=int, default=20, help="plays timed at each step")
    parser.add_argument("--haproxy", choices=["none", "as-deployed", "without-no-delay"], default="none")
    args = parser.parse_args()
    args.counts = sorted(int(n) for n in args.counts.split(","))
    # Stopped (a timeout's SIGTERM): the processes started here are stopped on the way out.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(f"stopped by signal {number}"))

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.counts[-1] + 200:
        raise SystemExit(f"ulimit -n: {hard} descriptors cannot hold {args.counts[-1]} streams")
    print(f"descriptors: {hard} a process (was {soft})")

    redis_port = free_port()
    redis = start_redis(redis_port)
    started = [redis]
    try:
        scratch = Path(tempfile.mkdtemp(prefix="dragonheart-streams-"))
        (scratch / "static").mkdir()  # whitenoise's, empty: the streams serve no file
        extra = {"STATIC_ROOT": str(scratch / "static")}
        if args.database == "sqlite":
            database = f"sqlite:///{scratch / 'streams.sqlite3'}"
            # The relay needs NOTIFY: each play queues its own deliveries (nobody takes them).
            extra["OUTBOX_RELAY"] = "0"
        else:
            database = fresh_database(args.postgres, "dragonheart_streams_bench")
        env = site_env(database, f"redis://127.0.0.1:{redis_port}/0", **extra)
        os.environ.update(env)
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        sys.path.insert(0, str(ROOT))
        import django

        django.setup()
        from accounts import services as accounts

        players = two_players("s")
        keys = idle_accounts(args.counts[-1])
        player_keys = {p.pk: accounts.token_create(user=p, name="bench")[1] for p in players}
        port = free_port()
        server = start_stream_process(env, port)
        started.append(server)
        proxy: subprocess.Popen[bytes] | None = None
        if args.haproxy != "none":
            proxy, port = start_haproxy(args.haproxy, port, scratch, hard)
            started.append(proxy)

        async def run() -> None:
            streams = {pk: await open_stream(port, key) for pk, key in player_keys.items()}
            proxy_pid = proxy.pid if proxy is not None else None
            await measure(args, port, server.pid, proxy_pid, keys, Table(players, streams))

        asyncio.run(run())
    finally:
        stop(*reversed(started))


if __name__ == "__main__":
    main()
