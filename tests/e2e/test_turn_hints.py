"""The turn form in headless Chromium: its button and hint follow the legal plays the server
renders into the page, in words from Django's JavaScript catalogue (djangojs.po)."""

from __future__ import annotations

import gettext
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from tests.e2e.test_table import _signed_in, _user
from tests.support.tables import play, stack_the_deck, start

pytestmark = pytest.mark.django_db(transaction=True)
SLOTS = ("Only %(n)s free slot on that space.", "Only %(n)s free slots on that space.")


@pytest.fixture
def two_dwarves_lie(transactional_db: None, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """alice to move holding three dwarves, a hero and a chest, with two dwarves lying on the
    dwarf space (of four slots): two free."""
    alice, bob = _user("alice"), _user("bob")
    stack_the_deck(monkeypatch, a=["a00", "a23", "a24", "a25", "a33"], b=["b23", "b24", "b01", "b02", "b03"])
    game = start(alice, bob, rules={"first_player": "a"})
    play(game, ["a00"])
    play(game, ["b23", "b24"])
    return alice, game


def _pick(page: Page, *cards: str) -> None:
    for card in cards:
        page.locator(f'label.hand-card:has(input[value="{card}"])').click()


def test_the_button_and_the_hint_follow_the_legal_plays(live_server, open_page, two_dwarves_lie):
    alice, game = two_dwarves_lie
    page = _signed_in(open_page, live_server, alice)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    hint, button = page.locator("#play-hint"), page.locator("#play-button")
    expect(hint).to_have_text("Choose cards of one type.")
    expect(button).to_be_disabled()

    _pick(page, "a23", "a24", "a25")
    expect(hint).to_have_text("Only 2 free slots on that space.")
    expect(button).to_be_disabled()

    _pick(page, "a25")  # unpicked: two dwarves fit
    expect(hint).to_have_text("Ready: confirm your play.")
    expect(button).to_be_enabled()

    _pick(page, "a33")
    expect(hint).to_have_text("All cards of one turn must be of one type.")
    expect(button).to_be_disabled()


def test_the_free_slots_are_counted_in_ukrainian_plurals(live_server, open_page, two_dwarves_lie):
    alice, game = two_dwarves_lie
    page = _signed_in(open_page, live_server, alice, locale="uk-UA")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    expect(page.locator("html")).to_have_attribute("lang", "uk")

    _pick(page, "a23", "a24", "a25")
    expect(page.locator("#play-hint")).to_have_text("На цьому полі вільно лише 2 місця.")


@pytest.mark.parametrize("lang", [code for code, _name in settings.LANGUAGES if code != "en"])
def test_the_catalogues_plurals_in_the_browser_are_those_of_the_compiled_catalogue(
    live_server, open_page, two_dwarves_lie, lang
):
    """The page's ngettext picks each form by the catalogue's own plural rule, as gettext
    reads it from djangojs.mo."""
    alice, game = two_dwarves_lie
    page = _signed_in(open_page, live_server, alice, locale=lang)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    in_browser = page.evaluate(
        "([one, many]) => [...Array(30).keys()].map((n) => interpolate(ngettext(one, many, n), {n}, true))",
        list(SLOTS),
    )

    mo = Path(settings.BASE_DIR) / "locale" / lang / "LC_MESSAGES" / "djangojs.mo"
    with mo.open("rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)
    assert in_browser == [catalogue.ngettext(*SLOTS, n) % {"n": n} for n in range(30)]
