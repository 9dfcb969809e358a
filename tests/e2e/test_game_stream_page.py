"""The game page follows its game's stream, in headless Chromium: the waiting player's page (and
a spectator's) shows the opponent's play the moment it is made, fetched because of the stream's
event while the page's timed poll is held back; with the stream out of reach the page falls back
to its quick poll."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from django.test import Client
from playwright.sync_api import Page, ViewportSize, expect

from accounts import services as account_services
from tests.support.tables import stack_the_deck, start

# "direct" too: the live server's doorbells (core/live.py) look for new events on that alias.
pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "direct"])
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
# alice opens with a 1-point chest; bob's hand waits for his turn.
A_HAND = ["a00", "a02", "a16", "a23", "a24"]
B_HAND = ["b07", "b01", "b23", "b24", "b25"]

# Run in every document of the context before its own scripts (an init script is not subject to
# the page's Content-Security-Policy): keeps the page's EventSources where the test can read
# their state, and writes down what set off each request of the page's poll element ("sse:KIND"
# for a stream's event, "timer" for the timed poll) and each timed poll that the page held back:
# in this document's window.polls, and in the tab's sessionStorage, which outlives the reload.
WATCH = """
window.streams = [];
window.polls = [];
const NativeEventSource = window.EventSource;
window.EventSource = class extends NativeEventSource {
  constructor(url, init) { super(url, init); window.streams.push(this); }
};
const record = (what) => {
  window.polls.push(what);
  const all = JSON.parse(sessionStorage.getItem("polls") || "[]");
  sessionStorage.setItem("polls", JSON.stringify([...all, what]));
};
document.addEventListener("htmx:confirm", (event) => {
  const timed = event.detail.elt.classList.contains("poll") && !event.detail.triggeringEvent;
  if (timed && event.defaultPrevented) record("timer held");
});
document.addEventListener("htmx:beforeRequest", (event) => {
  if (!event.detail.elt.classList.contains("poll")) return;
  const trigger = event.detail.requestConfig.triggeringEvent;
  record(trigger ? trigger.type : "timer");
});
"""
STREAM_OPEN = "() => window.streams.some((s) => s.readyState === EventSource.OPEN)"
WITHIN_MS = 20_000  # as tests/support/browser.py's WITHIN: what never comes fails, not hangs
YOUR_TURN = "Your turn: choose cards of one type."


def _user(name: str) -> Any:
    return account_services.user_create(
        email_confirmed=True, username=name, password="dragon-heart-42", email=f"{name}@example.com"
    )


def _watched_page(open_page: Any, live_server: Any, user: Any, viewport: ViewportSize) -> Page:
    """A page with ``user``'s session, watched by WATCH."""
    client = Client()
    client.force_login(user)
    page: Page = open_page(viewport=viewport)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page.context.add_init_script(WATCH)
    return page


def _forget_polls(page: Page) -> None:
    page.evaluate("() => sessionStorage.setItem('polls', '[]')")


def _requests_since(page: Page) -> list[str]:
    """The poll requests the tab sent since ``_forget_polls`` (the timed polls held back left out)."""
    polls: list[str] = page.evaluate("() => JSON.parse(sessionStorage.getItem('polls') || '[]')")
    return [what for what in polls if what != "timer held"]


def _play_through_the_api(live_server: Any, user: Any, game_id: str, cards: list[str], version: int) -> None:
    token = account_services.token_create(user=user, name="elsewhere")[1]
    request = urllib.request.Request(
        f"{live_server.url}/api/games/{game_id}/plays/",
        data=json.dumps({"cards": cards, "expected_version": version}).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        assert response.status == 201


def _polls_include(page: Page, what: str) -> None:
    """Wait until this document's poll element has recorded ``what``."""
    page.wait_for_function("(what) => window.polls.includes(what)", arg=what, timeout=WITHIN_MS)


@pytest.fixture
def game(db, monkeypatch):
    stack_the_deck(monkeypatch, a=A_HAND, b=B_HAND)
    return start(_user("alice"), _user("bob"), rules={"first_player": "a"})


def test_the_waiting_players_page_shows_the_play_through_the_stream_while_its_poll_is_held(
    live_server, open_page, shots, game
):
    url = f"{live_server.url}/games/{game.pk}/"
    bob = _watched_page(open_page, live_server, game.player_b, PHONE)
    charlie = _watched_page(open_page, live_server, _user("charlie"), DESKTOP)  # a spectator
    for page in (bob, charlie):
        page.goto(url)
        page.wait_for_function(STREAM_OPEN, timeout=WITHIN_MS)
        _polls_include(page, "sse:state")  # what moved before the stream connected: nothing
    # The quick poll (every 3 s for a waiting player) is held back while the stream is open.
    _polls_include(bob, "timer held")
    expect(bob.locator(".news .status")).to_contain_text("Waiting for your opponent")
    shots(bob, "stream-waiting-phone")
    for page in (bob, charlie):
        _forget_polls(page)

    _play_through_the_api(live_server, game.player_a, game.pk, ["a00"], game.version)

    expect(bob.locator(".news .status")).to_contain_text(YOUR_TURN, timeout=WITHIN_MS)
    expect(bob.locator(".news .last-turn").first).to_contain_text("alice, turn 1:")
    expect(bob.get_by_role("checkbox", name="Fire dragon 2")).to_be_enabled()
    expect(charlie.locator(".news .last-turn").first).to_contain_text("alice, turn 1:", timeout=WITHIN_MS)
    for page in (bob, charlie):  # the new page follows the game too
        page.wait_for_function(STREAM_OPEN, timeout=WITHIN_MS)
        _polls_include(page, "sse:state")
    # What fetched the new position was the play's first event, and nothing more went before
    # the reload (a turn is a burst of events); then the new page's stream opened.
    assert _requests_since(bob)[:2] == ["sse:cards_played", "sse:state"]
    assert _requests_since(charlie)[:2] == ["sse:cards_played", "sse:state"]
    shots(bob, "stream-your-turn-phone")
    shots(charlie, "stream-spectator-desktop")


def test_without_its_stream_the_page_falls_back_to_its_quick_poll(live_server, open_page, game):
    url = f"{live_server.url}/games/{game.pk}/"
    bob = _watched_page(open_page, live_server, game.player_b, DESKTOP)
    bob.route("**/api/games/*/stream/", lambda route: route.abort())  # a proxy that cuts streams
    bob.goto(url)
    _polls_include(bob, "timer")  # the quick poll runs: nothing holds it back
    _forget_polls(bob)

    _play_through_the_api(live_server, game.player_a, game.pk, ["a00"], game.version)

    expect(bob.locator(".news .status")).to_contain_text(YOUR_TURN, timeout=WITHIN_MS)
    assert set(_requests_since(bob)) == {"timer"}
    assert bob.evaluate("() => window.streams.every((s) => s.readyState !== EventSource.OPEN)")
