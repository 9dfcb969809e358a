"""Every API error is ``{"code": "...", "detail": "..."}`` (validation errors add ``errors``,
a 429 ``retry_after``, the seconds its ``Retry-After`` header gives too)."""

from __future__ import annotations

import copy
import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView, set_rollback
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import ServiceError, database_unavailable
from core.renderers import JSONRenderer
from core.throttling import retry_after_seconds

log = logging.getLogger(__name__)


class ApiError(exceptions.APIException):
    """An error with its own status and stable code, raised from views and services."""

    def __init__(self, status_code: int, code: str, detail: str) -> None:
        super().__init__(detail=detail, code=code)
        self.status_code = status_code
        self.code = code


_GAME_ERROR_STATUS = {
    "invalid": status.HTTP_400_BAD_REQUEST,
    "forbidden": status.HTTP_403_FORBIDDEN,
    "not_found": status.HTTP_404_NOT_FOUND,
    "conflict": status.HTTP_409_CONFLICT,
}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        return Response({"code": exc.code, "detail": exc.detail}, status=_GAME_ERROR_STATUS[exc.kind])
    if database_unavailable(exc):
        return _unavailable(exc, "database_unavailable", "The database is unavailable; try again shortly.")
    if isinstance(exc, (RedisConnectionError, RedisTimeoutError)):  # a call that needs the cache
        return _unavailable(exc, "cache_unavailable", "The cache is unavailable; try again shortly.")
    if isinstance(exc, RequestDataTooBig):
        # RequestBodyMiddleware refuses these before a view runs; a body longer than its
        # Content-Length said would still end here, and gets the same answer.
        exc = body_too_large()
    if isinstance(exc, exceptions.Throttled):
        return throttled_response(getattr(exc, "wait", None))  # DRF sets it; its stubs omit it
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ApiError):
        response.data = {"code": exc.code, "detail": str(exc.detail)}
    elif isinstance(exc, exceptions.ValidationError):
        response.data = {"code": "invalid", "detail": _first_message(exc.detail), "errors": exc.detail}
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else "error"
        response.data = {"code": code, "detail": str(exc.detail)}
    return response


def throttled_body(seconds: int) -> dict[str, Any]:
    """The body of every 429 the API gives; ``seconds`` is its Retry-After header's too."""
    unit = "second" if seconds == 1 else "seconds"
    return {
        "code": "throttled",
        "detail": f"Too many requests: try again in {seconds} {unit}.",
        "retry_after": seconds,
    }


def throttled_response(wait: float | None) -> Response:
    """A 429 for a throttle that asks to wait ``wait`` seconds (None: it cannot tell)."""
    seconds = retry_after_seconds(wait)
    set_rollback()  # as DRF's own handler does for every error it answers
    return Response(
        throttled_body(seconds),
        status=status.HTTP_429_TOO_MANY_REQUESTS,
        headers={"Retry-After": str(seconds)},
    )


def _unavailable(exc: Exception, code: str, detail: str) -> Response:
    """A service's connection broke (a restart, a failover, a dropped connection). The
    request's transaction rolled back, unless the break cut off the answer to its COMMIT;
    either way a retry is safe: a play retried with the same Idempotency-Key is answered from
    the stored play if it went in. Django discards a broken database connection at the end of
    the request; redis-py reconnects by itself."""
    log.error("%s: %s", code, exc, exc_info=exc)
    return Response(
        {"code": code, "detail": detail},
        status=status.HTTP_503_SERVICE_UNAVAILABLE,
        headers={"Retry-After": "1"},
    )


def _first_message(detail: Any) -> str:
    if isinstance(detail, dict):
        for field, value in detail.items():
            message = _first_message(value)
            return message if field == "non_field_errors" else f"{field}: {message}"
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return str(detail)


def body_too_large() -> ApiError:
    limit = settings.REQUEST_BODY_MAX_BYTES
    return ApiError(
        status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        "body_too_large",
        f"The request body is over the {limit} bytes the API reads.",
    )


def length_required() -> ApiError:
    return ApiError(
        status.HTTP_411_LENGTH_REQUIRED,
        "length_required",
        "Send the body with a Content-Length header: the API reads no chunked body.",
    )


def error_response(exc: exceptions.APIException) -> HttpResponse:
    """What exception_handler answers ``exc`` with in a view, for the answers given before a
    view runs (core.middleware.RequestBodyMiddleware)."""
    response = exception_handler(exc, {})
    assert response is not None  # an APIException always gets one
    answer = HttpResponse(
        JSONRenderer().render(response.data), content_type="application/json", status=response.status_code
    )
    for header, value in response.items():  # Retry-After, WWW-Authenticate: part of the answer
        if header.lower() != "content-type":  # an unrendered Response's is a placeholder
            answer[header] = value
    return answer


def malformed_body(request: HttpRequest) -> HttpResponse | None:
    """The answer to a body that is no JSON object, given as the views that read one give it
    (DRF's parser and the serializers' words); None for one that is, or for no body."""
    # APIView.parser_classes: settings.REST_FRAMEWORK's, as every view parses with.
    parsed = Request(request, parsers=[parser() for parser in APIView.parser_classes])
    try:
        # A serializer without fields accepts any object and refuses anything else.
        serializers.Serializer(data=parsed.data).is_valid(raise_exception=True)
    except exceptions.APIException as exc:
        return error_response(exc)
    return None


def _api_or(request: HttpRequest, code: str, detail: str, code_status: int) -> HttpResponse | None:
    if request.path.startswith("/api/"):
        return JsonResponse({"code": code, "detail": detail}, status=code_status)
    return None


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """JSON for unknown API paths (ids the router's pattern refuses never reach DRF)."""
    answer = _api_or(request, "not_found", "Not found.", status.HTTP_404_NOT_FOUND)
    return answer or defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """JSON for what Django refuses itself before DRF (a suspicious request: a host not
    allowed, too many fields)."""
    answer = _api_or(request, "bad_request", "Bad request.", status.HTTP_400_BAD_REQUEST)
    return answer or defaults.bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """JSON for an API call that failed with a bug: never the HTML page to a program."""
    error = status.HTTP_500_INTERNAL_SERVER_ERROR
    answer = _api_or(request, "server_error", "A server error occurred.", error)
    return answer or defaults.server_error(request)


_ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "code": {"type": "string"},
        "detail": {"type": "string"},
        "errors": {"type": "object", "description": "Each invalid field's messages (validation errors)."},
    },
    "required": ["code", "detail"],
}
_THROTTLED_SCHEMA = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "enum": ["throttled"]},
        "detail": {"type": "string"},
        "retry_after": {
            "type": "integer",
            "minimum": 1,
            "description": "Seconds to wait before trying again: the Retry-After header's value.",
        },
    },
    "required": ["code", "detail", "retry_after"],
}
_THROTTLED = {
    "description": "Too many requests",
    "headers": {
        "Retry-After": {
            "required": True,
            "description": "Seconds to wait, the body's retry_after.",
            "schema": {"type": "integer", "minimum": 1},
        }
    },
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Throttled"}}},
}


def document_error_responses(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular documents only successes; add the error responses every call can give,
    and the Error body to the ones a view declares itself (``OpenApiResponse(description=…)``)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"], schemas["Throttled"] = _ERROR_SCHEMA, _THROTTLED_SCHEMA
    ref = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            # 411, 413 and 415: any call may carry a body, and a body is checked on every one
            # (core.middleware.RequestBodyMiddleware).
            codes = ["400", "401", "403", "411", "413", "415", "429", "503"]
            if "{" in path:
                codes.append("404")
            if method in ("post", "put", "patch", "delete"):
                codes.append("409")
            for code in codes:
                responses.setdefault(code, {"description": "Error"})
            responses["429"] = copy.deepcopy(_THROTTLED)  # shared, it would be a YAML alias
            for parameter in operation.get("parameters", []):
                # The serializers that read query parameters take an empty one as absent.
                if parameter["in"] == "query" and not parameter.get("required"):
                    parameter["allowEmptyValue"] = True
            for code, response in responses.items():
                if code.startswith(("4", "5")) and "content" not in response:
                    response.update(ref)
    return result
