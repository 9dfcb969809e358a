"""Every form the pages render is refused without its CSRF token and accepted with the token
the page gave; the API asks for the token only of a browser session, never of a personal token."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.urls import resolve
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from rest_framework.test import APIClient

from games.models import Game
from tests.support.world import PASSWORD, World, changed_tables, routes, snapshot

NEW_PASSWORD = "another-dragon-77"
LEGAL = "alice's first legal play"

# page, who looks at it, the route its form posts to, what a person fills in, the answer
# fmt: off
FORMS = [
    ("/", "alice", "home", {"against": "open"}, 302),                      # create a game
    ("/", "alice", "game-cancel", {}, 302),
    ("/", "alice", "logout", {}, 302),
    ("/", "alice", "set_language", {"language": "de"}, 302),
    ("/", "bob", "game-accept", {}, 302),
    ("/", "bob", "game-decline", {}, 302),
    ("/games/{active}/", "alice", "game-play", LEGAL, 302),
    ("/games/{active}/", "alice", "game-resign", {}, 302),
    ("/games/{active}/", "alice", "game-notes", {"text": "x"}, 302),   # the player's own notes
    ("/games/{challenge}/", "bob", "game-accept", {}, 302),
    ("/games/{finished}/", "alice", "game-rematch", {}, 302),
    ("/invite/{invite}/", "bob", "invite", {}, 302),
    ("/accounts/profile/", "alice", "profile", {"email_mode": "digest"}, 302),  # preferences
    ("/accounts/profile/", "alice", "vacation-start", {"days": "3"}, 302),
    ("/accounts/profile/", "alice", "token-create", {"name": "bot"}, 302),
    ("/accounts/profile/", "alice", "token-revoke", {}, 302),
    ("/accounts/profile/", "alice", "email-change",
     {"email": "alice@example.org", "password": PASSWORD}, 302),
    ("/accounts/password_change/", "alice", "password_change",
     {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}, 302),
    ("/accounts/login/", None, "login", {"username": "alice", "password": PASSWORD}, 302),
    ("/accounts/signup/", None, "signup",
     {"username": "dora", "password1": PASSWORD, "password2": PASSWORD}, 302),
    ("/accounts/password_reset/", None, "password_reset", {"email": "alice@example.com"}, 302),
    ("{reset_link}", None, "password_reset_confirm",
     {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}, 302),
]
# fmt: on
# Pages scanned for forms besides those above.
MORE_PAGES = [
    ("/games/{active}/", "bob"),
    ("/games/{active}/", "charlie"),
    ("/games/{active}/history/", "alice"),
    ("/accounts/password_reset/done/", None),
    ("/accounts/reset/done/", None),
]
# One-click unsubscribe (RFC 8058): a mail client POSTs with no session and no token. The
# signed link is the credential; the page's form carries a token all the same.
CSRF_EXEMPT = {"unsubscribe"}


class FormParser(HTMLParser):
    """The forms of a page: method, action, and what a browser would send by default."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self._form: dict[str, Any] | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {name: value or "" for name, value in attrs}
        if tag == "form":
            method = a.get("method", "get").lower()
            self._form = {"method": method, "action": a.get("action", ""), "data": {}, "token": None}
            self.forms.append(self._form)
        elif self._form is None:
            return
        elif tag == "input" and a.get("name"):
            if a["name"] == "csrfmiddlewaretoken":
                self._form["token"] = a.get("value")
            elif a.get("type") not in ("checkbox", "radio") or "checked" in a:
                self._form["data"][a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select = a.get("name")
        elif tag == "option" and self._select and (self._select not in self._form["data"] or "selected" in a):
            self._form["data"][self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None


def post_forms(html: str, page: str) -> list[dict[str, Any]]:
    parser = FormParser()
    parser.feed(html)
    forms = [form for form in parser.forms if form["method"] == "post"]
    for form in forms:
        form["path"] = urlsplit(form["action"]).path or urlsplit(page).path
        form["route"] = resolve(form["path"]).view_name
    return forms


def _places(world: World) -> dict[str, Any]:
    alice = world.users["alice"]
    uid = urlsafe_base64_encode(force_bytes(alice.pk))
    reset_link = f"/accounts/reset/{uid}/{default_token_generator.make_token(alice)}/"
    return {**world.places(), "reset_link": reset_link}


def _open(world: World, page: str, who: str | None) -> tuple[Any, list[dict[str, Any]]]:
    """A browser that checks CSRF as real ones are checked, and the POST forms of the page."""
    client = world.browser(who, enforce_csrf_checks=True)
    response = client.get(page.format(**_places(world)), follow=True)
    assert response.status_code == 200
    return client, post_forms(response.content.decode(), response.request["PATH_INFO"])


def _filled(world: World, form: dict[str, Any], fill: Any) -> dict[str, Any]:
    return {**form["data"], **(world.legal_form() if fill == LEGAL else fill)}


@pytest.mark.parametrize(("page", "who", "route", "fill", "accepted"), FORMS)
def test_a_form_without_its_csrf_token_is_refused(world, page, who, route, fill, accepted):
    client, forms = _open(world, page, who)
    form = next(f for f in forms if f["route"] == route)
    before = snapshot()

    response = client.post(form["path"], _filled(world, form, fill))

    assert response.status_code == 403
    assert b"CSRF" in response.content
    assert changed_tables(before) == set()


@pytest.mark.parametrize(("page", "who", "route", "fill", "accepted"), FORMS)
def test_a_form_with_the_token_of_its_page_is_accepted(world, page, who, route, fill, accepted):
    client, forms = _open(world, page, who)
    form = next(f for f in forms if f["route"] == route)

    response = client.post(form["path"], {**_filled(world, form, fill), "csrfmiddlewaretoken": form["token"]})

    assert response.status_code == accepted


def test_the_play_form_plays_with_its_token(world):
    version = world.active.version
    client, forms = _open(world, "/games/{active}/", "alice")
    form = next(f for f in forms if f["route"] == "game-play")

    client.post(form["path"], {**_filled(world, form, LEGAL), "csrfmiddlewaretoken": form["token"]})

    assert Game.objects.get(pk=world.active.pk).version > version


def test_every_post_form_of_every_page_carries_a_csrf_token_and_is_in_the_table(world):
    found = set()
    for page, who in [(page, who) for page, who, *_ in FORMS] + MORE_PAGES + [("/unsubscribe/x/", None)]:
        _, forms = _open(world, page, who)
        for form in forms:
            assert form["token"], f"a form of {page} posting to {form['path']} has no csrfmiddlewaretoken"
            found.add(form["route"])

    assert found == {route for _, _, route, *_ in FORMS} | CSRF_EXEMPT


def test_unsubscribing_is_the_only_page_exempt_from_csrf():
    # DRF marks every APIView exempt and checks CSRF itself for sessions (below).
    exempt = {
        name
        for name, view in routes().items()
        if getattr(view, "csrf_exempt", False) and not hasattr(view, "cls")
    }

    assert exempt == CSRF_EXEMPT


def test_one_click_unsubscribe_needs_no_csrf_token(world):
    client = world.browser(None, enforce_csrf_checks=True)

    response = client.post(f"/unsubscribe/{world.places()['alice_unsubscribe']}/")

    assert response.status_code == 200


# --- The API ------------------------------------------------------------------------------------


def _session_client(world: World, who: str) -> APIClient:
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(world.users[who])
    return client


def test_the_api_with_a_personal_token_needs_no_csrf_token(world):
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Token {world.keys['alice']}")

    response = client.post(f"/api/games/{world.active.pk}/plays/", world.legal_play(), format="json")

    assert response.status_code == 201


def test_the_api_with_a_browser_session_refuses_a_post_without_csrf_token(world):
    client = _session_client(world, "alice")
    before = snapshot()

    response = client.post(f"/api/games/{world.active.pk}/plays/", world.legal_play(), format="json")

    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert "CSRF" in response.json()["detail"]
    assert changed_tables(before) == set()


def test_the_api_with_a_browser_session_accepts_the_csrf_token_of_a_page(world):
    client = _session_client(world, "alice")
    client.get("/")  # the page sets the CSRF cookie, as htmx's X-CSRFToken header sends it back

    response = client.post(
        f"/api/games/{world.active.pk}/plays/",
        world.legal_play(),
        format="json",
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )

    assert response.status_code == 201
