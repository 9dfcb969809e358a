"""Redis behind Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_MASTER): Sentinel moves the master to
the replica while a worker holds a task. The worker lives on, finds the new master through
Sentinel, finishes the task it held and takes the tasks published after the move; the old
master, now a replica that refuses writes, makes no worker exit with "Unrecoverable error:
ReadOnlyError" as it did with a plain redis:// URL.

The held task may run again: the worker gives the message it had not acknowledged back to the
new master when its connection breaks, as Celery does with late acknowledgement. The site's
tasks are written for that (an outbox row is claimed once, a bot move names the version it
plays at); this test's task only counts."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from dragonheart_site import environment
from tests.faults.held_task import DONE, RELEASE, STARTED, hold, lines
from tests.support.celery_worker import celery_conf, wait_for

MASTER = "dragonheart-test"
GAVE_UP = "Unrecoverable error"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class SentinelGroup:
    """A master, its replica and one Sentinel (quorum 1), each a redis-server of the test's own."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.ports = {"a": _free_port(), "b": _free_port(), "sentinel": _free_port()}
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> SentinelGroup:
        a, b = self.ports["a"], self.ports["b"]
        self._server("--port", str(a))
        self._server("--port", str(b), "--replicaof", "127.0.0.1", str(a))
        assert wait_for(lambda: self.client(b).info("replication")["master_link_status"] == "up", 20)
        config = self.folder / "sentinel.conf"  # Sentinel rewrites its own file
        config.write_text(
            f"port {self.ports['sentinel']}\nbind 127.0.0.1\ndir {self.folder}\n"
            f"sentinel monitor {MASTER} 127.0.0.1 {a} 1\n"
            f"sentinel down-after-milliseconds {MASTER} 1000\n"
            f"sentinel failover-timeout {MASTER} 5000\n"
        )
        self.processes.append(
            subprocess.Popen(["redis-server", str(config), "--sentinel"], stdout=subprocess.DEVNULL)
        )
        assert wait_for(lambda: self.master_port() == a, 20)
        assert wait_for(lambda: bool(self._sentinel().sentinel_slaves(MASTER)), 20)  # it knows the replica
        return self

    def _server(self, *args: str) -> None:
        # A directory of the test's own: a replica's full sync writes dump.rdb there, which a
        # later redis-server started in the checkout would otherwise load.
        command = ["redis-server", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        command += ["--dir", str(self.folder), *args]
        self.processes.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))
        port = int(args[1])
        assert wait_for(lambda: self._answers(port), 10)

    def _answers(self, port: int) -> bool:
        try:
            return bool(self.client(port).ping())
        except redis.RedisError:
            return False

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, socket_timeout=2)

    def _sentinel(self) -> redis.Redis:
        return self.client(self.ports["sentinel"])

    def master_port(self) -> int | None:
        try:
            address = self._sentinel().sentinel_get_master_addr_by_name(MASTER)
        except redis.RedisError:
            return None
        return int(address[1]) if isinstance(address, tuple) else None

    def failover(self) -> None:
        self._sentinel().execute_command("SENTINEL", "FAILOVER", MASTER)

    def stop(self) -> None:
        for process in self.processes:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture
def sentinel_group(tmp_path, settings) -> Iterator[SentinelGroup]:
    """The group, and this process's Celery publishing through Sentinel as the site does."""
    group = SentinelGroup(tmp_path).start()
    sentinels = [("127.0.0.1", group.ports["sentinel"])]
    with celery_conf(
        broker_url=environment.sentinel_broker_url("redis://127.0.0.1:6379/1", sentinels),
        broker_transport="core.broker:SentinelTransport",
        broker_transport_options={**settings.CELERY_BROKER_TRANSPORT_OPTIONS, "master_name": MASTER},
        task_always_eager=False,
    ):
        yield group
    group.stop()


def test_a_worker_lives_through_a_sentinel_failover_and_takes_tasks_from_the_new_master(
    workers, sentinel_group, tmp_path
):
    held, after = tmp_path / "held", tmp_path / "after"
    held.mkdir()
    after.mkdir()
    (after / RELEASE).touch()
    worker = workers.start(
        "--pool=prefork",
        "--concurrency=2",
        "-I",
        "tests.faults.held_task",
        REDIS_SENTINELS=f"127.0.0.1:{sentinel_group.ports['sentinel']}",
        REDIS_SENTINEL_MASTER=MASTER,
        REDIS_URL="redis://127.0.0.1:6379/0",  # with Sentinel only the database number counts
        REDIS_BROKER_URL="redis://127.0.0.1:6379/1",
    )
    hold.delay(str(held))
    assert wait_for(lambda: lines(held, STARTED) == 1, 60)

    old = sentinel_group.ports["a"]
    sentinel_group.failover()
    assert wait_for(lambda: sentinel_group.master_port() == sentinel_group.ports["b"], 30)
    # The old master is a replica now: it refuses writes.
    assert wait_for(lambda: sentinel_group.client(old).info("replication")["role"] == "slave", 30)
    (held / RELEASE).touch()

    assert wait_for(lambda: lines(held, DONE) >= 1, 60)
    hold.delay(str(after))  # published to the new master, found through Sentinel
    assert wait_for(lambda: lines(after, DONE) == 1 or worker.process.poll() is not None, 120)
    assert worker.process.poll() is None, "the worker exited"
    assert GAVE_UP not in worker.log.read_text()
