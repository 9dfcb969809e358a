"""The account stream's two wire formats, parsed incrementally: Server-Sent Events (the
WHATWG grammar: fields, multi-line data, comments, any of CRLF, LF or CR ending a line) and
newline-delimited JSON. Bytes go in as they arrive; whole events come out."""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One event: ``id`` is the event's own (a logged event's cursor), None for the
    snapshot's events and ``reset``."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


class MalformedEvent(ValueError):
    """An event whose data is not a JSON object: skipped, never fatal."""


class LineSplitter:
    """Bytes in, text lines out. A CR at the end of one chunk may be the first half of a CRLF
    whose LF starts the next chunk: that LF is then no empty line of its own."""

    def __init__(self) -> None:
        # utf-8-sig: the SSE grammar drops a byte order mark at the start of the stream.
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        self._partial = ""
        self._after_cr = False

    def feed(self, chunk: bytes) -> list[str]:
        text = self._decoder.decode(chunk)
        if self._after_cr and text.startswith("\n"):
            text = text[1:]
        if text:
            self._after_cr = text.endswith("\r")
        lines = _LINE_BREAK.split(self._partial + text)
        self._partial = lines.pop()
        return lines


class Parser(Protocol):
    def line(self, line: str) -> StreamEvent | None: ...


class SseParser:
    """Lines of an SSE stream to events; an event is dispatched by the blank line after it."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._kind = ""
        self._data: list[str] = []
        self._id: str | None = None

    def line(self, line: str) -> StreamEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None  # a comment: the heartbeat
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._kind = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value or None
        # "retry" and unknown fields are ignored: the kit keeps its own backoff.
        return None

    def _dispatch(self) -> StreamEvent | None:
        kind, data, event_id = self._kind or "message", self._data, self._id
        self._reset()
        if not data:
            return None  # no data field: nothing to dispatch (the grammar's rule)
        return StreamEvent(kind, _object("\n".join(data)), event_id)


class NdjsonParser:
    """One JSON object a line, ``{"id", "event", "data"}``; an empty line is the heartbeat."""

    def line(self, line: str) -> StreamEvent | None:
        if not line.strip():
            return None
        entry = _object(line)
        kind = entry.get("event")
        if not isinstance(kind, str):
            raise MalformedEvent(f"an ndjson line without an event kind: {line[:80]!r}")
        data = entry.get("data", {})
        if not isinstance(data, dict):
            raise MalformedEvent(f"an event's data is not an object: {line[:80]!r}")
        event_id = entry.get("id")
        return StreamEvent(kind, data, None if event_id is None else str(event_id))


def _object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        raise MalformedEvent(f"data that is not JSON: {text[:80]!r}") from None
    if not isinstance(value, dict):
        raise MalformedEvent(f"data that is not a JSON object: {text[:80]!r}")
    return value


def parser_for(content_type: str) -> Parser:
    """The parser for a response's Content-Type (SSE unless it says ndjson)."""
    if content_type.split(";")[0].strip().lower() == NDJSON:
        return NdjsonParser()
    return SseParser()
