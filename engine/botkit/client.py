"""The site's API over HTTP, standard library only: JSON requests with the account's token,
retried through network errors, 429s and server errors; and the account stream.

Every request opens a connection of its own: a bot makes a few requests a turn, and a fresh
connection is never one the server or a proxy has silently dropped."""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import random
import socket
import ssl
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from engine.botkit.stream import SSE, LineSplitter, MalformedEvent, StreamEvent, parser_for

LOG = logging.getLogger("engine.botkit")
USER_AGENT = "dragonheart-botkit/1"
# Heartbeats come every 15 s at the latest: twice that in silence means the connection is gone.
READ_TIMEOUT = 30.0

# Waits ``seconds`` unless the kit is stopped first; returns True when it was stopped.
Waiter = Callable[[float], bool]


class NetworkError(Exception):
    """The request or its answer was lost on the way: retry it."""


class Stopped(Exception):
    """The kit was asked to stop while it waited to retry."""


class StreamRefused(Exception):
    """The server will not open the stream for this token (401, 403, 404): retrying cannot
    help, the operator must."""


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: Mapping[str, str]
    body: Any  # the JSON, or None for an empty or non-JSON body

    @property
    def code(self) -> str | None:
        """The API's error code (``{"code", "detail"}``), if the body has one."""
        return self.body.get("code") if isinstance(self.body, dict) else None

    def retry_after(self, default: float) -> float:
        """Seconds to wait before the retry, from the ``Retry-After`` header (whole seconds)
        or else the body's ``retry_after``."""
        for value in (self.headers.get("retry-after"), _body_retry_after(self.body)):
            if isinstance(value, str | int | float):
                try:
                    return max(0.0, float(value))
                except ValueError:
                    continue  # an HTTP date: the next source, else the default
        return default


def _body_retry_after(body: Any) -> Any:
    return body.get("retry_after") if isinstance(body, dict) else None


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential backoff with jitter: ``first`` seconds, doubling up to ``cap``."""

    first: float = 0.5
    cap: float = 60.0

    def delay(self, failures: int, rng: random.Random) -> float:
        ceiling = min(self.cap, self.first * 2.0 ** min(failures, 20))
        return ceiling / 2 + rng.uniform(0, ceiling / 2)


class Api:
    def __init__(
        self,
        server: str,
        token: str,
        *,
        timeout: float = READ_TIMEOUT,
        backoff: Backoff | None = None,
        waiter: Waiter | None = None,
        rng: random.Random | None = None,
    ) -> None:
        parts = urlsplit(server.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"a server is an http:// or https:// address, not {server!r}")
        self.tls = ssl.create_default_context() if parts.scheme == "https" else None
        self.host = parts.hostname
        self.port = parts.port
        self.prefix = parts.path  # a site served under a path
        self.token = token
        self.timeout = timeout
        self.backoff = backoff or Backoff()
        self.stopped = threading.Event()
        self.wait: Waiter = waiter or self.stopped.wait
        # Jitter only: nothing a player could learn from.
        self.rng = rng or random.Random()

    # --- one request ---------------------------------------------------------------------

    def connection(self) -> http.client.HTTPConnection:
        """A new connection whose every read waits at most ``timeout`` seconds."""
        if self.tls is not None:
            return http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout, context=self.tls)
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def headers(self, extra: Mapping[str, str] = {}) -> dict[str, str]:
        return {
            "Authorization": f"Token {self.token}",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
            **extra,
        }

    def request(self, method: str, path: str, body: Any = None, headers: Mapping[str, str] = {}) -> Answer:
        """One request and its whole answer, whatever its status; NetworkError if either was
        lost (a refused connection, a reset, a timeout, an answer cut short)."""
        payload = None if body is None else json.dumps(body).encode()
        extra = dict(headers)
        if payload is not None:
            extra["Content-Type"] = "application/json"
        conn = self.connection()
        try:
            conn.request(method, self.prefix + path, body=payload, headers=self.headers(extra))
            response = conn.getresponse()
            raw = response.read()
            return Answer(response.status, _lowered(response.getheaders()), _json(raw))
        except (OSError, http.client.HTTPException) as exc:
            raise NetworkError(f"{method} {path}: {exc!r}") from exc
        finally:
            conn.close()

    # --- retried -------------------------------------------------------------------------

    def call(self, method: str, path: str, body: Any = None, headers: Mapping[str, str] = {}) -> Answer:
        """``request``, sent again (the same body and headers: a play's Idempotency-Key with
        it) after a network error, a 429 (after its Retry-After) or a server error (5xx: a
        node restarting, a proxy in between, a database that failed over), until it gets any
        other answer or the kit stops (Stopped). Every call of the kit is safe to repeat: a
        GET, an accept or decline (409 once done), a play under its key."""
        failures = 0
        while True:
            try:
                answer = self.request(method, path, body, headers)
            except NetworkError as exc:
                LOG.info("%s; sending it again", exc)
                delay = self.backoff.delay(failures, self.rng)
            else:
                if answer.status != 429 and answer.status < 500:
                    return answer
                delay = answer.retry_after(default=self.backoff.delay(failures, self.rng))
                LOG.info("%s %s answered %s; again in %.1f s", method, path, answer.status, delay)
            failures += 1
            if self.wait(delay):
                raise Stopped

    def get(self, path: str, **query: Any) -> Answer:
        return self.call("GET", f"{path}?{urlencode(query)}" if query else path)

    def post(self, path: str, body: Any = None, headers: Mapping[str, str] = {}) -> Answer:
        return self.call("POST", path, body, headers)

    # --- the account stream --------------------------------------------------------------

    def open_stream(self, cursor: str | None, accept: str = SSE) -> Stream:
        """The account stream, resumed after ``cursor`` (None: from a snapshot). Raises
        NetworkError when the connection fails, StreamRefused when the token may not read it
        and StreamBusy for any other answer than 200 (a 429, a server error)."""
        conn = self.connection()
        extra = {"Accept": accept, "Cache-Control": "no-cache"}
        if cursor is not None:
            extra["Last-Event-ID"] = cursor
        try:
            conn.request("GET", self.prefix + "/api/stream/", headers=self.headers(extra))
            sock = conn.sock  # kept: the response takes the connection over
            response = conn.getresponse()
            if response.status != 200:
                answer = Answer(response.status, _lowered(response.getheaders()), _json(response.read()))
                conn.close()
                if answer.status in (401, 403, 404):
                    raise StreamRefused(f"the stream answered {answer.status}: {answer.body!r}")
                raise StreamBusy(answer)
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise NetworkError(f"GET /api/stream/: {exc!r}") from exc
        return Stream(conn, sock, response)


class StreamBusy(Exception):
    """The stream answered a 429 or a server error: wait, then reconnect."""

    def __init__(self, answer: Answer) -> None:
        super().__init__(f"the stream answered {answer.status}")
        self.answer = answer


class Stream:
    """An open account stream. ``events`` yields each event as it arrives and ends when the
    server closes the stream; a silence longer than the read timeout raises NetworkError.
    ``interrupt`` may be called from another thread: it wakes a read that is waiting, which
    then ends as if the server had closed the stream."""

    def __init__(
        self, conn: http.client.HTTPConnection, sock: socket.socket | None, response: http.client.HTTPResponse
    ) -> None:
        self.conn = conn
        self.sock = sock
        self.response = response
        self.content_type = response.getheader("Content-Type") or SSE
        self.malformed = 0  # events skipped for data that is not a JSON object

    def events(self) -> Iterator[StreamEvent]:
        lines = LineSplitter()
        parser = parser_for(self.content_type)
        while True:
            try:
                chunk = self.response.read1(65536)
            except (OSError, http.client.HTTPException, ValueError) as exc:
                # ValueError: the response was closed under the read (close, from another thread).
                raise NetworkError(f"the stream broke: {exc!r}") from exc
            if not chunk:
                return
            for line in lines.feed(chunk):
                try:
                    event = parser.line(line)
                except MalformedEvent:
                    self.malformed += 1
                    continue
                if event is not None:
                    yield event

    def interrupt(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):  # already closed
                self.sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.interrupt()
        self.response.close()
        self.conn.close()

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _lowered(headers: list[tuple[str, str]]) -> dict[str, str]:
    return {name.lower(): value for name, value in headers}


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None
