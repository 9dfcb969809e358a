"""A TCP proxy that can go silent without closing anything, for the relay's tests."""

from __future__ import annotations

import socket
import threading


class FreezingProxy:
    """A TCP proxy to PostgreSQL whose connections can go silent without closing: what a
    client sees when the server's host vanishes (or freezes) without a word. The kernel on
    this side still acknowledges everything, so no TCP timeout can tell."""

    def __init__(self, port: int) -> None:
        self.target = ("127.0.0.1", port)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.server.getsockname()[1]
        self.frozen: list[threading.Event] = []
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:  # closed
                return
            upstream = socket.create_connection(self.target)
            frozen = threading.Event()
            self.frozen.append(frozen)
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink, frozen), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket, frozen: threading.Event) -> None:
        source.settimeout(0.05)
        while not frozen.is_set():
            try:
                data = source.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            if not data or frozen.is_set():
                return
            sink.sendall(data)

    def freeze(self) -> None:
        """Silence every connection made so far; later ones are served."""
        for frozen in self.frozen:
            frozen.set()

    def close(self) -> None:
        self.server.close()
        for sock in self.sockets:
            sock.close()
