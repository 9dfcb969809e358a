"""A fake Dragonheart site for the bot kit's tests: the API's JSON as games/presenters.py
shapes it, built from the engine alone, and a small HTTP server (standard library, 127.0.0.1,
a free port) that speaks the account stream's contract (docs/bots-api.md) over engine games
against a seeded random bot, with faults the tests switch on: cut streams, silent streams,
lost answers, 429s, duplicated and stale announcements."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from engine.bots import make_bot
from engine.cards import CARD_TYPE, SEATS, TYPES, Seat
from engine.errors import IllegalMove
from engine.events import AnyEvent
from engine.options import Options
from engine.replay import apply_events, state_from_start
from engine.rules import Play, decide, legal_plays, start_game
from engine.state import State
from engine.visibility import seat_view, view_events, view_state

TOKEN = "kit-token"
US: Seat = "a"  # the kit's seat in every game here
THEM: Seat = "b"

# --- the API's JSON, as games/presenters.py builds it -----------------------------------------


def api_view(state: State, seat: Seat, game_id: str = "g1") -> dict[str, Any]:
    """``GET /api/games/{id}/`` for ``seat`` during play: presenters.game_view's keys, the
    cards as ``{id, type, value}``, the counts on the players."""
    shown = view_state(state, seat)
    faces = {card: {"id": card, "type": CARD_TYPE[card], "value": v} for card, v in state.values.items()}

    def cards(ids: list[str] | None) -> list[dict[str, Any]] | None:
        return None if ids is None else [faces[c] for c in ids]

    players = [
        {
            "seat": s,
            "username": "kit" if s == US else "bot:random",
            "is_bot": s != US,
            "bot": None if s == US else "random",
            "hand_size": shown["hand_sizes"][s],
            "pile_size": shown["pile_sizes"][s],
            "captured_count": shown["captured_counts"][s],
            "has_dragon": shown["dragon"] == s,
            "score": None,
        }
        for s in SEATS
    ]
    return {
        "id": game_id,
        "status": "finished" if state.over else "active",
        "players": players,
        "your_seat": seat,
        "to_move": state.to_move,
        "your_turn": state.to_move == seat,
        "version": state.version,
        "series": None,
        "number": 1,
        "private": False,
        "rated": False,
        "options": state.options.to_json(),
        "turn": state.turn,
        "board": {kind: cards(shown["board"][kind]) for kind in TYPES},
        "hold": cards(shown["hold"]),
        "voyages": shown["voyages"],
        "dragon": shown["dragon"],
        "last_turn": shown["last_turn"],
        "hand": cards(shown["hands"][seat]),
        "legal_plays": [{"cards": list(p.cards), "choice": p.choice} for p in legal_plays(state)]
        if state.to_move == seat
        else None,
        "revealed": None,
        "deal": None,
    }


def api_events(log: Sequence[AnyEvent], seat: Seat, revealed: bool = False) -> list[dict[str, Any]]:
    """``GET /api/games/{id}/events/``'s results for ``seat``: each event as the seat may see
    it, with its sequence number."""
    return [
        {"seq": i, "created_at": "2025-01-01T00:00:00Z", **event}
        for i, event in enumerate(view_events([dict(e) for e in log], seat, revealed), start=1)
    ]


# --- the site ---------------------------------------------------------------------------------


@dataclass
class FakeGame:
    id: str
    state: State
    log: list[AnyEvent]
    table: random.Random
    bot: random.Random


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Faults:
    """What goes wrong, each switched on by a test."""

    cut: float = 0.0  # the chance that a stream is cut after each event it sends
    silent_streams: set[int] = field(default_factory=set)  # these connections (1-based) go silent
    lose_answers: int = 0  # the next plays are made but their answers lost
    throttle: int = 0  # the next plays are answered 429
    server_errors: int = 0  # the next plays are answered 503, unmade
    retry_after: int = 7
    duplicate_turns: bool = False  # every your_turn is logged twice


class FakeSite:
    def __init__(self, seed: str, *, options: Options | None = None, heartbeat: float = 0.05) -> None:
        self.seed = seed
        self.options = options or Options()
        self.heartbeat = heartbeat
        self.faults = Faults()
        self.cuts = random.Random(f"{seed}:cuts")
        self.changed = threading.Condition()
        self.log: list[tuple[int, str, dict[str, Any]]] = []  # the account's logged events
        self.oldest_kept = 1
        self.games: dict[str, FakeGame] = {}
        self.challenges: dict[str, dict[str, Any]] = {}
        self.keys: dict[str, str] = {}  # Idempotency-Key → the play's body
        self.requests: list[Request] = []
        self.answers: list[tuple[str, str]] = []  # (accept | decline, game id)
        self.applied: list[tuple[str, int]] = []  # (game, version) of each play made
        self.statuses: list[tuple[str, int, int]] = []  # (game, expected version, status) per play
        self.streams: list[dict[str, Any]] = []  # per connection: cursor, kind, ids sent
        self.closing = False
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    # --- the world ---

    def emit(self, kind: str, data: dict[str, Any]) -> int:
        with self.changed:
            event_id = self.log[-1][0] + 1 if self.log else 1
            self.log.append((event_id, kind, data))
            self.changed.notify_all()
            return event_id

    def challenge(self, game_id: str, **overrides: Any) -> dict[str, Any]:
        data = {
            "game_id": game_id,
            "direction": "in",
            "challenger": {"username": "carol", "is_bot": False, "rating": 1500},
            "challenged": {"username": "kit", "is_bot": True, "rating": 1500},
            "rated": False,
            "days_per_turn": None,
            "rules": self.options.to_json(),
            "series": None,
            "private": False,
            **overrides,
        }
        with self.changed:
            self.challenges[game_id] = data
            self.emit("challenge", data)
        return data

    def start(self, game_id: str, first: Seat = US) -> FakeGame:
        with self.changed:
            table = random.Random(f"{self.seed}:{game_id}:table")
            start = start_game(table, self.options, first=first)
            game = FakeGame(game_id, state_from_start(start), [start], table, random.Random(f"{game_id}:bot"))
            self.games[game_id] = game
            self.emit("game_start", {"game_id": game_id, "seat": US, "opponent": {"username": "x"}})
            self._advance(game)
            return game

    def _advance(self, game: FakeGame) -> None:
        """The site's bot plays while it is its turn; then the turn or the end is announced."""
        while not game.state.over and game.state.to_move == THEM:
            play = make_bot("random", game.bot).choose(seat_view(game.state, THEM, game.log))
            self._apply(game, play)
        if game.state.over:
            self.emit("game_over", {"game_id": game.id, "result": {}, "scores": game.state.scores()})
        else:
            self._announce(game)

    def _announce(self, game: FakeGame) -> None:
        data = self.turn_data(game)
        self.emit("your_turn", data)
        if self.faults.duplicate_turns:
            self.emit("your_turn", data)

    def turn_data(self, game: FakeGame) -> dict[str, Any]:
        view = api_view(game.state, US, game.id)
        return {"game_id": game.id, "version": game.state.version, "deadline": None, "view": view}

    def _apply(self, game: FakeGame, play: Play) -> None:
        produced = decide(game.state, play, game.table)
        apply_events(game.state, produced)
        game.log.extend(produced)

    def play_elsewhere(self, game_id: str) -> None:
        """The account plays its turn from elsewhere (a browser): the kit's announcement of
        that turn is now stale."""
        with self.changed:
            game = self.games[game_id]
            self._apply(game, legal_plays(game.state)[0])
            self._advance(game)

    def snapshot(self) -> list[tuple[str, dict[str, Any]]]:
        events = [("challenge", data) for data in self.challenges.values()]
        for game in self.games.values():
            if not game.state.over and game.state.to_move == US:
                events.append(("your_turn", self.turn_data(game)))
        return events

    def over(self) -> bool:
        return bool(self.games) and all(g.state.over for g in self.games.values())

    # --- lifecycle ---

    @contextmanager
    def running(self) -> Iterator[FakeSite]:
        thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        try:
            yield self
        finally:
            with self.changed:
                self.closing = True
                self.changed.notify_all()
            self.server.shutdown()
            self.server.server_close()
            thread.join()

    def wait_for(self, condition: Any, timeout: float = 60.0) -> bool:
        """Wait (bounded, so that a broken kit fails the test instead of hanging it) until
        ``condition()`` holds: checked each time the site changes, and every 20 ms for what
        the kit's side changes."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while not condition():
                if time.monotonic() > deadline:
                    return False
                self.changed.wait(0.02)
        return True


def _handler(site: FakeSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def _route(self, method: str) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            headers = {k.lower(): v for k, v in self.headers.items()}
            with site.changed:
                site.requests.append(Request(method, url.path, headers, body))
                site.changed.notify_all()
            if headers.get("authorization") != f"Token {TOKEN}":
                return self._json(401, {"code": "not_authenticated", "detail": "No token."})
            parts = url.path.strip("/").split("/")  # api, games, id, action
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/api/stream/":
                return self._stream(headers, query)
            if url.path == "/api/games/":
                return self._games()
            if len(parts) == 4 and parts[3] == "events":
                return self._events(parts[2], int(query.get("after", 0)), int(query.get("limit", 200)))
            if len(parts) == 4 and parts[3] == "plays" and method == "POST":
                return self._play(parts[2], headers, body)
            if len(parts) == 4 and parts[3] in ("accept", "decline") and method == "POST":
                return self._answer(parts[2], parts[3])
            return self._json(404, {"code": "not_found", "detail": "No such page."})

        def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(raw)

        def _games(self) -> None:
            with site.changed:
                running = [{"id": g.id} for g in site.games.values() if not g.state.over]
            self._json(200, {"results": running, "next": None})

        def _events(self, game_id: str, after: int, limit: int) -> None:
            with site.changed:
                game = site.games[game_id]
                shown = api_events(game.log, US, game.state.over)
            page = [e for e in shown if e["seq"] > after][:limit]
            self._json(200, {"results": page, "next": None})

        def _answer(self, game_id: str, verb: str) -> None:
            with site.changed:
                if game_id not in site.challenges:
                    return self._json(409, {"code": "not_open", "detail": "Gone."})
                del site.challenges[game_id]
                site.answers.append((verb, game_id))
                site.emit("challenge_gone", {"game_id": game_id, "reason": verb + "ed"})
                if verb == "accept":
                    site.start(game_id)
            self._json(200, {"id": game_id})

        def _play(self, game_id: str, headers: dict[str, str], body: Any) -> None:
            key = headers.get("idempotency-key", "")
            with site.changed:
                game = site.games[game_id]
                status, answer, extra = self._decide_play(game, key, body)
                site.statuses.append((game_id, body["expected_version"], status))
                lose = status == 201 and not extra and site.faults.lose_answers > 0
                if lose:
                    site.faults.lose_answers -= 1
            if lose:
                self.close_connection = True  # made, but its answer never arrives
                return
            self._json(status, answer, extra)

        def _decide_play(self, game: FakeGame, key: str, body: Any) -> tuple[int, Any, dict[str, str]]:
            if key in site.keys:
                if site.keys[key] != json.dumps(body, sort_keys=True):
                    return 409, {"code": "idempotency_key_reused", "detail": "Another play."}, {}
                return 201, api_view(game.state, US, game.id), {"Idempotent-Replayed": "true"}
            if site.faults.server_errors > 0:
                site.faults.server_errors -= 1
                return 503, {"code": "unavailable", "detail": "Try again."}, {}
            if site.faults.throttle > 0:
                site.faults.throttle -= 1
                after = site.faults.retry_after
                return (
                    429,
                    {"code": "throttled", "detail": "Slow down.", "retry_after": after},
                    {"Retry-After": str(after)},
                )
            if body["expected_version"] != game.state.version or game.state.to_move != US:
                return 409, {"code": "stale_version", "detail": "The game has moved on."}, {}
            try:
                self_play = Play(tuple(body["cards"]), body["choice"])
                site._apply(game, self_play)
            except IllegalMove as exc:
                return 400, {"code": exc.code, "detail": exc.message}, {}
            site.keys[key] = json.dumps(body, sort_keys=True)
            site.applied.append((game.id, body["expected_version"]))
            site._advance(game)
            return 201, api_view(game.state, US, game.id), {}

        # --- the stream ---

        def _stream(self, headers: dict[str, str], query: dict[str, str]) -> None:
            cursor = headers.get("last-event-id", query.get("after"))
            ndjson = headers.get("accept") == "application/x-ndjson"
            with site.changed:
                record: dict[str, Any] = {"cursor": cursor, "ids": [], "reset": False}
                site.streams.append(record)
                number = len(site.streams)
                first, position = self._opening(cursor, record)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson" if ndjson else "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            try:
                for kind, data, event_id in first:
                    self._send(ndjson, kind, data, event_id, record)
                if number in site.faults.silent_streams:
                    return self._stay_silent()
                self._live(ndjson, position, record)
            except (BrokenPipeError, ConnectionResetError, _Cut):
                pass

        def _opening(
            self, cursor: str | None, record: dict[str, Any]
        ) -> tuple[list[tuple[str, dict[str, Any], int | None]], int]:
            newest = site.log[-1][0] if site.log else 0
            if cursor is not None and cursor.isdigit() and site.oldest_kept - 1 <= int(cursor) <= newest:
                return [], int(cursor)
            first: list[tuple[str, dict[str, Any], int | None]] = []
            if cursor is not None:
                record["reset"] = True
                first.append(("reset", {}, None))
            first += [(kind, data, None) for kind, data in site.snapshot()]
            first.append(("synced", {}, newest))
            return first, newest

        def _live(self, ndjson: bool, position: int, record: dict[str, Any]) -> None:
            while True:
                with site.changed:
                    site.changed.wait_for(partial(_news, position), timeout=site.heartbeat)
                    if site.closing:
                        return
                    fresh = [entry for entry in site.log if entry[0] > position]
                if not fresh:
                    self.wfile.write(b"\n" if ndjson else b": ping\n\n")
                    self.wfile.flush()
                for event_id, kind, data in fresh:
                    self._send(ndjson, kind, data, event_id, record)
                    position = event_id

        def _send(
            self, ndjson: bool, kind: str, data: dict[str, Any], event_id: int | None, record: dict[str, Any]
        ) -> None:
            if ndjson:
                line = {"event": kind, "data": data} | ({} if event_id is None else {"id": event_id})
                raw = json.dumps(line).encode() + b"\n"
            else:
                head = "" if event_id is None else f"id: {event_id}\r\n"
                # Data split over two lines at a comma, as a server is free to do.
                text = json.dumps(data).replace(", ", ",\r\ndata: ", 1)
                raw = f"{head}event: {kind}\r\ndata: {text}\r\n\r\n".encode()
            self.wfile.write(raw)
            self.wfile.flush()
            if event_id is not None:
                record["ids"].append(event_id)
            with site.changed:
                cut = site.cuts.random() < site.faults.cut
            if cut:
                self.connection.shutdown(socket.SHUT_RDWR)
                raise _Cut

        def _stay_silent(self) -> None:
            with site.changed:
                site.changed.wait_for(lambda: site.closing, timeout=60)

    def _news(position: int) -> bool:
        return site.closing or (bool(site.log) and site.log[-1][0] > position)

    return Handler


class _Cut(Exception):
    """The site cut the stream on purpose."""
