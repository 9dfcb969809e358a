"""A real Celery worker, ``celery -A dragonheart_site worker``, as a process of its own: on the
test's database (committed data only: tests use ``transactional_db``), a broker of the test's
own and the SMTP sink. It can be killed with SIGKILL, as the kernel's OOM killer or a lost
machine would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from django.db import connections

ROOT = Path(__file__).resolve().parents[2]


def database_url(alias: str = "default") -> str:
    """The test database (not the one settings name: pytest-django made its own), as
    ``alias`` reaches it: "direct" skips the pooler of the PostgreSQL pass."""
    db = connections[alias].settings_dict
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{db['NAME']}"  # a file, shared with this process (settings.py)
    user = quote(db["USER"] or "")
    password = quote(db["PASSWORD"] or "")
    return f"postgres://{user}:{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


class WorkerProcess:
    """``options`` replace the default pool (solo: one task at a time, in the worker's own
    process), e.g. ``("--pool=prefork", "--concurrency=2")`` as docker-compose runs it."""

    def __init__(self, *, broker_url: str, smtp_port: int, log: Path, options: Sequence[str] = ()) -> None:
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "dragonheart_site.settings",
            "PYTHONPATH": str(ROOT),  # this checkout's code, as in the test process
            "DATABASE_URL": database_url(),
            "DATABASE_DIRECT_URL": database_url("direct"),
            "REDIS_URL": broker_url,
            "REDIS_BROKER_URL": broker_url,
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(smtp_port),
            "LOG_LEVEL": "WARNING",
            # A game that ends queues its review; at production's budget it would hold this
            # one-task-at-a-time worker for seconds, ahead of the emails the test waits for.
            "REVIEW_ITERATIONS": "2",
        }
        self.log = log
        self.options = list(options) or ["--pool=solo"]
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> WorkerProcess:
        command = [str(Path(sys.executable).with_name("celery")), "-A", "dragonheart_site", "worker"]
        command += [*self.options, "--loglevel=INFO", "--without-gossip", "--without-mingle"]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=out, stderr=out)
        return self

    def kill(self) -> None:
        """SIGKILL: no warm shutdown, no message given back to the broker."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()
