"""The kit's loop: one thread reads the account stream, the other handles its events in order.

The reader keeps the id of the last logged event and, whenever the stream breaks or falls
silent past the read timeout, reconnects with ``Last-Event-ID`` after a backoff; a ``reset``
clears the cursor, and the snapshot that follows brings back every open challenge and every
game waiting for the account. Being a thread of its own, it reads heartbeats even while a turn
is being thought over or a play retried.

The handler plays turns one at a time, in the order they come (correspondence games wait for
days: speed is not what matters). A turn is played at most once: a ``your_turn`` whose version
the kit has already answered is dropped; a play is sent again only with the same body and the
same Idempotency-Key, which the server answers as it did the first; a 409 (the version is
stale: the turn was played, or the game moved on) drops the turn."""

from __future__ import annotations

import logging
import queue
import random
import threading
from collections import Counter
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from engine.botkit.bots import Choose, Turn
from engine.botkit.client import Api, NetworkError, Stopped, Stream, StreamBusy, StreamRefused
from engine.botkit.policy import Policy, Verdict
from engine.botkit.stream import SSE, StreamEvent

LOG = logging.getLogger("engine.botkit")


class Runner:
    def __init__(
        self,
        api: Api,
        choose: Choose,
        policy: Policy | None = None,
        *,
        accept: str = SSE,
        rng: random.Random | None = None,
    ) -> None:
        self.api = api
        self.choose = choose
        self.policy = policy or Policy()
        self.accept = accept  # the stream's format: SSE or NDJSON
        self.rng = rng or random.Random()  # backoff jitter only
        self.cursor: str | None = None  # the last logged event's id: where a reconnect resumes
        self.tally: Counter[str] = Counter()  # what happened, for the log's summary and tests
        self.fatal: Exception | None = None
        self._queue: queue.Queue[StreamEvent | None] = queue.Queue()
        self._answered: dict[str, int] = {}  # game → the newest version whose turn was handled
        self._waiting: dict[str, dict[str, Any]] = {}  # challenges held for a free slot
        self._events: dict[str, list[dict[str, Any]]] = {}  # game → its events, as the seat sees them
        self._stream: Stream | None = None
        self._lock = threading.Lock()

    # --- running and stopping -------------------------------------------------------------

    def run(self) -> None:
        """Play until ``stop``; raises the reason if the server refused the stream for good."""
        reader = threading.Thread(target=self._read, name="botkit-stream", daemon=True)
        reader.start()
        try:
            while (event := self._queue.get()) is not None:
                try:
                    self.handle(event)
                except Stopped:
                    break
                except Exception:
                    # A bug or an answer the kit did not expect costs this event, not the bot.
                    LOG.exception("could not handle a %s event", event.kind)
                    self.tally["errors"] += 1
        finally:
            # Also on KeyboardInterrupt: how the command line's SIGINT and SIGTERM stop it.
            self.stop()
            reader.join(timeout=10)
            LOG.info("stopped: %s", dict(self.tally))
        if self.fatal is not None:
            raise self.fatal

    def stop(self) -> None:
        """Ask the kit to stop, from any thread (a signal handler had better raise
        KeyboardInterrupt in the main thread: ``run`` then stops on its way out)."""
        self.api.stopped.set()
        self._queue.put(None)
        with self._lock:
            if self._stream is not None:
                self._stream.interrupt()

    # --- the reader thread ---------------------------------------------------------------

    def _read(self) -> None:
        failures = 0
        while not self.api.stopped.is_set():
            try:
                stream = self.api.open_stream(self.cursor, self.accept)
            except StreamRefused as exc:
                LOG.error("%s", exc)
                self.fatal = exc
                self.stop()
                return
            except StreamBusy as exc:
                LOG.warning("the stream answered %s %s", exc.answer.status, exc.answer.code or "")
                delay = exc.answer.retry_after(default=self.api.backoff.delay(failures, self.rng))
            except NetworkError as exc:
                LOG.warning("cannot reach the stream: %s", exc)
                delay = self.api.backoff.delay(failures, self.rng)
            else:
                failures = 0
                self._follow(stream)
                self.tally["reconnects"] += 1
                delay = self.api.backoff.delay(failures, self.rng)
            failures += 1
            if self.api.wait(delay):
                return

    def _follow(self, stream: Stream) -> None:
        with self._lock:
            self._stream = stream
        if self.api.stopped.is_set():
            stream.interrupt()  # stopped between the connection and this line
        LOG.info("stream open after %s", self.cursor or "nothing (a snapshot comes)")
        try:
            with stream:
                for event in stream.events():
                    self._receive(event)
            LOG.info("the stream ended")
        except NetworkError as exc:
            LOG.info("the stream broke: %s", exc)
        finally:
            with self._lock:
                self._stream = None
            self.tally["malformed"] += stream.malformed

    def _receive(self, event: StreamEvent) -> None:
        if event.kind == "reset":
            self.cursor = None  # the snapshot follows, ending with a synced event's id
        elif event.id is not None:
            if _not_after(event.id, self.cursor):
                self.tally["repeated_events"] += 1
                return
            self.cursor = event.id
        self._queue.put(event)

    # --- the handler ---------------------------------------------------------------------

    def handle(self, event: StreamEvent) -> None:
        kind, data = event.kind, event.data
        self.tally[f"event:{kind}"] += 1
        if kind == "challenge":
            self._challenge(data)
        elif kind == "challenge_gone":
            self._waiting.pop(data["game_id"], None)
        elif kind == "your_turn":
            self._turn(data)
        elif kind == "game_over":
            self._game_over(data)
        elif kind == "reset":
            self._waiting.clear()  # the snapshot names every challenge still open
        # game_start and synced need nothing; a kind this kit does not know is skipped.

    def _challenge(self, data: Mapping[str, Any]) -> None:
        game_id = data["game_id"]
        verdict, why = self.policy.judge(data, self._running)
        LOG.info("challenge %s: %s (%s)", game_id, verdict.value, why)
        if verdict is Verdict.WAIT:
            self._waiting[game_id] = dict(data)
        elif verdict in (Verdict.ACCEPT, Verdict.DECLINE):
            answer = self.api.post(f"/api/games/{game_id}/{verdict.value}/")
            if answer.status == 200:
                self.tally[verdict.value + "ed"] += 1
            else:
                LOG.info("challenge %s could not be answered: %s %s", game_id, answer.status, answer.body)

    def _running(self) -> int:
        """The games the account plays now, counted by the server (the stream cannot tell of
        games that ended while it was down); at most the policy's limit is counted."""
        answer = self.api.get("/api/games/", mine="true", status="active")
        count = 0
        while answer.status == 200:
            count += len(answer.body["results"])
            following = answer.body.get("next")
            if count >= self.policy.max_games or not following:
                return count
            answer = self.api.call("GET", self._path_of(following))
        LOG.warning("cannot count the running games (%s): the challenge waits", answer.status)
        return self.policy.max_games

    def _path_of(self, url: str) -> str:
        parts = urlsplit(url)
        path = parts.path.removeprefix(self.api.prefix)
        return f"{path}?{parts.query}" if parts.query else path

    def _turn(self, data: Mapping[str, Any]) -> None:
        game_id, version = data["game_id"], data["version"]
        if version <= self._answered.get(game_id, -1):
            self.tally["repeated_turns"] += 1
            return
        self._answered[game_id] = version
        turn = Turn(game_id, version, data.get("deadline"), data["view"], lambda: self._log(game_id, version))
        try:
            move = self.choose(turn)
        except Stopped:
            raise
        except Exception:
            LOG.exception("the bot could not choose a play in game %s", game_id)
            self.tally["choose_failed"] += 1
            return
        body = {"cards": list(move["cards"]), "choice": move.get("choice"), "expected_version": version}
        # The same key for the same turn, also after a restart: the server plays it once.
        key = f"botkit-{game_id}-{version}"
        answer = self.api.post(f"/api/games/{game_id}/plays/", body, {"Idempotency-Key": key})
        if answer.status == 201:
            replayed = answer.headers.get("idempotent-replayed") == "true"
            self.tally["replayed" if replayed else "played"] += 1
            LOG.info("game %s: played %s at version %s", game_id, body["cards"], version)
        elif answer.status == 409:
            self.tally["stale"] += 1
            LOG.info("game %s: version %s is no longer current (%s)", game_id, version, answer.code)
        else:
            self.tally["refused"] += 1
            LOG.warning("game %s: the play was refused: %s %s", game_id, answer.status, answer.body)

    def _log(self, game_id: str, version: int) -> list[dict[str, Any]]:
        """The game's events up to ``version`` as the seat sees them, fetched once each."""
        cache = self._events.setdefault(game_id, [])
        while not cache or cache[-1]["seq"] < version:
            after = cache[-1]["seq"] if cache else 0
            answer = self.api.get(f"/api/games/{game_id}/events/", after=after, limit=500)
            if answer.status != 200:
                raise RuntimeError(f"the events of game {game_id} answered {answer.status}: {answer.body}")
            results = answer.body["results"]
            if not results:
                break
            cache.extend(results)
        return [event for event in cache if event["seq"] <= version]

    def _game_over(self, data: Mapping[str, Any]) -> None:
        self._events.pop(data["game_id"], None)
        self.tally["games_over"] += 1
        # A slot is free: the challenges held for one are judged again, oldest first.
        held, self._waiting = self._waiting, {}
        for challenge in held.values():
            self._challenge(challenge)


def _not_after(event_id: str, cursor: str | None) -> bool:
    """Whether ``event_id`` is at or before the cursor (a repeat), when both are numbers."""
    if cursor is None or not (event_id.isdigit() and cursor.isdigit()):
        return False
    return int(event_id) <= int(cursor)
