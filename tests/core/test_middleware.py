"""The site's leaner LocaleMiddleware and MessageMiddleware do what Django's own do: each
request is sent through both and the outcomes compared."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.contrib import messages
from django.contrib.messages.middleware import MessageMiddleware as DjangoMessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponse
from django.middleware.locale import LocaleMiddleware as DjangoLocaleMiddleware
from django.test import RequestFactory
from django.utils import translation

from core.middleware import LocaleMiddleware, MessageMiddleware

ACCEPT = ["", "de", "fr-CH,fr;q=0.9", "uk,en;q=0.5", "ja", "es-AR", "*", "pt-BR,de;q=0.1", "garbage;;q="]


def _locale_outcome(middleware_class: type, path: str, accept: str, cookie: str | None) -> tuple[Any, ...]:
    factory = RequestFactory()
    if cookie is not None:
        factory.cookies[settings.LANGUAGE_COOKIE_NAME] = cookie
    request = factory.get(path, HTTP_ACCEPT_LANGUAGE=accept)
    middleware = middleware_class(lambda r: HttpResponse(translation.gettext("Your turn")))
    with translation.override(None):
        response = middleware(request)
        active = translation.get_language()
    return request.LANGUAGE_CODE, active, response.get("Vary"), response.get("Content-Language")


@pytest.mark.parametrize("cookie", [None, "fr", "de", "xx"])
@pytest.mark.parametrize("accept", ACCEPT)
@pytest.mark.parametrize("path", ["/", "/api/games/abc/", "/de/games/abc/"])
def test_the_language_chosen_and_announced_is_djangos(path, accept, cookie):
    ours = _locale_outcome(LocaleMiddleware, path, accept, cookie)

    assert ours == _locale_outcome(DjangoLocaleMiddleware, path, accept, cookie)
    assert ours[2] == "Accept-Language"


def test_a_german_browser_gets_german():
    assert _locale_outcome(LocaleMiddleware, "/", "de", None)[:2] == ("de", "de")


def _through_messages(
    middleware_class: type, view: Callable[[HttpRequest], HttpResponse], cookie: str = ""
) -> Any:
    request = RequestFactory().get("/")
    if cookie:
        request.COOKIES["messages"] = cookie
    SessionMiddleware(lambda r: HttpResponse()).process_request(request)
    return middleware_class(view)(request)


def _adds(request: HttpRequest) -> HttpResponse:
    messages.success(request, "Your preferences are saved.")
    return HttpResponse()


def _shows(request: HttpRequest) -> HttpResponse:
    return HttpResponse(" | ".join(str(m) for m in messages.get_messages(request)))


def _ignores(request: HttpRequest) -> HttpResponse:
    return HttpResponse("no messages here")


@pytest.mark.parametrize("view", [_adds, _shows, _ignores])
def test_messages_are_stored_and_read_as_django_does(view):
    stored = _through_messages(DjangoMessageMiddleware, _adds).cookies["messages"].value

    for cookie in ("", stored):
        ours = _through_messages(MessageMiddleware, view, cookie)
        theirs = _through_messages(DjangoMessageMiddleware, view, cookie)
        assert ours.content == theirs.content
        assert {k: v.value for k, v in ours.cookies.items()} == {
            k: v.value for k, v in theirs.cookies.items()
        }


def test_a_message_added_reaches_the_next_page():
    stored = _through_messages(MessageMiddleware, _adds).cookies["messages"].value

    assert _through_messages(MessageMiddleware, _shows, stored).content == b"Your preferences are saved."


def test_a_request_that_never_touches_messages_never_builds_their_storage(monkeypatch):
    built: list[HttpRequest] = []
    monkeypatch.setattr("core.middleware.default_storage", lambda request: built.append(request))

    _through_messages(MessageMiddleware, _ignores)

    assert built == []
