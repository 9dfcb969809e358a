"""The many-machines deployment (docs/deploy.md) made of local processes, for benchmarks/cluster.py:
a PostgreSQL 15 primary and a streaming replica, PgBouncer, Redis with a replica and three
Sentinels, HAProxy, and the site's own processes. Everything listens on 127.0.0.1 on free ports,
keeps its files under one temp directory, and is stopped by PID (``Topology.stop_all``).

Each process starts in a session of its own, so that a Ctrl-C in the terminal reaches only the
benchmark, which then stops them in order; a "machine" that dies is its process group killed.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import redis

from benchmarks.stack import BIN, ROOT

PG_BIN = Path("/usr/lib/postgresql/15/bin")
PGBOUNCER = "/usr/sbin/pgbouncer"
HAPROXY = "/usr/sbin/haproxy"
DATABASE = "dh"
SENTINEL_MASTER = "dh"
_handed_out: set[int] = set()


def free_port() -> int:
    """A port nothing listens on now, never handed out twice in one run."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port not in _handed_out:
            _handed_out.add(port)
            return port


def wait_until(condition: Callable[[], bool], what: str, limit: float = 60, step: float = 0.1) -> float:
    """Poll ``condition`` until it holds; seconds waited. Raises when ``limit`` passes."""
    began = time.monotonic()
    while time.monotonic() - began < limit:
        try:
            if condition():
                return time.monotonic() - began
        except (OSError, psycopg.Error, redis.RedisError):
            pass
        time.sleep(step)
    raise RuntimeError(f"{what}: not within {limit:.0f} s")


def answers_tcp(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
        return True


def redis_at(port: int) -> redis.Redis:
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, socket_connect_timeout=2)


def sentinel_master(port: int) -> int | None:
    """The master's port as a Sentinel sees it."""
    address: Any = redis_at(port).sentinel_get_master_addr_by_name(SENTINEL_MASTER)
    return int(address[1]) if address else None


@dataclass
class Proc:
    """One process of the topology, restartable with the same (or a changed) command."""

    name: str
    argv: list[str]
    log: Path
    env: dict[str, str] | None = None
    user: str | None = None
    cwd: Path = ROOT
    popen: subprocess.Popen[bytes] | None = None
    starts: int = 0

    def start(self) -> Proc:
        out = self.log.open("ab")
        self.popen = subprocess.Popen(
            self.argv,
            cwd=self.cwd,
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            user=self.user,
            group=self.user,
            extra_groups=[] if self.user else None,
        )
        out.close()
        self.starts += 1
        return self

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def send(self, sig: int) -> None:
        if self.alive():
            os.kill(self.pid, sig)

    def kill_group(self) -> None:
        """The machine dies: every process of its session, at once, with no goodbye."""
        if self.popen is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        self.popen.wait(timeout=30)
        self._reap_group()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> None:
        if self.popen is None:
            return
        if self.alive():
            os.kill(self.pid, sig)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.pid, signal.SIGKILL)
                self.popen.wait(timeout=30)
        self._reap_group()

    def _reap_group(self) -> None:
        """Children left behind (a gunicorn worker whose master died) hold its port: end them."""
        assert self.popen is not None
        for pid in _session_members(self.popen.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not _session_members(self.pid), f"{self.name}'s children to exit", 30)

    def log_holds(self, text: str, since: int = 0) -> bool:
        return text.encode() in self.log.read_bytes()[since:]


def _session_members(sid: int) -> list[int]:
    """PIDs of live processes in session ``sid`` (ours: each Proc starts its own)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def socket_owner(local_port: int, pids: list[int]) -> int | None:
    """Which of ``pids`` holds the TCP socket whose local port is ``local_port``."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            parts = line.split()
            if int(parts[1].rsplit(":", 1)[1], 16) == local_port:
                inodes.add(parts[9])
    for pid in pids:
        for member in [pid, *_children(pid)]:
            try:
                links = [os.readlink(fd) for fd in Path(f"/proc/{member}/fd").iterdir()]
            except OSError:
                continue
            if any(link.startswith("socket:[") and link[8:-1] in inodes for link in links):
                return pid
    return None


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


@dataclass
class Topology:
    """Every process, by role, and where they listen."""

    root: Path
    procs: dict[str, Proc] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)

    def add(self, proc: Proc) -> Proc:
        self.procs[proc.name] = proc
        return proc

    def path(self, name: str) -> Path:
        return self.root / name

    def stop_all(self) -> None:
        """Everything, the site's processes first, then the services under them."""
        order = [
            "haproxy",
            "web",
            "inbound",
            "relay",
            "beat",
            "worker",
            "pgbouncer",
            "sentinel",
            "redis",
            "pg",
        ]
        for prefix in order:
            for name, proc in list(self.procs.items()):
                if name.startswith(prefix):
                    sig = signal.SIGINT if prefix == "pg" else signal.SIGTERM  # PostgreSQL: fast shutdown
                    try:
                        proc.stop(sig, timeout=20)
                    except Exception as exc:  # keep stopping the rest
                        print(f"stopping {name}: {exc}", file=sys.stderr)

    # --- PostgreSQL ----------------------------------------------------------------------
    def start_primary(self) -> str:
        data = self.path("pg-primary")
        self._postgres_owned(data)
        self._postgres_owned(self.path("pg-run"))
        _as_postgres(
            [
                str(PG_BIN / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-locale",
                "--no-sync",
            ],
            self.root,
        )
        port = self.ports["pg-primary"] = free_port()
        with (data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"\nport = {port}\nlisten_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self.path('pg-run')}'\n"
                "wal_level = replica\nmax_wal_senders = 5\nhot_standby = on\n"
                "max_connections = 300\nshared_buffers = 64MB\n"
                # A benchmark's throw-away data: the machine does not crash, only processes do.
                "fsync = off\nfull_page_writes = off\n"
            )
        self._start_postgres("pg-primary", data)
        url = f"postgres://postgres@127.0.0.1:{port}/postgres"
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {DATABASE}")
        return f"postgres://postgres@127.0.0.1:{port}/{DATABASE}"

    def start_replica(self, apply_delay_ms: int) -> str:
        data = self.path("pg-replica")
        self._postgres_owned(data)
        _as_postgres(
            [
                str(PG_BIN / "pg_basebackup"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.ports["pg-primary"]),
                "-U",
                "postgres",
                "-D",
                str(data),
                "-R",
                "-X",
                "stream",
                "-c",
                "fast",
            ],
            self.root,
        )
        port = self.ports["pg-replica"] = free_port()
        with (data / "postgresql.auto.conf").open("a") as conf:
            # Lags on purpose: a read that should have seen a write shows it.
            conf.write(f"port = {port}\nrecovery_min_apply_delay = '{apply_delay_ms}ms'\n")
        self._start_postgres("pg-replica", data)
        return f"postgres://postgres@127.0.0.1:{port}/{DATABASE}"

    def _start_postgres(self, name: str, data: Path) -> None:
        proc = self.add(
            Proc(
                name,
                [str(PG_BIN / "postgres"), "-D", str(data)],
                self.path(f"{name}.log"),
                user="postgres",
                cwd=self.root,
            )
        )
        proc.start()
        port = self.ports[name]
        wait_until(lambda: _pg_ready(port), f"{name} to accept connections")

    def promote_replica(self) -> None:
        _as_postgres([str(PG_BIN / "pg_ctl"), "promote", "-w", "-D", str(self.path("pg-replica"))], self.root)

    def _postgres_owned(self, directory: Path) -> None:
        directory.mkdir(mode=0o700, exist_ok=True)
        shutil.chown(directory, "postgres", "postgres")

    # --- PgBouncer -------------------------------------------------------------------------
    def write_pgbouncer_ini(self, server_port: int) -> None:
        directory = self.path("pgbouncer")
        self._postgres_owned(directory)
        (directory / "userlist.txt").write_text('"postgres" ""\n')
        (directory / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"{DATABASE} = host=127.0.0.1 port={server_port} dbname={DATABASE} user=postgres\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.ports['pgbouncer']}\n"
            f"unix_socket_dir = {directory}\n"
            "auth_type = trust\nauth_file = userlist.txt\nadmin_users = postgres\n"
            "pool_mode = transaction\nmax_client_conn = 1000\ndefault_pool_size = 30\n"
            "server_reset_query =\nignore_startup_parameters = extra_float_digits,options\n"
            "server_connect_timeout = 3\nserver_login_retry = 1\nquery_wait_timeout = 30\n"
            f"logfile = {directory / 'pgbouncer.log'}\n"
        )
        for name in ("userlist.txt", "pgbouncer.ini"):
            shutil.chown(directory / name, "postgres", "postgres")

    def start_pgbouncer(self) -> str:
        self.ports.setdefault("pgbouncer", free_port())
        if "pgbouncer" not in self.procs:
            self.write_pgbouncer_ini(self.ports["pg-primary"])
            directory = self.path("pgbouncer")
            self.add(
                Proc(
                    "pgbouncer",
                    [PGBOUNCER, str(directory / "pgbouncer.ini")],
                    self.path("pgbouncer.out"),
                    user="postgres",
                    cwd=directory,
                )
            )
        self.procs["pgbouncer"].start()
        port = self.ports["pgbouncer"]
        wait_until(lambda: _pg_ready(port, DATABASE), "pgbouncer to serve the database")
        return f"postgres://postgres@127.0.0.1:{port}/{DATABASE}"

    def reload_pgbouncer(self) -> None:
        subprocess.run(
            [
                str(PG_BIN / "psql"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.ports["pgbouncer"]),
                "-U",
                "postgres",
                "-d",
                "pgbouncer",
                "-c",
                "RELOAD",
            ],
            check=True,
            capture_output=True,
        )

    # --- Redis and Sentinel ----------------------------------------------------------------
    def start_redis(self) -> None:
        master = self.ports["redis-1"] = free_port()
        replica = self.ports["redis-2"] = free_port()
        for name, extra in (("redis-1", []), ("redis-2", ["--replicaof", "127.0.0.1", str(master)])):
            directory = self.path(name)
            directory.mkdir()
            self.add(
                Proc(
                    name,
                    [
                        "redis-server",
                        "--bind",
                        "127.0.0.1",
                        "--port",
                        str(self.ports[name]),
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--dir",
                        str(directory),
                        *extra,
                    ],
                    self.path(f"{name}.log"),
                    cwd=directory,
                )
            ).start()
            wait_until(lambda n=name: bool(redis_at(self.ports[n]).ping()), name)  # type: ignore[misc]
        wait_until(
            lambda: redis_at(replica).info("replication")["master_link_status"] == "up",
            "the Redis replica to sync",
        )

    def start_sentinels(self, down_after_ms: int = 3000) -> list[int]:
        ports = []
        for n in (1, 2, 3):
            name = f"sentinel-{n}"
            port = self.ports[name] = free_port()
            ports.append(port)
            directory = self.path(name)
            directory.mkdir()
            conf = directory / "sentinel.conf"  # a copy each: Sentinel rewrites its own
            conf.write_text(
                f"bind 127.0.0.1\nport {port}\ndir {directory}\n"
                f"sentinel monitor {SENTINEL_MASTER} 127.0.0.1 {self.ports['redis-1']} 2\n"
                f"sentinel down-after-milliseconds {SENTINEL_MASTER} {down_after_ms}\n"
                f"sentinel failover-timeout {SENTINEL_MASTER} 20000\n"
                f"sentinel parallel-syncs {SENTINEL_MASTER} 1\n"
            )
            self.add(
                Proc(name, ["redis-server", str(conf), "--sentinel"], self.path(f"{name}.log"), cwd=directory)
            ).start()
        for port in ports:
            wait_until(lambda p=port: sentinel_master(p) == self.ports["redis-1"], "Sentinel")  # type: ignore[misc]
        # Each Sentinel has to have found the others (hello messages) before it can vote.
        wait_until(lambda: all(_known_sentinels(p) >= 2 for p in ports), "the Sentinels to meet", 30)
        return ports

    def redis_port_proc(self, port: int) -> Proc:
        return next(self.procs[n] for n in ("redis-1", "redis-2") if self.ports[n] == port)

    # --- HAProxy -------------------------------------------------------------------------
    def write_haproxy_cfg(self, web_ports: list[int], check_path: str) -> Path:
        self.ports.setdefault("haproxy", free_port())
        servers = "".join(
            f"    server web-{i} 127.0.0.1:{port} check\n" for i, port in enumerate(web_ports, 1)
        )
        cfg = self.path("haproxy.cfg")
        cfg.write_text(
            "global\n    maxconn 2000\n"
            "defaults\n    mode http\n    timeout connect 2s\n    timeout client 60s\n"
            # gunicorn kills a request after 30 s (its timeout): past that no answer is coming.
            "    timeout server 30s\n    timeout http-request 10s\n    timeout queue 10s\n"
            "    timeout check 2s\n"
            "frontend site\n"
            f"    bind 127.0.0.1:{self.ports['haproxy']}\n"
            "    option forwardfor\n    http-request del-header X-Forwarded-Proto\n"
            "    default_backend web\n"
            "backend web\n    balance leastconn\n"
            # Readiness: a draining node or one that cannot reach its database leaves the pool
            # within inter x fall = 2 s.
            "    option httpchk\n"
            f"    http-check send meth GET uri {check_path} ver HTTP/1.1 hdr Host 127.0.0.1\n"
            "    http-check expect status 200\n"
            # What an operator sets before taking nodes down (deploy/haproxy/haproxy.cfg): a
            # request a node refused, dropped or left unanswered goes to another node, when
            # that cannot apply it twice: a GET, or a write with an Idempotency-Key.
            "    option http-buffer-request\n    option redispatch\n    retries 2\n"
            "    retry-on conn-failure empty-response response-timeout\n"
            "    http-request disable-l7-retry if !METH_GET !{ req.hdr(Idempotency-Key) -m found }\n"
            "    default-server inter 1s fall 2 rise 2\n"
            f"{servers}"
        )
        return cfg

    def start_haproxy(self, web_ports: list[int], check_path: str) -> int:
        cfg = self.write_haproxy_cfg(web_ports, check_path)
        self.add(Proc("haproxy", [HAPROXY, "-db", "-f", str(cfg)], self.path("haproxy.log"))).start()
        port = self.ports["haproxy"]
        wait_until(lambda: answers_tcp(port), "haproxy")
        return port

    # --- The site's processes ------------------------------------------------------------
    def manage(self, name: str, env: dict[str, str], *command: str) -> Proc:
        return self.add(
            Proc(name, [sys.executable, "-u", "manage.py", *command], self.path(f"{name}.log"), env)
        )

    def celery(self, name: str, env: dict[str, str], *command: str) -> Proc:
        return self.add(
            Proc(
                name, [str(BIN / "celery"), "-A", "dragonheart_site", *command], self.path(f"{name}.log"), env
            )
        )

    def gunicorn(self, name: str, env: dict[str, str], port: int) -> Proc:
        self.ports[name] = port
        # The rest as deployed: gunicorn.conf.py, read from ROOT.
        return self.add(
            Proc(
                name,
                [
                    str(BIN / "gunicorn"),
                    "dragonheart_site.wsgi",
                    f"--bind=127.0.0.1:{port}",
                    "--log-level=warning",
                ],
                self.path(f"{name}.log"),
                env,
            )
        )


def _pg_ready(port: int, database: str = "postgres") -> bool:
    with psycopg.connect(f"postgres://postgres@127.0.0.1:{port}/{database}", connect_timeout=2) as conn:
        conn.execute("SELECT 1")
    return True


def _known_sentinels(port: int) -> int:
    master: Any = redis_at(port).sentinel_master(SENTINEL_MASTER)
    return int(master["num-other-sentinels"])


def _as_postgres(argv: list[str], cwd: Path) -> None:
    """A one-off command as the postgres user (initdb refuses root)."""
    subprocess.run(["runuser", "-u", "postgres", "--", *argv], cwd=cwd, check=True, capture_output=True)


def make_root(prefix: str = "cluster-") -> Path:
    """The run's temp directory, which the postgres user may enter."""
    import tempfile

    root = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    root.chmod(0o755)
    pwd.getpwnam("postgres")  # fails early, with a clear error, where there is no such user
    return root
