"""Whole games played through the pages in headless Chromium, as people play them."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Page, expect

from games import services
from games.models import Game
from tests.e2e.conftest import goto
from tests.games.helpers import hidden_ids

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "dragon-heart-42"
DEAL = 7


def shown_ids(html: str, ids: set[str]) -> set[str]:
    """Card ids standing as words in a page (not inside a random token such as the CSRF one)."""
    return {card for card in ids if re.search(rf"(?<![\w-]){card}(?![\w-])", html)}


def sign_up(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/signup/")
    page.get_by_label("Username").fill(username)
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible()


def take_turn(page: Page, seen: set[str], shots=None) -> None:  # type: ignore[no-untyped-def]
    """Put down one card (always legal); prefer a play that asks a choice, once of each kind."""
    cards = page.locator('input[name="cards"]')
    hero_lying = int(page.locator('.space[data-space="hero"]').get_attribute("data-lying") or 0)
    types = [cards.nth(i).get_attribute("data-type") for i in range(cards.count())]
    if "hero" in types and hero_lying == 1 and "hero" not in seen:
        pick = types.index("hero")
    elif types.count("hero") >= 2 and hero_lying == 0 and "hero" not in seen:
        pick = types.index("hero")  # lay one hero down, to complete the space with a choice later
    elif "princess" in types and "princess" not in seen:
        pick = types.index("princess")
    else:
        pick = next((i for i, t in enumerate(types) if t not in ("princess", "hero")), 0) if types else None
    if pick is not None:
        page.locator("label.hand-card").nth(pick).click()
        kind = types[pick]
        needs = "princess" if kind == "princess" else "hero" if kind == "hero" and hero_lying == 1 else None
        if needs:
            choice = page.locator(f'fieldset.choice[data-for="{needs}"]')
            expect(choice).to_be_visible()
            if shots is not None and needs not in seen:
                shots(page, f"choice-{needs}")
            choice.locator("input").first.check()
            seen.add(needs)
    page.locator("#play-button").click()
    expect(page.locator(".error")).to_have_count(0)


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

    game_id = re.search(r"/games/([^/]+)/", game_url).group(1)
    pages, seen, turns = {"a": alice, "b": bob}, set(), 0
    while Game.objects.get(pk=game_id).status == "active":
        game = Game.objects.get(pk=game_id)
        page = pages[game.to_move]
        goto(page, game_url)
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
