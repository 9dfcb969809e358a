"""An SMTP server in a thread of the test process, for workers that run in other processes.

It keeps every message it accepted, that is, answered the end of its data with 250: what a
real server would deliver. It can also hold the first message at one point, to catch the
sending worker there:

* ``"data"``: the whole message is read but not yet accepted. If the client goes away now,
  the message is dropped, as a real server drops an unfinished transaction.
* ``"quit"``: the message is accepted; the server then never answers the client's QUIT, so
  the worker has a delivered email it has not yet recorded as sent.
"""

from __future__ import annotations

import email
import email.policy
import select
import socket
import socketserver
import threading
from email.message import EmailMessage
from typing import Any, Literal

Stage = Literal["data", "quit"]


class SmtpSink:
    def __init__(self) -> None:
        self.accepted: list[EmailMessage] = []
        self.dropped = 0  # messages whose sender went away before the server accepted them
        self.held = threading.Event()  # set once a held client is waiting
        self._hold: Stage | None = None
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Session)
        self._server.daemon_threads = True
        self._server.sink = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def hold_first(self, stage: Stage) -> None:
        self._hold = stage

    def start(self) -> SmtpSink:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

    def to(self, address: str) -> list[EmailMessage]:
        with self._lock:
            return [m for m in self.accepted if m["To"] == address]

    def _take_hold(self, stage: Stage) -> bool:
        with self._lock:
            if self._hold != stage:
                return False
            self._hold = None
        self.held.set()
        return True

    def _wait_until_gone(self, conn: socket.socket) -> None:
        """Answer nothing until the client closes the connection (or the test ends)."""
        while not self._closing.is_set():
            readable, _, _ = select.select([conn], [], [], 0.05)
            if readable and not conn.recv(1, socket.MSG_PEEK):
                return


class _Session(socketserver.StreamRequestHandler):
    """Just enough SMTP for Django's backend: greeting, EHLO, MAIL, RCPT, DATA, QUIT."""

    server: Any

    def handle(self) -> None:
        sink: SmtpSink = self.server.sink
        self.wfile.write(b"220 sink\r\n")
        while line := self.rfile.readline():
            verb = line[:4].upper()
            if verb == b"DATA":
                self.wfile.write(b"354 go on\r\n")
                message = self._read_message()
                if sink._take_hold("data"):
                    sink._wait_until_gone(self.connection)
                    with sink._lock:
                        sink.dropped += 1
                    return
                with sink._lock:
                    sink.accepted.append(message)
                self.wfile.write(b"250 accepted\r\n")
            elif verb == b"QUIT":
                if sink._take_hold("quit"):
                    sink._wait_until_gone(self.connection)
                    return
                self.wfile.write(b"221 bye\r\n")
                return
            else:  # EHLO, HELO, MAIL, RCPT, RSET, NOOP
                self.wfile.write(b"250 ok\r\n")

    def _read_message(self) -> EmailMessage:
        lines = []
        while (line := self.rfile.readline()) not in (b".\r\n", b""):
            lines.append(line[1:] if line.startswith(b"..") else line)  # undo dot-stuffing
        message = email.message_from_bytes(b"".join(lines), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        return message
