"""The ASGI application: the live streams' service (docs/deploy.md), gunicorn with uvicorn
workers. Pages and the rest of the API are the WSGI application's (wsgi.py), though this one
serves them too.

Django runs each request's synchronous parts (its middleware, a DRF view) in a thread of that
request's own (asgiref's ThreadSensitiveContext), which lives as long as the request, and with
it that thread's database connection: a stream open for hours would hold both. A stream's
synchronous part is short (who is asking, which stream), so streams run theirs on the
process's one shared thread instead, and wait on the event loop (games/streams.py): an idle
stream holds neither a thread nor a connection.
"""

import os
import re
from typing import Any

from django.core.handlers.asgi import ASGIHandler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dragonheart_site.settings")

STREAMS = re.compile(r"^/api/(stream|games/[^/]+/stream)/$")


class Handler(ASGIHandler):
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and STREAMS.match(scope.get("path", "")):
            await self.handle(scope, receive, send)  # no thread of its own: see above
        else:
            await super().__call__(scope, receive, send)


def _application() -> Handler:
    import django

    django.setup(set_prefix=False)
    return Handler()


application = _application()
