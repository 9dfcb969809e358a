from __future__ import annotations

import signal
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from notifications.relay import OutboxRelay


class Command(BaseCommand):
    help = (
        "Queue the delivery of each outbox row as its transaction commits (PostgreSQL NOTIFY). "
        'Run one beside the Celery workers when OUTBOX_RELAY is on. It listens on the "direct" '
        "database (DATABASE_DIRECT_URL), never through a transaction pooler."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--linger", type=float, default=0.02, help="seconds to gather a batch")
        parser.add_argument("--chunk", type=int, default=10, help="rows per delivery task")

    def handle(self, *args: Any, linger: float, chunk: int, **options: Any) -> None:
        if not settings.OUTBOX_RELAY:
            raise CommandError("OUTBOX_RELAY is off: plays queue their own emails, no relay is needed.")
        relay = OutboxRelay(linger=linger, chunk=chunk)
        # SIGTERM (a container or service manager stopping it) ends the loop within a second
        # and the command exits 0, its connections closed.
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: relay.stopping.set())
        relay.run(on_listen=lambda: self._say(f"outbox relay listening (session {relay.backend_pid})"))

    def _say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()  # at once, also when stdout is a pipe or a file (a container's log)
