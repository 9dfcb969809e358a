"""Changing the language in the browser: the switcher, the pages and the turn hints follow."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.browser import sign_up

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_switches_to_german_and_the_game_page_and_its_hints_follow(
    live_server, open_page, settings, shots
):
    settings.BOT_MOVE_DELAY_SECONDS = 0
    page = open_page(viewport={"width": 360, "height": 740})
    sign_up(page, live_server.url, "alice")
    page.get_by_label("the computer").check()
    page.get_by_role("button", name="Create the game").click()
    game_url = page.url

    page.get_by_label("Language").select_option("de")
    expect(page).to_have_url(game_url)
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_role("heading", name="Schatztruhe")).to_be_visible()
    expect(page.locator("#play-hint")).to_have_text("Wähle Karten einer Sorte.")
    shots(page, "game-in-german-phone")

    page.get_by_label("Sprache").select_option("en")
    expect(page.locator("#play-hint")).to_have_text("Choose cards of one type.")
