"""The how-to-play page in the browser, in each of the five languages: each edition's card
names, the capture diagram, and a phone-sized page that never scrolls sideways."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.names import CARD_NAMES, ENGLISH_NAMES

pytestmark = pytest.mark.django_db(transaction=True)
NAMES = {"en": ENGLISH_NAMES, **CARD_NAMES}
TITLES = {
    "en": "How to play Dragonheart",
    "de": "So spielt man Drachenherz",
    "es": "Cómo se juega a Dragonheart",
    "fr": "Comment jouer à Cœur de Dragon",
    "uk": "Як грати в Dragonheart",
}


@pytest.mark.parametrize("lang", ["en", "de", "es", "fr", "uk"])
def test_the_rules_page_names_the_cards_as_each_edition_does(live_server, open_page, shots, lang):
    page = open_page(
        viewport={"width": 390, "height": 844}, locale=lang, extra_http_headers={"Accept-Language": lang}
    )
    page.goto(f"{live_server.url}/how-to-play/")

    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.get_by_role("heading", level=1)).to_have_text(TITLES[lang])
    for name in NAMES[lang]:
        expect(page.locator("ul.cards").get_by_role("heading", name=name, exact=False).first).to_be_visible()
    expect(page.locator(".chain svg")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shots(page, f"rules-{lang}-phone")


def test_the_rules_page_on_a_desktop_and_from_the_header_of_a_game(live_server, open_page, shots):
    from tests.support.browser import sign_up

    page = open_page(viewport={"width": 1280, "height": 800})
    sign_up(page, live_server.url, "alice")
    page.get_by_label("the computer").check()
    page.get_by_role("button", name="Create the game").click()

    page.get_by_role("link", name="How to play").click()
    expect(page).to_have_url(f"{live_server.url}/how-to-play/?game={page.url.split('=')[-1]}")
    expect(page.get_by_text("The rules of the game alice against Computer (medium) BOT:")).to_be_visible()
    expect(page.get_by_role("link", name="Back to the game")).to_be_visible()
    shots(page, "rules-en-desktop")
