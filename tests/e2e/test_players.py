"""A player's page and the leaderboard in headless Chromium, signed out, on a phone and a
desktop: the rating with its chart (the phone gets a chart drawn for its width), the record
against each opponent, and the leaderboard's order."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Page, ViewportSize, expect

from games import services
from ratings.models import Rating
from tests.e2e.test_table import DESKTOP, PHONE, _user
from tests.support.browser import box
from tests.support.tables import play_first_legal, start

pytestmark = pytest.mark.django_db(transaction=True)


def _rated_resigned(winner: Any, loser: Any) -> None:
    game = start(winner, loser, days_per_turn=3)
    play_first_legal(game)
    services.game_resign(game=game, user=loser)


@pytest.fixture
def rated_players(transactional_db: None) -> dict[str, Any]:
    users = {name: _user(name) for name in ("alice", "bob", "charlie")}
    alice, bob, charlie = users.values()
    for winner, loser in [(alice, bob), (alice, charlie), (bob, alice), (alice, bob), (charlie, bob)]:
        _rated_resigned(winner, loser)
    return users


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_players_page_shows_the_rating_its_chart_and_the_record(
    live_server: Any, open_page: Any, shots: Any, rated_players: dict[str, Any], viewport: ViewportSize
) -> None:
    page: Page = open_page(viewport=viewport)
    page.goto(f"{live_server.url}/players/alice/")
    rating = Rating.objects.get(user=rated_players["alice"])
    expect(page.get_by_role("heading", name="alice", level=1)).to_be_visible()
    expect(page.locator(".rating-value")).to_have_text(f"{round(rating.rating)}?")
    shown = "narrow" if viewport is PHONE else "wide"
    chart = page.locator(f".rating-chart svg.{shown}")
    expect(chart).to_be_visible()
    expect(page.locator(".rating-chart svg:visible")).to_have_count(1)
    assert box(chart)["width"] <= viewport["width"]  # never wider than the screen
    expect(chart.locator("title")).to_contain_text("over 4 games")
    against_bob = page.locator("table.opponents tbody tr").filter(
        has=page.get_by_role("link", name="bob", exact=True)
    )
    expect(against_bob.locator("td")).to_have_text(["2", "1", "0"])  # won, lost, drawn
    expect(page.get_by_role("link", name="charlie", exact=True)).to_be_visible()
    shots(page, f"player-page-{viewport['width']}")


def test_the_leaderboard_ranks_established_players_and_links_their_pages(
    live_server: Any, open_page: Any, shots: Any, rated_players: dict[str, Any]
) -> None:
    now = timezone.now()
    for name, value in (("alice", 1688.2), ("bob", 1540.9)):
        Rating.objects.filter(user=rated_players[name]).update(
            rating=value, deviation=85, fifth_last_at=now - timedelta(days=3)
        )
    page: Page = open_page(viewport=PHONE)
    page.goto(f"{live_server.url}/players/")
    rows = page.locator("table.leaderboard tbody tr")
    expect(rows).to_have_count(2)  # charlie's rating is still provisional
    expect(rows.nth(0)).to_contain_text("alice")
    expect(rows.nth(0)).to_contain_text("1688")
    shots(page, "leaderboard-390")
    rows.nth(1).get_by_role("link", name="bob").click()
    expect(page.get_by_role("heading", name="bob", level=1)).to_be_visible()


@pytest.mark.parametrize("locale", ["de-DE", "es-ES", "fr-FR", "uk-UA"])
def test_a_players_page_fits_a_phone_in_every_language(
    live_server: Any, open_page: Any, rated_players: dict[str, Any], locale: str
) -> None:
    """Longer words ("Unentschieden") must not widen the page past the screen."""
    page: Page = open_page(viewport=PHONE, locale=locale)
    page.goto(f"{live_server.url}/players/alice/")
    expect(page.locator(".rating-chart svg.narrow")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
