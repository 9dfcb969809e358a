"""The end of a game in Chromium, as a player sees it: the result line in the second person,
"Next game" to the game waiting for them (a real 44 px target on a phone), and the computer's
review arriving on the page without a reload once a worker has written it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from games import reviews, services
from games.models import Game
from tests.e2e.test_history import DESKTOP, PHONE, log_in, people  # noqa: F401  (a fixture)
from tests.support.tables import play_first_legal, start

pytestmark = pytest.mark.django_db(transaction=True)
PLAYS = 12  # then bob resigns


@pytest.fixture
def finished(people: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Game:  # noqa: F811
    # The review is left unwritten, as it is in the moments after the end: the test writes it.
    monkeypatch.setattr(services, "_queue_review", lambda game_id: None)
    game = start(people["alice"], people["bob"], rules={"first_player": "a"})
    for _ in range(PLAYS):
        play_first_legal(game)
    services.game_resign(game=game, user=people["bob"])
    return Game.objects.get(pk=game.pk)


@pytest.fixture
def bobs_next(people: dict[str, Any]) -> Game:  # noqa: F811
    return start(people["bob"], people["charlie"], rules={"first_player": "a"})  # bob to move


def test_the_loser_reads_the_result_sees_the_review_arrive_and_goes_on_to_the_next_game(
    live_server, open_page, finished, bobs_next, shots
):
    page = log_in(open_page, live_server.url, "bob", PHONE)
    page.goto(f"{live_server.url}/games/{finished.pk}/")
    scores = finished.scores or {}
    expect(page.locator("#result")).to_have_text(f"You lost {scores['b']} : {scores['a']}")
    expect(page.locator(".result-reason")).to_have_text("You resigned.")
    next_game = page.get_by_role("link", name="Next game (1 waiting)")
    expect(next_game).to_be_visible()
    for target in (next_game, page.get_by_role("button", name="Rematch")):
        box = target.bounding_box()
        assert box is not None
        assert box["height"] >= 44
    expect(page.locator("#review")).to_contain_text("Review in progress")
    shots(page, "end-review-pending-phone")

    page.evaluate("window.stillTheSamePage = true")  # gone if the page were loaded again
    reviews.game_review_build(game=finished)  # the worker's part, committed (no test transaction)

    expect(page.locator("#review tbody tr")).to_have_count(4, timeout=15_000)
    expect(page.locator("#review")).not_to_contain_text("Review in progress")
    expect(page.locator("#review")).not_to_have_attribute("hx-get", f"/games/{finished.pk}/review/")
    assert page.evaluate("window.stillTheSamePage") is True
    shots(page, "end-review-arrived-phone")

    next_game.click()
    expect(page).to_have_url(f"{live_server.url}/games/{bobs_next.pk}/")


def test_the_winner_reads_the_result_with_rematch_and_the_way_back_to_the_lobby(
    live_server, open_page, finished, shots
):
    page = log_in(open_page, live_server.url, "alice", DESKTOP)
    page.goto(f"{live_server.url}/games/{finished.pk}/")
    scores = finished.scores or {}
    expect(page.locator("#result")).to_have_text(f"You won {scores['a']} : {scores['b']}")
    expect(page.locator(".result-reason")).to_have_text("bob resigned.")
    expect(page.get_by_role("button", name="Rematch")).to_be_visible()
    back = page.locator(".result-actions").get_by_role("link", name="Your games")
    expect(back).to_have_attribute("href", "/")
    shots(page, "end-winner-desktop")
