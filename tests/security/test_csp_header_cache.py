"""The CSP header built once (core.middleware.CSPMiddleware) is what django-csp's own middleware
sets, for the same settings, on every kind of response; and nothing in the site uses what
that header cannot follow: django-csp's decorators, which change one view's policy, and its
nonces."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from csp.constants import HEADER, HEADER_REPORT_ONLY, NONCE, NONE, SELF
from csp.middleware import CSPMiddleware as LibraryCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.test import RequestFactory, override_settings

from core.middleware import CSPMiddleware

ROOT = Path(__file__).resolve().parents[2]
SITE = settings.CONTENT_SECURITY_POLICY
REPORTING = {"DIRECTIVES": {"default-src": [SELF], "script-src": [SELF, "https://cdn.example"]}}
CONFIGS: dict[str, dict[str, Any]] = {
    "the site's": {},
    "with a report-only policy": {"CONTENT_SECURITY_POLICY_REPORT_ONLY": REPORTING},
    "report-only alone": {"CONTENT_SECURITY_POLICY": None, "CONTENT_SECURITY_POLICY_REPORT_ONLY": REPORTING},
    "none": {"CONTENT_SECURITY_POLICY": None},
    "excluding /api/": {
        "CONTENT_SECURITY_POLICY": {**SITE, "EXCLUDE_URL_PREFIXES": ["/api/"]},
        "CONTENT_SECURITY_POLICY_REPORT_ONLY": {**REPORTING, "EXCLUDE_URL_PREFIXES": ["/api/docs/"]},
    },
    "with a nonce directive and a report-uri": {
        "CONTENT_SECURITY_POLICY": {
            "DIRECTIVES": {"default-src": [SELF], "script-src": [SELF, NONCE], "report-uri": "/csp/"}
        }
    },
}
RESPONSES: dict[str, tuple[str, int, dict[str, str]]] = {
    "a page": ("/", 200, {}),
    "an API answer": ("/api/games/abc/", 200, {}),
    "the API docs": ("/api/docs/", 200, {}),
    "a redirect": ("/accounts/login/", 302, {}),
    "not found": ("/missing/", 404, {}),
    "a server error": ("/", 500, {}),
    "a policy the view set": ("/", 200, {HEADER: f"default-src {NONE}", HEADER_REPORT_ONLY: "img-src *"}),
}


def _headers(middleware_class: type, path: str, status: int, preset: dict[str, str]) -> dict[str, Any]:
    def view(request: HttpRequest) -> HttpResponse:
        return HttpResponse(status=status, headers=preset)

    response: HttpResponseBase = middleware_class(view)(RequestFactory().get(path))
    return {name: response.get(name) for name in (HEADER, HEADER_REPORT_ONLY)}


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
@pytest.mark.parametrize("answer", RESPONSES.values(), ids=RESPONSES.keys())
def test_the_headers_are_the_ones_django_csps_middleware_sets(debug, config, answer):
    with override_settings(DEBUG=debug, **config):
        ours = _headers(CSPMiddleware, *answer)

        assert ours == _headers(LibraryCSPMiddleware, *answer)


def test_the_header_is_the_sites_policy():
    headers = _headers(CSPMiddleware, "/", 200, {})

    assert headers == {HEADER: build_policy(), HEADER_REPORT_ONLY: None}
    assert "default-src 'self'" in headers[HEADER]


# What the one header cannot follow: a decorator that changes a view's policy, a nonce asked
# for in a template or a view, django-csp's template tags and context processor, and the
# private attributes the decorators set on a response.
_PER_RESPONSE = re.compile(
    r"@csp_(exempt|update|replace)\b|\bcsp_(exempt|update|replace)\s*\("
    r"|csp\.(decorators|context_processors)|csp_nonce|\{%\s*load\s+csp\b"
    r"|\._csp_\w+"
)
_SOURCES = ("accounts", "core", "engine", "games", "notifications", "outbox", "dragonheart_site", "templates")


def _uses(pattern: re.Pattern[str]) -> list[str]:
    found = []
    for package in _SOURCES:
        for path in sorted((ROOT / package).rglob("*")):
            if path.suffix in (".py", ".html", ".txt") and pattern.search(path.read_text()):
                found.append(str(path.relative_to(ROOT)))
    return found


def test_nothing_asks_for_a_policy_of_its_own_or_a_nonce():
    assert _uses(_PER_RESPONSE) == [], (
        "core.middleware.CSPMiddleware sets one policy for every response and follows no "
        "django-csp decorator or nonce: use csp.middleware.CSPMiddleware in settings.MIDDLEWARE"
    )


def _directive_values(config: dict[str, Any] | None) -> list[Any]:
    return [v for values in ((config or {}).get("DIRECTIVES") or {}).values() for v in values or ()]


@pytest.mark.parametrize("setting", ["CONTENT_SECURITY_POLICY", "CONTENT_SECURITY_POLICY_REPORT_ONLY"])
def test_the_policies_hold_no_nonce(setting):
    # django-csp would fill a nonce in when a page asked for one; the header built once drops it.
    assert NONCE not in _directive_values(getattr(settings, setting, None))


def test_the_policy_is_built_once_not_per_response(monkeypatch):
    middleware = CSPMiddleware(lambda request: HttpResponse())
    monkeypatch.setattr("core.middleware.build_policy", lambda **kw: pytest.fail("built again"))

    for _ in range(3):
        assert middleware(RequestFactory().get("/"))[HEADER]
