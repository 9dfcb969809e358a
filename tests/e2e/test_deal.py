"""The deal anyone can verify on the game page, in headless Chromium on a phone and a desktop:
the commitment during play (and no salt), then the verdict, the salt and the record that
opens the commitment, fetched as a reader would."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from engine import deal
from games import services
from games.models import Game
from tests.e2e.test_table import DESKTOP, PHONE, _signed_in, _user
from tests.support.browser import goto
from tests.support.tables import play_first_legal, start

pytestmark = pytest.mark.django_db(transaction=True)
SCREENS = {"phone": PHONE, "desktop": DESKTOP}


@pytest.fixture
def players(db):
    return _user("alice"), _user("bob")


def _open_deal(page: Page) -> Any:
    details = page.locator("details.deal")
    details.locator("summary").click()
    expect(details).to_have_attribute("open", "")
    details.scroll_into_view_if_needed()
    return details


@pytest.mark.parametrize("screen", SCREENS)
def test_the_page_shows_the_commitment_during_play_and_the_checked_deal_after_the_end(
    live_server, open_page, players, shots, screen
):
    alice, bob = players
    game = start(alice, bob)
    for _ in range(4):
        play_first_legal(game)
    page = _signed_in(open_page, live_server, alice, viewport=SCREENS[screen])
    goto(page, f"{live_server.url}/games/{game.pk}/")

    details = _open_deal(page)
    expect(details).to_contain_text(game.deal_commitment)
    expect(details).to_contain_text("The decks were fixed before the first play")
    assert game.deal_salt not in page.content()
    shots(page, f"deal-playing-{screen}")

    services.game_resign(game=Game.objects.get(pk=game.pk), user=bob)
    goto(page, f"{live_server.url}/games/{game.pk}/")

    expect(page.locator(".deal-verdict")).to_have_text("✓ The deal checks out.")
    details = _open_deal(page)
    expect(details).to_contain_text(game.deal_salt)
    expect(details).to_contain_text("python -m engine verify-deal")
    shots(page, f"deal-over-{screen}")
    href = details.locator("a").get_attribute("href")
    record = page.request.get(f"{live_server.url}{href}").json()
    assert deal.verify(record) == deal.DealCheck("ok", game.deal_commitment, game.deal_commitment)
