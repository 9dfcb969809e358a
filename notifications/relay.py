"""The outbox relay: queues the delivery of every outbox row once its transaction commits.

Each row announces itself with NOTIFY (a trigger, PostgreSQL only: see migration 0002), which
the database delivers at commit and drops on rollback. The relay listens, gathers what
arrives within ``linger`` seconds and publishes one ``send_notifications`` task per ``chunk``
rows, so that a busy minute costs a few publishes instead of one per play, and no request
ever waits for the broker. On (re)connecting it first queues the rows still pending (up to
outbox.pending's 500), so that rows committed while it was away are not left to the
minute-long beat sweep, which takes any beyond.

Delivery stays at-least-once-queued, exactly-once-claimed: a row queued twice (by the
catch-up and its own NOTIFY, or by the beat sweep) is sent once (outbox.services.claim).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from datetime import timedelta

import psycopg
from django.db import Error as DatabaseError
from django.db import connection

from outbox import services as outbox

CHANNEL = "notifications_outbox"
log = logging.getLogger(__name__)


def publish(note_ids: list[int]) -> None:
    from notifications.tasks import send_notifications

    send_notifications.delay(note_ids)


class OutboxRelay:
    def __init__(
        self,
        *,
        publish: Callable[[list[int]], None] = publish,
        linger: float = 0.02,
        chunk: int = 10,
        batch: int = 500,
    ) -> None:
        self.publish = publish
        self.linger = linger
        self.chunk = chunk
        self.batch = batch
        self.stopping = threading.Event()
        self.backend_pid: int | None = None  # the listening session, for operators and tests

    def listen(self) -> None:
        """Start listening, then queue what is already pending (in that order: a row
        committed in between is then seen twice, never missed)."""
        assert connection.vendor == "postgresql", "the outbox relay needs PostgreSQL's NOTIFY"
        with connection.cursor() as cursor:
            cursor.execute(f"LISTEN {CHANNEL}")
        self.backend_pid = connection.connection.info.backend_pid
        self.queue(outbox.pending(older_than=timedelta(0)))

    def collect(self, wait: float) -> list[int]:
        """The ids announced within ``wait`` seconds (empty if none), plus those arriving
        in the ``linger`` seconds after the first."""
        raw = connection.connection  # the psycopg connection, in autocommit
        first = list(raw.notifies(timeout=wait, stop_after=1))
        if not first:
            return []
        more = list(raw.notifies(timeout=self.linger, stop_after=self.batch - 1))
        return [int(note.payload) for note in first + more]

    def queue(self, note_ids: Iterable[int]) -> None:
        ids = sorted(set(note_ids))
        for start in range(0, len(ids), self.chunk):
            part = ids[start : start + self.chunk]
            try:
                self.publish(part)
            except Exception:  # the broker is down: the beat sweep queues them later
                log.warning("could not queue notifications %s; the outbox sweep will", part, exc_info=True)

    def run(self, wait: float = 1.0, on_listen: Callable[[], None] = lambda: None) -> None:
        """Relay until ``stopping`` is set; a lost database connection is reopened."""
        while not self.stopping.is_set():
            try:
                self.listen()
                on_listen()
                while not self.stopping.is_set():
                    self.queue(self.collect(wait))
            # notifies() talks to psycopg directly: its errors come unwrapped by Django.
            except (DatabaseError, psycopg.Error):
                log.warning("outbox relay lost the database; reconnecting", exc_info=True)
                connection.close()
                self.stopping.wait(1.0)
        connection.close()
