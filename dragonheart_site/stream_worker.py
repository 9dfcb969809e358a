"""The stream service's gunicorn worker: uvicorn's (an event loop serving dragonheart_site.asgi,
where an idle stream holds no thread), which also ends its open streams the moment it is told
to stop.

uvicorn stops gracefully by waiting for every response in flight to finish, and a stream never
finishes by itself: the worker would hold its streams until gunicorn's graceful timeout, then be
killed, cutting them mid-chunk. gunicorn tells a worker to stop only after the node's drain
(gunicorn.conf.py), when the load balancer has taken the node out and the node has stopped
listening; so here the streams end at once and cleanly (core.live.Hub.end_streams), and
their clients reconnect with their cursor to a node that stays. docs/deploy.md, "The stream
service".

    gunicorn dragonheart_site.asgi --worker-class=dragonheart_site.stream_worker.StreamWorker
"""

from __future__ import annotations

import socket
import sys
import threading

from gunicorn.arbiter import Arbiter
from uvicorn.server import Server
from uvicorn_worker import UvicornWorker  # type: ignore[import-untyped]  # ships no types

from core.live import hub


class _Server(Server):
    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # Before uvicorn waits for the responses in flight: the streams among them end now, on
        # this loop. From a thread of its own, since end_streams waits for them to go.
        threading.Thread(target=hub.end_streams, name="end-streams", daemon=True).start()
        await super().shutdown(sockets)


class StreamWorker(UvicornWorker):  # type: ignore[misc]  # UvicornWorker is untyped
    async def _serve(self) -> None:
        # UvicornWorker._serve (uvicorn-worker 0.4.0, pinned), with the server above.
        self.config.app = self.wsgi
        server = _Server(config=self.config)
        self._install_sigquit_handler()
        await server.serve(sockets=self.sockets)
        if not server.started:
            sys.exit(Arbiter.WORKER_BOOT_ERROR)
