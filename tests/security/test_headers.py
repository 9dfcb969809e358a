"""Secure headers on real responses, pages and API alike, and pages the Content-Security-Policy
can hold to the site's own files: no inline script, style or event handler in any of them."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

PAGES = [
    ("/", None),
    ("/", "alice"),
    ("/accounts/login/", None),
    ("/accounts/signup/", None),
    ("/accounts/profile/", "alice"),
    ("/accounts/password_reset/", None),
    ("/games/{active}/", "alice"),
    ("/games/{active}/", "charlie"),
    ("/games/{active}/history/", "bob"),
    ("/games/{finished}/", "alice"),
    ("/games/{challenge}/", "bob"),
    ("/invite/{invite}/", "bob"),
    ("/unsubscribe/{alice_unsubscribe}/", None),
    ("/api/docs/", None),
]
API = ["/api/health/", "/api/games/{active}/", "/api/schema/", "/api/docs/?script="]


def _assert_secure_headers(response) -> None:
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    policy = dict(directive.split(" ", 1) for directive in response["Content-Security-Policy"].split("; "))
    assert policy["default-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'"
    assert "unsafe" not in response["Content-Security-Policy"]  # no unsafe-inline, no unsafe-eval


@pytest.mark.parametrize(("url", "who"), PAGES)
def test_every_page_carries_the_secure_headers(world, url, who):
    response = world.browser(who).get(url.format(**world.places()))

    assert response.status_code == 200
    _assert_secure_headers(response)


@pytest.mark.parametrize("url", API)
def test_every_api_response_carries_the_secure_headers(world, url):
    response = world.api("alice").get(url.format(**world.places()))

    assert response.status_code == 200
    _assert_secure_headers(response)


def test_an_api_error_carries_them_too(world):
    response = world.api(None).get(f"/api/games/{world.active.pk}/")

    assert response.status_code == 401
    _assert_secure_headers(response)


class InlineCode(HTMLParser):
    """What a strict Content-Security-Policy would refuse in a page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "style":
            self.found.append("a <style> element")
        if tag == "script" and "src" not in a and a.get("type") != "application/json":
            self._script = True
        for name, value in attrs:
            if name.startswith("on") or name == "style" or name.startswith("hx-on"):
                self.found.append(f"{name}= on <{tag}>")
            if (value or "").strip().lower().startswith("javascript:"):
                self.found.append(f"a javascript: URL in <{tag} {name}>")

    def handle_data(self, data: str) -> None:
        if self._script and data.strip():
            self.found.append(f"an inline script: {data.strip()[:60]}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script = False


@pytest.mark.parametrize(("url", "who"), PAGES)
def test_no_page_has_inline_script_style_or_handler(world, url, who):
    html = world.browser(who).get(url.format(**world.places())).content.decode()
    parser = InlineCode()

    parser.feed(html)

    assert parser.found == []


def test_the_inline_code_finder_finds_inline_code():
    parser = InlineCode()

    parser.feed('<p style="x" onclick="y()"><a href="javascript:z()">a</a></p><script>go()</script>')

    assert len(parser.found) == 4
