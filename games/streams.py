"""Live streams (issue 27; the contract: docs/bots-api.md): an account's stream of challenges,
starts, turns and ends, and a game's stream of its events as one viewer may see them.

Each stream is a small object that reads the database and returns messages (``opening``,
then ``more`` whenever its doorbell rings: core/live.py); ``sync_body`` and ``async_body``
drive one the same way, in a thread (runserver, gunicorn's sync workers: the embedded
default) or on an event loop (the ASGI service, where an idle stream holds no thread). A
message is sent as Server-Sent Events or as a line of newline-delimited JSON.

Nothing here decides what a viewer may see: an account's events were written for that
account alone (games/stream_events.py), a game's events pass through presenters.event_view
and a view through presenters.game_view, as the API's own answers do.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable, Generator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.db import close_old_connections, connection, transaction
from django.db.models import Q

from accounts import bots
from core.live import Hub, hub
from games import event_log, presenters, stream_events
from games.models import Game
from outbox import account_events

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"
RESET = "reset"
SYNCED = "synced"
STATE = "state"
# A game's stream ends with its game; a challenge that never became one ends it too.
_OVER = frozenset({Game.Status.FINISHED, Game.Status.DECLINED, Game.Status.CANCELLED})
_BATCH = 100  # events read at a time while a stream catches up


@dataclass(frozen=True)
class Message:
    """One event: its kind, its data already encoded as JSON, its id if it is logged."""

    event: str
    data: str
    id: int | None = None


def render(message: Message, form: str) -> bytes:
    if form == NDJSON:
        head = f'{{"id":{message.id},' if message.id is not None else "{"
        return f'{head}"event":"{message.event}","data":{message.data}}}\n'.encode()
    lines = [f"id: {message.id}"] if message.id is not None else []
    lines += [f"event: {message.event}", f"data: {message.data}", "", ""]
    return "\n".join(lines).encode()


def heartbeat(form: str) -> bytes:
    return b"\n" if form == NDJSON else b": ping\n\n"


def _cursor(text: str | None) -> int | None:
    """A cursor as a client sends it (digits only), or None."""
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 18:
        return None
    return int(text)


class Stream(Protocol):
    keys: frozenset[str]
    done: bool

    def opening(self) -> list[Message]: ...

    def more(self) -> list[Message]: ...

    def beat(self) -> None: ...


class AccountStream:
    """``GET /api/stream/``: the account's events after its cursor, or a snapshot first."""

    def __init__(self, user: User, cursor: str | None) -> None:
        self.user = user
        self.given = cursor
        self.cursor = 0
        self.keys = frozenset({f"u{user.pk}"})
        self.done = False
        self.is_bot = bots.is_bot(user)

    def opening(self) -> list[Message]:
        self.beat()
        newest = account_events.newest(self.user.pk)
        if self.given is not None:
            cursor = _cursor(self.given)
            oldest = account_events.oldest_kept(self.user.pk)
            first_kept = newest + 1 if oldest is None else oldest
            if cursor is not None and first_kept - 1 <= cursor <= newest:
                self.cursor = cursor
                return []
            return [Message(RESET, "{}"), *self._snapshot()]
        return self._snapshot()

    def _snapshot(self) -> list[Message]:
        """The open challenges and the games waiting for the account, then ``synced`` with the
        newest id: read in one snapshot of the database, so that nothing the snapshot shows
        comes again after ``synced`` and nothing after it is missing."""
        outermost = not connection.in_atomic_block
        with transaction.atomic():
            if outermost and connection.vendor == "postgresql":
                connection.cursor().execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            newest = account_events.newest(self.user.pk)
            messages = self._challenges() + self._waiting()
        self.cursor = newest
        return [*messages, Message(SYNCED, "{}", newest)]

    def _challenges(self) -> list[Message]:
        user = self.user
        mine = Q(status__in=(Game.Status.CHALLENGE, Game.Status.OPEN), created_by=user)
        to_me = Q(status=Game.Status.CHALLENGE, player_b=user)
        games = list(Game.objects.filter(mine | to_me).select_related("series").order_by("created_at", "id"))
        ratings = stream_events.ratings_of(games)
        messages = []
        for game in games:
            direction = "out" if game.created_by_id == user.pk else "in"
            data = stream_events.challenge_data(game, direction, ratings)
            messages.append(Message(stream_events.CHALLENGE, account_events.encode(data)))
        return messages

    def _waiting(self) -> list[Message]:
        games = Game.objects.of_player(self.user).filter(status=Game.Status.ACTIVE)
        games = games.order_by("turn_started_at", "id")
        messages = []
        for game in games:
            if game.to_move and game.to_move == game.seat_of(self.user):
                data = stream_events.your_turn_data(game, event_log.load_state(game), self.user.pk)
                messages.append(Message(stream_events.YOUR_TURN, account_events.encode(data)))
        return messages

    def more(self) -> list[Message]:
        rows = account_events.after(self.user.pk, self.cursor, _BATCH)
        if rows:
            self.cursor = rows[-1].seq
        return [Message(row.kind, row.data, row.seq) for row in rows]

    def beat(self) -> None:
        if self.is_bot:  # listed by GET /api/bots/online/ while a stream is open
            bots.mark_streaming(self.user.pk)


class GameStream:
    """``GET /api/games/{id}/stream/``: the game's events as the viewer may see them, each
    with the version it made as its id; ends with the game."""

    def __init__(self, game: Game, viewer: Any, cursor: str | None) -> None:
        self.game = game
        self.viewer = viewer
        self.given = cursor
        self.cursor = 0
        self.keys = frozenset({f"g{game.pk}"})
        self.done = False

    def opening(self) -> list[Message]:
        if self.given is not None:
            cursor = _cursor(self.given)
            if cursor is not None and cursor <= self.game.version:
                self.cursor = cursor
                return []
            return [Message(RESET, "{}"), self._state()]
        return [self._state()]

    def _state(self) -> Message:
        game = self.game
        state = event_log.load_state(game) if game.version else None
        self.cursor = game.version
        self.done = game.status in _OVER
        view = presenters.game_view(game, state, self.viewer)
        return Message(STATE, account_events.encode(view), game.version)

    def more(self) -> list[Message]:
        game = Game.objects.get(pk=self.game.pk)
        self.game = game
        rows = event_log.read_events(game, after=self.cursor, limit=_BATCH)
        if rows:
            self.cursor = rows[-1].seq
        self.done = game.status in _OVER and self.cursor >= game.version
        return [
            Message(row.kind, account_events.encode(presenters.event_view(row, game, self.viewer)), row.seq)
            for row in rows
        ]

    def beat(self) -> None:
        pass


T = TypeVar("T")


def _in_thread(work: Callable[[], T]) -> T:
    """Database work from a coroutine's worker thread, with the connection handling a request
    gets (a broken or expired connection is dropped before and after)."""
    close_old_connections()
    try:
        return work()
    finally:
        close_old_connections()


def _heartbeat_seconds() -> float:
    return float(settings.STREAM_HEARTBEAT_SECONDS)


def sync_body(stream: Stream, form: str, doorbells: Hub = hub) -> Generator[bytes]:
    """The stream's bytes, in a thread."""
    bell = doorbells.subscribe(stream.keys)
    try:
        bell.clear()
        out = [render(m, form) for m in stream.opening()]
        sent = time.monotonic()
        yield b"".join(out) or heartbeat(form)  # the headers go out at once
        while not stream.done:
            bell.clear()
            messages = stream.more()
            if messages:
                yield b"".join(render(m, form) for m in messages)
                sent = time.monotonic()
                continue
            if stream.done:
                break
            left = _heartbeat_seconds() - (time.monotonic() - sent)
            if left > 0 and bell.wait(left):
                if bell.ended:
                    break
                continue  # rung: read what is new
            stream.beat()
            yield heartbeat(form)
            sent = time.monotonic()
    finally:
        doorbells.unsubscribe(bell)


async def async_body(stream: Stream, form: str, doorbells: Hub = hub) -> AsyncGenerator[bytes]:
    """The stream's bytes, on an event loop: waiting holds no thread; each read of the
    database runs in the loop's pool of worker threads."""

    async def db(work: Callable[[], T]) -> T:
        return await sync_to_async(_in_thread, thread_sensitive=False)(work)

    bell = doorbells.subscribe(stream.keys, asyncio.get_running_loop())
    try:
        bell.clear()
        opening = await db(stream.opening)
        sent = time.monotonic()
        yield b"".join(render(m, form) for m in opening) or heartbeat(form)
        # Looked at here too: a stream ended (Hub.end_streams; a stopping stream worker,
        # dragonheart_site/stream_worker.py) while it was reading had its ring cleared below.
        while not stream.done and not bell.ended:
            bell.clear()
            messages = await db(stream.more)
            if messages:
                yield b"".join(render(m, form) for m in messages)
                sent = time.monotonic()
                continue
            if stream.done:
                break
            left = _heartbeat_seconds() - (time.monotonic() - sent)
            if left > 0 and await bell.wait_async(left):
                if bell.ended:
                    break
                continue  # rung: read what is new
            await db(stream.beat)
            yield heartbeat(form)
            sent = time.monotonic()
    finally:
        doorbells.unsubscribe(bell)
