"""The history in Chromium: one turn a step, by keys, slider and buttons; the log follows the
step; the viewer's own seat sits below the board; drawn icons; phone and desktop screenshots."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import FloatRect, Page, ViewportSize, expect

from accounts import services as account_services
from games.models import Game
from tests.support.browser import box
from tests.support.tables import play_first_legal, start

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "dragon-heart-42"
PLAYS = 30
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}


@pytest.fixture
def people() -> dict[str, Any]:
    return {
        name: account_services.user_create(
            email_confirmed=True, username=name, password=PASSWORD, email=f"{name}@example.com"
        )
        for name in ("alice", "bob", "charlie")
    }


@pytest.fixture
def game(people: dict[str, Any]) -> Game:
    played = start(people["alice"], people["bob"], days_per_turn=3)
    for _ in range(PLAYS):
        play_first_legal(played)
    return played


def log_in(open_page: Any, base: str, username: str, viewport: ViewportSize) -> Page:
    page: Page = open_page(viewport=viewport)
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible()
    return page


def turn_url(base: str, game: Game, turn: int | str) -> str:
    return f"{base}/games/{game.pk}/history/?turn={turn}"


def expect_turn(page: Page, turn: int) -> None:
    expect(page).to_have_url(re.compile(rf"[?&]turn={turn}$"))
    title = "The deal" if turn == 0 else f"Turn {turn}: "
    expect(page.locator(".current h2")).to_contain_text(title)
    expect(page.locator(".log li.now > a")).to_contain_text(title)


def inside(inner: FloatRect, outer: FloatRect) -> bool:
    return outer["y"] - 1 <= inner["y"] and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 1


def test_the_keys_the_slider_and_the_buttons_step_one_turn_and_the_log_follows(
    live_server, open_page, game, shots
):
    page = log_in(open_page, live_server.url, "bob", DESKTOP)
    page.goto(turn_url(live_server.url, game, 3))
    expect_turn(page, 3)

    page.keyboard.press("ArrowRight")
    expect_turn(page, 4)
    page.keyboard.press("ArrowLeft")
    expect_turn(page, 3)
    page.keyboard.press("End")
    expect_turn(page, PLAYS)
    page.keyboard.press("Home")
    expect_turn(page, 0)

    page.locator("#step-slider").fill("25")  # the slider submits itself (static/js/site.js)
    expect_turn(page, 25)
    # The log keeps the current turn in view inside its own box, far down a long list.
    log, now = page.locator("#log"), page.locator(".log li.now")
    assert inside(box(now), box(log))
    expect(page.locator(".log > li").nth(25)).to_have_class("now")

    page.get_by_role("link", name="Next").click()
    expect_turn(page, 26)
    page.get_by_role("link", name="Previous").click()
    expect_turn(page, 25)
    page.get_by_role("link", name="Last").click()
    expect_turn(page, PLAYS)
    expect(page.get_by_role("link", name="Next")).to_have_attribute("aria-disabled", "true")
    page.get_by_role("link", name="First").click()
    expect_turn(page, 0)
    expect(page.get_by_role("link", name="Previous")).to_have_attribute("aria-disabled", "true")
    page.keyboard.press("ArrowLeft")  # nothing before the deal: the page stays
    expect_turn(page, 0)
    shots(page, "history-desktop-deal")


def test_the_current_turn_lists_its_events_and_an_old_step_link_opens_its_turn(live_server, open_page, game):
    page = log_in(open_page, live_server.url, "alice", DESKTOP)
    page.goto(f"{live_server.url}/games/{game.pk}/history/?step=2")  # an event of turn 1
    expect(page.locator(".current h2")).to_contain_text("Turn 1: ")
    lines = page.locator(".current li")
    expect(lines.first).to_contain_text("played")
    expect(page.locator(".log li.now li")).to_have_count(lines.count())


def test_the_viewers_own_seat_is_below_the_board_and_a_spectator_sees_b_above(live_server, open_page, game):
    for viewer, above, below in (("alice", "b", "a"), ("bob", "a", "b"), ("charlie", "b", "a")):
        page = log_in(open_page, live_server.url, viewer, DESKTOP)
        page.goto(turn_url(live_server.url, game, 12))
        top = box(page.locator(f'.history-seat[data-seat="{above}"]'))
        board = box(page.locator(".history-board"))
        bottom = box(page.locator(f'.history-seat[data-seat="{below}"]'))
        assert top["y"] + top["height"] <= board["y"] + 1, viewer
        assert board["y"] + board["height"] <= bottom["y"] + 1, viewer
        name = game.player_name(below)
        expect(page.locator(f'.history-seat[data-seat="{below}"]')).to_contain_text(name)


def test_only_the_live_turn_shows_the_time_left(live_server, open_page, game):
    page = log_in(open_page, live_server.url, "alice", DESKTOP)
    page.goto(turn_url(live_server.url, game, PLAYS))
    expect(page.locator(".history-table")).to_contain_text(re.compile(r"(days?|hours?) left"))
    page.keyboard.press("ArrowLeft")
    expect_turn(page, PLAYS - 1)
    expect(page.locator(".history-table")).not_to_contain_text(re.compile(r" left\b"))


def test_the_stepper_is_drawn_not_typed_and_fits_a_phone(live_server, open_page, game, shots):
    page = log_in(open_page, live_server.url, "bob", PHONE)
    page.goto(turn_url(live_server.url, game, 12))
    expect_turn(page, 12)
    for name in ("First", "Previous", "Next", "Last"):
        button = page.get_by_role("link", name=name)
        target, icon = box(button), box(button.locator("svg"))
        assert min(target["width"], target["height"]) >= 44, name
        assert min(icon["width"], icon["height"]) > 10, name
    assert not re.search("[⏮⏭◀▶]", page.locator(".stepper").inner_text())
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shots(page, "history-phone")
    page.set_viewport_size(DESKTOP)
    page.reload()
    shots(page, "history-desktop")
