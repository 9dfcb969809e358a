"""Every API error is ``{"code": "...", "detail": "..."}`` (validation errors add ``errors``)."""

from __future__ import annotations

import logging
from typing import Any

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from games.errors import GameError

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
    if isinstance(exc, GameError):
        return Response({"code": exc.code, "detail": exc.detail}, status=_GAME_ERROR_STATUS[exc.kind])
    if isinstance(exc, (OperationalError, InterfaceError)):
        return _unavailable(exc, "database_unavailable", "The database is unavailable; try again shortly.")
    if isinstance(exc, (RedisConnectionError, RedisTimeoutError)):  # the cache (tokens, throttles)
        return _unavailable(exc, "cache_unavailable", "The cache is unavailable; try again shortly.")
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


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """JSON for unknown API paths (ids the router's pattern refuses never reach DRF)."""
    if request.path.startswith("/api/"):
        return JsonResponse({"code": "not_found", "detail": "Not found."}, status=status.HTTP_404_NOT_FOUND)
    return defaults.page_not_found(request, exception)


_ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "code": {"type": "string"},
        "detail": {"type": "string"},
        "errors": {"type": "object", "description": "Each invalid field's messages (validation errors)."},
    },
    "required": ["code", "detail"],
}


def document_error_responses(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular documents only successes; add the error responses every call can give,
    and the Error body to the ones a view declares itself (``OpenApiResponse(description=…)``)."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = _ERROR_SCHEMA
    ref = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            codes = ["400", "401", "403", "429", "503"]
            if "{" in path:
                codes.append("404")
            if method in ("post", "put", "patch", "delete"):
                codes.append("409")
            for code in codes:
                responses.setdefault(code, {"description": "Error"})
            for parameter in operation.get("parameters", []):
                # The serializers that read query parameters take an empty one as absent.
                if parameter["in"] == "query" and not parameter.get("required"):
                    parameter["allowEmptyValue"] = True
            for code, response in responses.items():
                if code.startswith(("4", "5")) and "content" not in response:
                    response.update(ref)
    return result
