"""A PostgreSQL primary and its streaming replica of the test's own (Debian's PostgreSQL 15
binaries, data directories under a temp folder owned by the postgres user, free ports), the
replica made by ``pg_basebackup -R`` and lagging on purpose by ``recovery_min_apply_delay``."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

BIN = Path("/usr/lib/postgresql/15/bin")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _as_postgres(*command: str) -> None:
    # initdb and the server refuse to run as root.
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    done = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{command[0]}: {done.stderr}"


class PrimaryAndReplica:
    def __init__(self, folder: Path, *, apply_delay_ms: int) -> None:
        self.folder = folder
        self.apply_delay_ms = apply_delay_ms
        self.primary_port, self.replica_port = free_port(), free_port()
        self.primary_dir, self.replica_dir = folder / "primary", folder / "replica"

    def url(self, port: int, database: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{port}/{database}"

    def start(self) -> PrimaryAndReplica:
        self.folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres")
        _as_postgres(str(BIN / "initdb"), "-D", str(self.primary_dir), "-A", "trust", "-U", "postgres")
        with (self.primary_dir / "postgresql.conf").open("a") as conf:
            conf.write("wal_level = replica\nmax_wal_senders = 4\nfsync = off\n")
        with (self.primary_dir / "pg_hba.conf").open("a") as hba:
            hba.write("host replication all 127.0.0.1/32 trust\n")
        self._pg_ctl(self.primary_dir, self.primary_port, "start")
        _as_postgres(
            str(BIN / "pg_basebackup"), "-h", "127.0.0.1", "-p", str(self.primary_port), "-U", "postgres",
            "-D", str(self.replica_dir), "-R", "-X", "stream",
        )  # fmt: skip
        with (self.replica_dir / "postgresql.auto.conf").open("a") as conf:
            conf.write(f"recovery_min_apply_delay = {self.apply_delay_ms}\nhot_standby = on\n")
        self._pg_ctl(self.replica_dir, self.replica_port, "start")
        return self

    def _pg_ctl(self, data: Path, port: int, action: str) -> None:
        options = f"-p {port} -k {self.folder} -c listen_addresses=127.0.0.1"
        _as_postgres(str(BIN / "pg_ctl"), "-D", str(data), "-o", options, "-w", "-l", f"{data}.log", action)

    def wait_until_replayed(self, timeout: float = 60) -> None:
        """Until the replica has applied everything the primary has written so far."""
        import psycopg

        with psycopg.connect(self.url(self.primary_port), autocommit=True) as primary:
            (target,) = primary.execute("SELECT pg_current_wal_lsn()").fetchone()  # type: ignore[misc]
        deadline = time.monotonic() + timeout
        with psycopg.connect(self.url(self.replica_port), autocommit=True) as replica:
            while time.monotonic() < deadline:
                row = replica.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [target]).fetchone()
                if row and row[0]:
                    return
                time.sleep(0.1)
        raise AssertionError("the replica did not catch up")

    def stop(self) -> None:
        for data in (self.replica_dir, self.primary_dir):
            if (data / "postmaster.pid").exists():
                _as_postgres(str(BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
