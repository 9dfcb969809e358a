"""The CSP header built once is the library's own policy, and a response that a django-csp
decorator changed still gets the library's per-response policy."""

from __future__ import annotations

from csp.constants import HEADER
from csp.utils import build_policy
from django.http import HttpResponse
from django.test import RequestFactory

from core.middleware import CSPMiddleware


def _through_middleware(response: HttpResponse) -> HttpResponse:
    middleware = CSPMiddleware(lambda request: response)
    request = RequestFactory().get("/")
    middleware.process_request(request)
    return middleware.process_response(request, response)  # type: ignore[return-value]


def test_the_header_is_the_policy_the_library_builds():
    response = _through_middleware(HttpResponse())

    assert response[HEADER] == build_policy()
    assert "default-src 'self'" in response[HEADER]


def test_a_response_changed_by_a_decorator_gets_its_own_policy():
    changed = HttpResponse()
    changed._csp_update = {"img-src": ["https://example.org"]}  # type: ignore[attr-defined]

    response = _through_middleware(changed)

    assert "https://example.org" in response[HEADER]
    assert response[HEADER] != build_policy()
