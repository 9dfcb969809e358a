"""Whole games played through the pages in headless Chromium, as people play them."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Game
from tests.support.api_plays import hidden_ids, shown_ids
from tests.support.browser import DEAL, goto, sign_up, take_turn

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_people_play_a_whole_game_in_their_browsers_and_step_through_its_history(
    live_server, open_page, shots, monkeypatch
):
    # A fixed deal, so that the game surely offers both a princess and a hero choice.
    monkeypatch.setattr(services, "_table_rng", random.Random(DEAL))
    base = live_server.url
    alice, bob = open_page(), open_page()
    sign_up(alice, base, "alice")
    sign_up(bob, base, "bob")

    alice.get_by_label("Username").fill("bob")
    alice.get_by_role("button", name="Create the game").click()
    game_url = alice.url
    bob.goto(base + "/")
    bob.get_by_role("button", name="Accept").first.click()
    expect(bob).to_have_url(game_url)

    found = re.search(r"/games/([^/]+)/", game_url)
    assert found is not None
    game_id = found.group(1)
    pages, turns = {"a": alice, "b": bob}, 0
    seen: set[str] = set()
    while Game.objects.get(pk=game_id).status == "active":
        game = Game.objects.get(pk=game_id)
        page = pages[game.to_move]
        # No reload by the test: the page of the player to move brings the opponent's play
        # itself (the game's stream), and its poll then names the version it shows.
        expect(page.locator(f'.poll[hx-get$="?version={game.version}"]')).to_have_count(1, timeout=20_000)
        assert not shown_ids(page.content(), hidden_ids(game_id, game.to_move))
        if turns == 2:
            shots(page, "board")
        take_turn(page, seen, shots)
        turns += 1
        assert turns < 300
    assert {"princess", "hero"} <= seen, f"the game never asked for both choices: {seen}"

    goto(alice, game_url)
    expect(alice.locator(".result")).to_be_visible()
    shots(alice, "final-score")

    # The history steps by turns: the deal, then each turn with everything it caused.
    alice.goto(game_url + "history/?turn=0")
    expect(alice.locator(".current")).to_contain_text("begins")
    alice.keyboard.press("ArrowRight")
    expect(alice).to_have_url(re.compile(r"turn=1$"))
    expect(alice.locator(".current h2")).to_contain_text("Turn 1: ")
    alice.locator("#step-last").click()
    expect(alice).to_have_url(re.compile(rf"turn={turns}$"))
    expect(alice.locator(".log li.now")).to_contain_text("Game over")


def test_a_player_plays_a_whole_game_against_the_computer(live_server, open_page, settings, shots):
    settings.BOT_MOVE_DELAY_SECONDS = 0
    base = live_server.url
    page = open_page(viewport={"width": 360, "height": 740})
    sign_up(page, base, "alice")
    page.get_by_label("the computer").check()
    page.get_by_role("button", name="Create the game").click()
    game_url = page.url
    seen: set[str] = set()
    for _ in range(200):
        goto(page, game_url)
        if page.locator(".result").count():
            break
        take_turn(page, seen)
    expect(page.locator(".result")).to_be_visible()
    shots(page, "final-score-phone")
