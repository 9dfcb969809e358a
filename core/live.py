"""Doorbells for live streams: a process's open streams wait here until the database says
that something they serve has committed, whichever process or node committed it.

Each stream subscribes to keys ("u12": account 12's events; "g<id>": a game's events) and
waits on its ``Doorbell``; on a ring it reads what is new from the database itself, so a ring
carries no data and a ring too many costs one read. One listener thread per process, started
by the first subscriber:

* On PostgreSQL the rows announce themselves with NOTIFY (triggers: outbox migration 0005,
  games migration 0011), which the database delivers only when their transaction commits.
  The listener LISTENs on a connection of its own to the "direct" alias's database: through a
  pooler in transaction mode a LISTEN would stay on whichever server connection ran it.
  Whenever it (re)connects it rings every doorbell, since what committed while it was deaf
  was announced to nobody.
* Elsewhere (SQLite, the embedded default: one machine, writers in turn) it polls the tables
  that registered with ``watch`` a few times a second while anything is subscribed.

Doorbells serve both kinds of stream: a thread blocks on a threading.Event, a coroutine on an
asyncio.Event set from the listener thread through its loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from django.conf import settings
from django.db import connections

log = logging.getLogger(__name__)

CHANNEL = "dragonheart_live"
# PostgreSQL: how long one wait on the socket lasts before the listener looks round (is anyone
# still subscribed? does the session still answer?).
QUIET_SECONDS = 1.0
RETRY_SECONDS = 1.0  # after the listener lost its connection
# TCP keepalives: a LISTEN session whose host vanished is noticed (notifications/relay.py).
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3}


class Doorbell:
    """What one stream waits on. Clear it before reading, then wait: a ring between the read
    and the wait is not lost."""

    def __init__(self, keys: Iterable[str], loop: asyncio.AbstractEventLoop | None) -> None:
        self.keys = frozenset(keys)
        # Set by Hub.end_streams: the stream ends at its next wake, which comes at once.
        self.ended = False
        self._loop = loop
        self._thread_event = threading.Event()
        self._async_event = asyncio.Event() if loop is not None else None

    def ring(self) -> None:
        if self._loop is not None and self._async_event is not None:
            # A loop that has closed took its stream with it.
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._async_event.set)
        else:
            self._thread_event.set()

    def clear(self) -> None:
        if self._async_event is not None:
            self._async_event.clear()
        else:
            self._thread_event.clear()

    def wait(self, timeout: float) -> bool:
        """In a thread: True if rung within ``timeout`` seconds."""
        return self._thread_event.wait(timeout)

    async def wait_async(self, timeout: float) -> bool:
        """In a coroutine: True if rung within ``timeout`` seconds."""
        assert self._async_event is not None, "a thread's doorbell"
        try:
            await asyncio.wait_for(self._async_event.wait(), timeout)
        except TimeoutError:
            return False
        return True


@dataclass(frozen=True)
class _Watched:
    """A table polled where there is no NOTIFY: its rows ring ``prefix`` + ``column``."""

    table: str
    column: str
    prefix: str


@dataclass
class Hub:
    _doorbells: dict[str, set[Doorbell]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _someone: threading.Condition = field(init=False)
    _thread: threading.Thread | None = None
    _watched: list[_Watched] = field(default_factory=list)
    # False: no listener thread, only ``ring`` from the caller (tests of a stream's driver).
    listening: bool = True
    # For tests and operators: how many times the listener (re)connected.
    connections_made: int = 0
    _session_open: bool = False

    def __post_init__(self) -> None:
        self._someone = threading.Condition(self._lock)

    def watch(self, table: str, column: str, prefix: str) -> None:
        """Poll ``table`` where there is no NOTIFY: a new row rings ``prefix`` + its ``column``."""
        with self._lock:
            self._watched.append(_Watched(table, column, prefix))

    def subscribe(self, keys: Iterable[str], loop: asyncio.AbstractEventLoop | None = None) -> Doorbell:
        bell = Doorbell(keys, loop)
        with self._lock:
            for key in bell.keys:
                self._doorbells.setdefault(key, set()).add(bell)
            if self.listening and (self._thread is None or not self._thread.is_alive()):
                self._thread = threading.Thread(target=self._run, name="live-listener", daemon=True)
                self._thread.start()
            self._someone.notify_all()
        return bell

    def unsubscribe(self, bell: Doorbell) -> None:
        with self._lock:
            for key in bell.keys:
                bells = self._doorbells.get(key)
                if bells is not None:
                    bells.discard(bell)
                    if not bells:
                        del self._doorbells[key]

    def end_streams(self, wait: float = 5.0) -> None:
        """End every stream of this process now (each at its wake, which this rings) and wait
        up to ``wait`` seconds for them to go and for the listener to let its connection go:
        a node that drains (its clients resume elsewhere from their last event id), a test's
        end (whose database is then dropped)."""
        with self._lock:
            bells = {bell for bells in self._doorbells.values() for bell in bells}
        for bell in bells:
            bell.ended = True
            bell.ring()
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and (self.subscribers() or self._session_open):
            time.sleep(0.02)

    def subscribers(self) -> int:
        with self._lock:
            return len({bell for bells in self._doorbells.values() for bell in bells})

    def ring(self, keys: Iterable[str]) -> None:
        with self._lock:
            bells = {bell for key in keys for bell in self._doorbells.get(key, ())}
        for bell in bells:
            bell.ring()

    def ring_all(self) -> None:
        with self._lock:
            bells = {bell for bells in self._doorbells.values() for bell in bells}
        for bell in bells:
            bell.ring()

    def _idle(self) -> bool:
        with self._lock:
            return not self._doorbells

    def _wait_for_someone(self) -> None:
        with self._someone:
            while not self._doorbells:
                self._someone.wait()

    def _run(self) -> None:
        while True:
            self._wait_for_someone()
            session: Any = None
            try:
                session = _session()
                self._session_open = True
                if connections["direct"].vendor == "postgresql":
                    self._listen(session)
                else:
                    self._poll(session)
            except Exception:
                log.warning("live listener lost its database; retrying", exc_info=True)
                time.sleep(RETRY_SECONDS)
            finally:
                if session is not None:
                    with contextlib.suppress(Exception):
                        session.close()
                self._session_open = False

    def _listen(self, session: Any) -> None:
        """LISTEN until nobody is subscribed or the session fails (raising)."""
        session.execute(f"LISTEN {CHANNEL}")
        self.connections_made += 1
        self.ring_all()  # what committed while nobody listened
        while not self._idle():
            heard = False
            # Each wait ends after QUIET_SECONDS: then the session is made to answer (a dead
            # one raises) and the listener stops if nobody is subscribed any more.
            for note in session.notifies(timeout=QUIET_SECONDS):
                self.ring([note.payload])
                heard = True
            if not heard:
                session.execute("SELECT 1")

    def _poll(self, session: Any) -> None:
        """Look at the watched tables until nobody is subscribed."""
        with self._lock:
            watched = list(self._watched)
        last = {table: _max_id(session, table) for table in watched}
        self.connections_made += 1
        self.ring_all()
        while not self._idle():
            time.sleep(settings.STREAM_POLL_SECONDS)
            keys: set[str] = set()
            for table in watched:
                rows = session.execute(
                    f"SELECT id, {table.column} FROM {table.table} WHERE id > ? ORDER BY id", [last[table]]
                ).fetchall()
                for row_id, value in rows:
                    last[table] = max(last[table], row_id)
                    keys.add(f"{table.prefix}{value}")
            session.commit()  # a read transaction left open would hide later commits
            if keys:
                self.ring(keys)


def _session() -> Any:
    """A connection of the listener's own, to the "direct" alias's database, outside Django's
    per-thread connections (a test's database restrictions, a request's connection handling):
    on PostgreSQL in autocommit, as a LISTEN must be, with TCP keepalives."""
    wrapper = connections["direct"]
    params = wrapper.get_connection_params()
    if wrapper.vendor == "postgresql":
        return psycopg.connect(**{**params, **KEEPALIVES}, autocommit=True)
    return wrapper.get_new_connection(params)


def _max_id(session: Any, table: _Watched) -> int:
    (value,) = session.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table.table}").fetchone()
    return int(value)


hub = Hub()
