"""A live stream read as a program reads one: an HTTP connection, parsed line by line as
Server-Sent Events (the WHATWG grammar: fields, comments, multi-line data, a blank line ends
an event) or as newline-delimited JSON."""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Received:
    event: str
    data: dict[str, Any]
    id: int | None = None
    at: float = 0.0  # time.monotonic() when it arrived


@dataclass
class StreamReader:
    """One open stream. ``next_event`` returns the next event (heartbeats are counted, not
    returned), or raises TimeoutError if nothing comes within ``timeout`` seconds."""

    url: str
    headers: dict[str, str]
    form: str = "sse"
    timeout: float = 10.0
    heartbeats: int = 0
    status: int = 0
    content_type: str = ""
    closed: bool = False
    body: bytes = b""
    _connection: http.client.HTTPConnection | None = field(default=None, repr=False)
    _response: http.client.HTTPResponse | None = field(default=None, repr=False)

    def open(self) -> StreamReader:
        parts = urllib.parse.urlsplit(self.url)
        self._connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=self.timeout)
        accept = "application/x-ndjson" if self.form == "ndjson" else "text/event-stream"
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        self._connection.request("GET", path, headers={"Accept": accept, **self.headers})
        self._response = self._connection.getresponse()
        self.status = self._response.status
        self.content_type = self._response.getheader("Content-Type") or ""
        if self.status != 200:
            self.body = self._response.read()
            self.close()
        return self

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
        self.closed = True

    def read_line(self) -> str | None:
        assert self._response is not None
        raw = self._response.readline()
        if not raw:
            return None  # the server ended the stream
        return raw.decode().rstrip("\r\n")

    def next_event(self) -> Received | None:
        """The next event, or None once the server has closed the stream."""
        return self._next_ndjson() if self.form == "ndjson" else self._next_sse()

    def _next_sse(self) -> Received | None:
        fields: dict[str, str] = {}
        data: list[str] = []
        comment = False
        while True:
            line = self.read_line()
            if line is None:
                return None
            if line == "":
                if data:
                    return Received(
                        fields.get("event", "message"),
                        json.loads("\n".join(data)),
                        int(fields["id"]) if "id" in fields else None,
                        time.monotonic(),
                    )
                if comment:
                    self.heartbeats += 1
                fields, comment = {}, False
                continue
            if line.startswith(":"):
                comment = True
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            else:
                fields[name] = value

    def _next_ndjson(self) -> Received | None:
        while True:
            line = self.read_line()
            if line is None:
                return None
            if not line.strip():
                self.heartbeats += 1
                continue
            item = json.loads(line)
            return Received(item["event"], item["data"], item.get("id"), time.monotonic())

    def until(self, kind: str, limit: int = 200) -> list[Received]:
        """Events up to and including the next ``kind``."""
        seen: list[Received] = []
        for _ in range(limit):
            event = self.next_event()
            if event is None:
                raise AssertionError(f"the stream ended before a {kind}: {[e.event for e in seen]}")
            seen.append(event)
            if event.event == kind:
                return seen
        raise AssertionError(f"no {kind} in {limit} events")
