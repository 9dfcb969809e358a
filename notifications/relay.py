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

The relay listens on the "direct" alias (DATABASE_DIRECT_URL): through a pooler in transaction
mode (PgBouncer) a LISTEN stays on whichever server connection ran it, and the relay would say
"listening" and hear nothing. A session can also go deaf without an error: its host vanished
without closing the socket, or something ended the LISTEN. So the relay keeps TCP keepalives
on its connection, and after ``probe_every`` quiet seconds it proves that it still hears: it
announces a probe on its channel from its other ("default") connection, as a play's commit
would, and a session that has not heard anything ``probe_timeout`` seconds later is closed and
opened again (and the catch-up queues what it missed). The probe is sent from the other
connection because a request on a session whose peer froze waits for an answer that never
comes, where waiting for a notification has a timeout.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any

import psycopg
from django.db import Error as DatabaseError
from django.db import connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper

from outbox import services as outbox

CHANNEL = "notifications_outbox"
PROBE = "probe:"  # a probe's payload starts so; a row's payload is its id (digits only)
# libpq's: a peer silent for 30 s is asked every 10 s, and given up after 3 unanswered asks;
# data unacknowledged for 30 s (a probe to a host that vanished) ends the connection too.
KEEPALIVES: dict[str, Any] = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
    "tcp_user_timeout": 30_000,
    "connect_timeout": 10,
}
log = logging.getLogger(__name__)


class Deaf(Exception):
    """The listening session heard nothing, not even its own probe."""


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
        alias: str = "direct",
        probe_every: float = 10.0,
        probe_timeout: float = 5.0,
    ) -> None:
        self.publish = publish
        self.linger = linger
        self.chunk = chunk
        self.batch = batch
        self.alias = alias
        self.probe_every = probe_every
        self.probe_timeout = probe_timeout
        self.stopping = threading.Event()
        self.backend_pid: int | None = None  # the listening session, for operators and tests
        self.session: psycopg.Connection[Any] | None = None  # the same, for tests to reach into
        self.heard_at = time.monotonic()  # when the session last heard anything
        self.probe_sent_at: float | None = None  # a probe not yet heard back

    @property
    def listener(self) -> BaseDatabaseWrapper:
        """This thread's connection of the "direct" alias: the listening session."""
        return connections[self.alias]

    def listen(self) -> None:
        """Start listening, then queue what is already pending (in that order: a row
        committed in between is then seen twice, never missed)."""
        listener = self.listener
        assert listener.vendor == "postgresql", "the outbox relay needs PostgreSQL's NOTIFY"
        # This thread's wrapper only: the alias's other users keep the settings' options.
        listener.settings_dict = {
            **listener.settings_dict,
            "OPTIONS": {**listener.settings_dict.get("OPTIONS", {}), **KEEPALIVES},
        }
        with listener.cursor() as cursor:
            cursor.execute(f"LISTEN {CHANNEL}")
        self.session = listener.connection
        self.backend_pid = self.session.info.backend_pid
        self.heard_at, self.probe_sent_at = time.monotonic(), None
        self.queue(outbox.pending(older_than=timedelta(0)))

    def collect(self, wait: float) -> list[int]:
        """The ids announced within ``wait`` seconds (empty if none), plus those arriving
        in the ``linger`` seconds after the first. Probes prove hearing and carry no id."""
        raw = self.listener.connection  # the psycopg connection, in autocommit
        first = list(raw.notifies(timeout=wait, stop_after=1))
        if not first:
            return []
        more = list(raw.notifies(timeout=self.linger, stop_after=self.batch - 1))
        self.heard_at, self.probe_sent_at = time.monotonic(), None
        return [int(note.payload) for note in first + more if not note.payload.startswith(PROBE)]

    def check_hearing(self) -> None:
        """Raise Deaf when a probe went unheard for ``probe_timeout`` seconds; send one when
        the session has been quiet for ``probe_every`` seconds."""
        now = time.monotonic()
        if self.probe_sent_at is not None:
            if now - self.probe_sent_at >= self.probe_timeout:
                raise Deaf(f"session {self.backend_pid} heard no probe in {self.probe_timeout:g} s")
        elif now - self.heard_at >= self.probe_every:
            # Any session's NOTIFY reaches every listener of the channel: each relay hears
            # the others' probes too, which proves its hearing as well as its own would.
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, PROBE + secrets.token_hex(8)])
            self.probe_sent_at = now

    def queue(self, note_ids: Iterable[int]) -> None:
        ids = sorted(set(note_ids))
        for start in range(0, len(ids), self.chunk):
            part = ids[start : start + self.chunk]
            try:
                self.publish(part)
            except Exception:  # the broker is down: the beat sweep queues them later
                log.warning("could not queue notifications %s; the outbox sweep will", part, exc_info=True)

    def run(self, wait: float = 1.0, on_listen: Callable[[], None] = lambda: None) -> None:
        """Relay until ``stopping`` is set; a lost or deaf database connection is reopened."""
        while not self.stopping.is_set():
            try:
                self.listen()
                on_listen()
                while not self.stopping.is_set():
                    self.queue(self.collect(wait))
                    self.check_hearing()
            # notifies() talks to psycopg directly: its errors come unwrapped by Django.
            except (DatabaseError, psycopg.Error, Deaf) as error:
                log.warning("outbox relay lost the database (%s); reconnecting", error, exc_info=True)
                self.close()
                self.stopping.wait(1.0)
        self.close()

    def close(self) -> None:
        for wrapper in (self.listener, connection):
            try:
                wrapper.close()
            except DatabaseError:  # already broken: nothing left to close
                log.debug("closing a broken connection", exc_info=True)
