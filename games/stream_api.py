"""The live streams' endpoints: ``GET /api/stream/`` (the account's) and
``GET /api/games/{id}/stream/`` (a game's). Authentication, the token's ``read`` scope and
the errors are the API's own; the body is games/streams.py's, served by a coroutine under
ASGI (the streams' service: docs/deploy.md) and by a thread under WSGI (the embedded default)."""

from __future__ import annotations

from typing import Any

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponseBase, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.users import signed_in
from core.api_errors import ApiError
from core.renderers import JSONRenderer
from games import streams
from games.api import GAME_ID, get_game


class EventStreamRenderer(JSONRenderer):
    """Lets a client ask for ``text/event-stream``; the streams write their own bytes, and an
    error before the stream begins is answered as JSON (``finalize_response``)."""

    media_type = streams.SSE
    format = "sse"


class NdjsonRenderer(JSONRenderer):
    media_type = streams.NDJSON
    format = "ndjson"


CURSOR = OpenApiParameter(
    "Last-Event-ID",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="Resume after this event id (the last one received).",
)
AFTER = OpenApiParameter(
    "after", OpenApiTypes.STR, description="The same as Last-Event-ID, for clients that cannot set headers."
)
STREAM_ANSWER = {
    (200, streams.SSE): OpenApiResponse(
        OpenApiTypes.STR, description="Server-Sent Events (docs/bots-api.md)"
    ),
    (200, streams.NDJSON): OpenApiResponse(OpenApiTypes.STR, description="One JSON object per line"),
}


class StreamApi(APIView):
    renderer_classes = [JSONRenderer, EventStreamRenderer, NdjsonRenderer]

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(response, StreamingHttpResponse):  # an error: JSON, whatever was asked
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = "application/json"
        return super().finalize_response(request, response, *args, **kwargs)

    def respond(self, request: Request, stream: streams.Stream) -> HttpResponseBase:
        form = streams.NDJSON if streams.NDJSON in request.META.get("HTTP_ACCEPT", "") else streams.SSE
        body: Any
        if isinstance(request._request, ASGIRequest):
            body = streams.async_body(stream, form)
        elif request.META.get("wsgi.multithread"):
            body = streams.sync_body(stream, form)  # runserver: a thread of its own per request
        else:
            # A server whose every process answers one request at a time (gunicorn's sync
            # workers) would give that process to one stream for as long as it stays open.
            raise ApiError(
                status.HTTP_503_SERVICE_UNAVAILABLE,
                "stream_elsewhere",
                "Streams are served by the site's stream service, not by this server.",
            )
        response = StreamingHttpResponse(body, content_type=form)
        # Nothing between here and the client may keep or hold back a stream's bytes.
        response["Cache-Control"] = "no-cache, no-store"
        response["X-Accel-Buffering"] = "no"
        return response


def _given_cursor(request: Request) -> str | None:
    header = request.META.get("HTTP_LAST_EVENT_ID")
    return header if header is not None else request.query_params.get("after")


class AccountStreamApi(StreamApi):
    @extend_schema(
        parameters=[CURSOR, AFTER],
        responses=STREAM_ANSWER,
        summary="Your account's live events (challenges, starts, your turns, ends)",
    )
    def get(self, request: Request) -> HttpResponseBase:
        return self.respond(request, streams.AccountStream(signed_in(request), _given_cursor(request)))


class GameStreamApi(StreamApi):
    @extend_schema(
        parameters=[GAME_ID, CURSOR, AFTER],
        responses=STREAM_ANSWER,
        summary="A game's live events as you may see them",
    )
    def get(self, request: Request, game_id: str) -> HttpResponseBase:
        game = get_game(game_id)
        return self.respond(request, streams.GameStream(game, signed_in(request), _given_cursor(request)))
