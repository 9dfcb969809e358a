"""A newcomer on a phone, from the home page to a first move against the computer: the board
shows before any account, and from the sign-up form the move takes four taps — the form's
submit, "Play the computer now", a card and Play."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.models import Game

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_newcomer_plays_a_first_move_against_the_computer_in_four_taps(
    live_server, open_page, settings, shots
):
    settings.BOT_MOVE_DELAY_SECONDS = 0
    page = open_page(viewport={"width": 390, "height": 844})
    page.goto(live_server.url)
    expect(page.locator(".showcase .board")).to_be_visible()
    expect(page.locator(".showcase svg.card")).not_to_have_count(0)
    shots(page, "home-signed-out-phone")
    page.get_by_role("link", name="Play the computer now").click()

    page.get_by_label("Username").fill("newcomer")
    page.locator("#id_password1").fill("a long enough passphrase")
    page.get_by_label("The password again").fill("a long enough passphrase")
    taps = 0
    page.get_by_role("button", name="Sign up and play").click()
    taps += 1
    page.get_by_role("button", name="Play the computer now").click()
    taps += 1
    expect(page.locator("#play-button")).to_be_visible()
    hand = page.locator("label.hand-card")
    types = [hand.nth(i).locator("input").get_attribute("data-type") for i in range(hand.count())]
    # A card that asks no further choice (a princess asks which pile to take).
    hand.nth(next(i for i, kind in enumerate(types) if kind not in ("princess", "hero"))).click()
    taps += 1
    with page.expect_navigation():
        page.locator("#play-button").click()
    taps += 1

    assert taps == 4
    expect(page.locator(".error")).to_have_count(0)
    game = Game.objects.get(player_a__username="newcomer")
    assert game.bot == "medium"
    assert game.version > 1  # the deal, then the newcomer's play
    shots(page, "first-move-made-phone")
