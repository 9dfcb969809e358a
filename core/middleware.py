"""django-csp's middleware with its policy built once a process instead of once a response,
behaving as the library's (tests/security/test_csp_header_cache.py compares them). Then the
site's own: the pages' answer to a lost database, and the checks on request bodies."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.utils import build_policy
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.template import loader

from core import api_errors
from core.errors import database_unavailable

log = logging.getLogger(__name__)

# django-csp leaves these answers without a policy when DEBUG is on, so that Django's debug
# pages (inline style and script) show; so does this.
_DEBUG_PAGES = (404, 500)


def _policies() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(header, policy, path prefixes it skips) for each policy the settings configure: the
    strings django-csp builds from settings.CONTENT_SECURITY_POLICY and _REPORT_ONLY with its
    own public ``build_policy``."""
    policies = []
    for header, setting, report_only in (
        (HEADER, "CONTENT_SECURITY_POLICY", False),
        (HEADER_REPORT_ONLY, "CONTENT_SECURITY_POLICY_REPORT_ONLY", True),
    ):
        if policy := build_policy(report_only=report_only):
            config = getattr(settings, setting, None) or {}
            policies.append((header, policy, tuple(config.get("EXCLUDE_URL_PREFIXES") or ())))
    return tuple(policies)


class CSPMiddleware:
    """The Content-Security-Policy header (and the report-only one, if configured) that
    django-csp's middleware sets, as one string built when Django builds the middleware.

    django-csp builds the policy anew for every response, twice (the policy and the
    report-only one), through ``dataclasses.asdict``, so that a view's decorator
    (``csp_update``…) or a template's nonce can change it. No view or template here uses
    either (tests/security/test_csp_header_cache.py fails on one), so every response gets the
    same string: the one django-csp's ``build_policy`` makes of the settings, set as django-csp
    sets it (not over a header the view set, not on an excluded path, not on the debug pages).
    The same test compares the headers with django-csp's own middleware's. To use decorators
    or nonces, put ``csp.middleware.CSPMiddleware`` back in settings.MIDDLEWARE."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        self.policies = _policies()

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if response.status_code in _DEBUG_PAGES and settings.DEBUG:
            return response
        for header, policy, excluded in self.policies:
            if header not in response and not request.path_info.startswith(excluded):
                response[header] = policy
        return response


class DatabaseUnavailableMiddleware:
    """Pages whose database connection broke (a restart, a failover) answer 503 with a page
    that asks to reload, as the API answers 503 with its JSON error (api_errors), instead of
    the server error page; the error is logged the same way."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not database_unavailable(exception) or request.path.startswith("/api/"):
            return None
        log.error("database_unavailable: %s", exception, exc_info=exception)
        # No request given to the template: its context processors would read the database.
        response = HttpResponse(loader.render_to_string("503.html"), status=503)
        response["Retry-After"] = "5"
        return response


# Bodies up to this length are read to their end even when the answer needs none of it: enough
# for any client that sends a large body by mistake to get its answer. Past it, reading on
# would let one request hold a worker for as long as its client keeps sending; the answer goes
# out unread and the server closes the connection on the rest.
DRAIN_MAX_BYTES = 8 * 1024 * 1024
_CHUNK = 64 * 1024


def _content_length(request: HttpRequest) -> int:
    try:  # as Django reads it: a missing or broken length is no body
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def _chunked(request: HttpRequest) -> bool:
    return "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()


class RequestBodyMiddleware:
    """Every request's body within settings.REQUEST_BODY_MAX_BYTES (but the inbound mail
    webhook's, whole emails), every API call's JSON; and every request's body read to its end
    before the answer goes out.

    Django checks the limit only when something reads the body, and DRF lets the error through
    to Django's HTML 400 page. Here a longer Content-Length on /api/ gets the API's JSON 413
    (``body_too_large``) at once, before authentication, so no view reads any of it; a body
    without a length (chunked), which WSGI gives Django no way to read, gets 411.

    The views that read a body (``reads_body``: the methods whose handler parses it) refuse a
    malformed one themselves, after the errors the documented order puts first. Every other
    call ignores its body's fields, but a body sent there must still be a JSON object: broken
    JSON gets the same 400 or 415 it would get where it is read, rather than the call going
    through as if the client had no bug.

    gunicorn's sync workers close the connection after each answer. A client still sending
    then writes into a closed socket, the kernel resets the connection, and the client sees a
    broken pipe instead of the answer; so whatever the request left unread is read and dropped
    first, up to DRAIN_MAX_BYTES (a chunked body too, where the server's stream tells where it
    ends, as gunicorn's does)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        refused = self._refused(request)
        response = refused if refused is not None else self.get_response(request)
        try:
            if _chunked(request):
                # Django reads none of it (WSGI gives no length); the server's own stream
                # can be read to its end where the server says it ends.
                environ = getattr(request, "environ", {})
                if environ.get("wsgi.input_terminated"):
                    read = 0
                    while read <= DRAIN_MAX_BYTES and (chunk := environ["wsgi.input"].read(_CHUNK)):
                        read += len(chunk)
            elif 0 < _content_length(request) <= DRAIN_MAX_BYTES:
                while request.read(_CHUNK):
                    pass
        except OSError:  # the client went away: nothing left to answer
            pass
        return response

    def _refused(self, request: HttpRequest) -> HttpResponse | None:
        if request.path.startswith(settings.INBOUND_WEBHOOK_PREFIX):
            return None  # whole emails: Django's DATA_UPLOAD_MAX_MEMORY_SIZE bounds them
        if not request.path.startswith("/api/"):
            if _content_length(request) > settings.REQUEST_BODY_MAX_BYTES:
                return HttpResponse("Request body too large.", status=413, content_type="text/plain")
            return None
        if _chunked(request):
            return api_errors.error_response(api_errors.length_required())
        if _content_length(request) > settings.REQUEST_BODY_MAX_BYTES:
            return api_errors.error_response(api_errors.body_too_large())
        return None

    def process_view(
        self, request: HttpRequest, view: Callable[..., HttpResponseBase], args: Any, kwargs: Any
    ) -> HttpResponse | None:
        if not request.path.startswith("/api/") or not _content_length(request):
            return None
        if request.method in getattr(getattr(view, "cls", None), "reads_body", ()):
            return None
        return api_errors.malformed_body(request)
