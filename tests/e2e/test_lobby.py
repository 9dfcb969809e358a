"""Nothing goes stale: the lobby shows a new challenge and a game that became your turn while
it stays open, and the challenger's waiting page turns into the game once accepted. The
changes are made through the services, as another player's browser or program would."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from accounts import services as account_services
from games import challenges
from games.models import Game
from tests.support.browser import PASSWORD, sign_up
from tests.support.tables import play_first_legal, start

pytestmark = pytest.mark.django_db(transaction=True)
POLL = 15_000  # ms: the lobby asks every 4 s, the waiting page every 3 s


def _mark_page(page: Page) -> None:
    # A value that a reload would lose: the page must change in place, not by reloading.
    page.evaluate("window.__still_the_same_page = true")


def _same_page(page: Page) -> bool:
    return page.evaluate("window.__still_the_same_page === true") is True


def test_the_lobby_shows_a_challenge_that_arrives_while_it_is_open(live_server, open_page, shots):
    page = open_page(viewport={"width": 390, "height": 844})
    sign_up(page, live_server.url, "alice")
    bob = account_services.user_create(email_confirmed=True, username="bob", password=PASSWORD)
    _mark_page(page)

    game = challenges.game_create(creator=bob, opponent="alice")

    waiting = page.locator("#lobby-challenges")
    # Who challenged whom, with the challenger's rating, and the terms: "bob challenges you 1500?"
    challenge = waiting.locator(".challenge", has_text=re.compile(r"bob challenges you\s*1500\?"))
    expect(challenge).to_be_visible(timeout=POLL)
    expect(challenge).to_contain_text("no time limit · casual")
    expect(waiting.get_by_role("button", name="Accept")).to_be_visible()
    assert _same_page(page)
    shots(page, "lobby-challenge-arrived-phone")

    waiting.get_by_role("button", name="Accept").click()
    expect(page).to_have_url(f"{live_server.url}/games/{game.pk}/")


def test_the_lobby_moves_a_game_to_your_turn_when_the_opponent_plays(live_server, open_page):
    page = open_page(viewport={"width": 1280, "height": 800})
    sign_up(page, live_server.url, "alice")
    alice = get_user_model().objects.get(username="alice")
    bob = account_services.user_create(email_confirmed=True, username="bob", password=PASSWORD)
    game = start(alice, bob, rules={"first_player": "b"})
    page.reload()
    turns = page.locator("#lobby-turns")
    expect(turns.get_by_text("No game is waiting for you.")).to_be_visible()
    _mark_page(page)

    play_first_legal(game)  # bob plays: now it is alice's turn

    expect(turns.get_by_role("link", name="Play")).to_have_attribute(
        "href", f"/games/{game.pk}/", timeout=POLL
    )
    expect(turns.get_by_text("No game is waiting for you.")).to_have_count(0)
    expect(page).to_have_title("(1) Lobby · Dragonheart by mail")
    expect(page.locator("header #nav-games")).to_have_text("Your games (1)")
    assert _same_page(page)


def test_the_waiting_page_turns_into_the_game_once_the_challenge_is_accepted(live_server, open_page, shots):
    page = open_page(viewport={"width": 390, "height": 844})
    sign_up(page, live_server.url, "alice")
    bob = account_services.user_create(email_confirmed=True, username="bob", password=PASSWORD)
    page.get_by_label("Username").fill("bob")
    page.get_by_role("button", name="Create the game").click()

    expect(page.get_by_role("heading", name="Waiting for bob")).to_be_visible()
    expect(page.get_by_role("button", name="Cancel the challenge")).to_be_visible()
    expect(page.get_by_role("link", name="Back to the lobby")).to_have_attribute("href", "/")
    expect(page.locator('input[name="cards"]')).to_have_count(0)
    shots(page, "waiting-page-phone")
    game = Game.objects.get()

    challenges.game_accept(game=game, user=bob)

    expect(page.locator(".waiting")).to_have_count(0, timeout=POLL)
    expect(page.locator('input[name="cards"]')).to_have_count(5)
    expect(page).to_have_url(f"{live_server.url}/games/{game.pk}/")


def test_the_challenger_cancels_from_the_waiting_page(live_server, open_page):
    page = open_page()
    sign_up(page, live_server.url, "alice")
    account_services.user_create(email_confirmed=True, username="bob", password=PASSWORD)
    page.get_by_label("Username").fill("bob")
    page.get_by_role("button", name="Create the game").click()

    page.get_by_role("button", name="Cancel the challenge").click()

    expect(page.get_by_role("heading", name="The challenge was cancelled")).to_be_visible()
    assert Game.objects.get().status == Game.Status.CANCELLED


def test_the_new_game_form_shows_only_the_fields_of_the_chosen_opponent(live_server, open_page):
    page = open_page(viewport={"width": 390, "height": 844})
    sign_up(page, live_server.url, "alice")
    username, computer, link_only = (
        page.locator("#id_username"),
        page.locator("#id_bot"),
        page.locator("#id_private"),
    )

    expect(username).to_be_visible()
    expect(computer).to_be_hidden()
    page.get_by_label("the computer").check()
    expect(username).to_be_hidden()
    expect(computer).to_be_visible()
    page.get_by_label("anyone (open challenge)").check()
    expect(link_only).to_be_visible()
    expect(page.locator("#id_target")).to_be_hidden()
    page.locator("#id_series").select_option("match")
    expect(page.locator("#id_target")).to_be_visible()
