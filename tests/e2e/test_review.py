"""The computer's review in Chromium: the end screen's summary, "Review in progress" until the
task has run, and the history's marked turns with the better play on the board; phone and
desktop screenshots."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Response, expect

from games import reviews, services
from games.models import Game, GameReview, ReviewClaim, TurnReview
from tests.e2e.test_history import DESKTOP, PHONE, log_in, people  # noqa: F401  (a fixture)
from tests.support.tables import play_first_legal, start

pytestmark = pytest.mark.django_db(transaction=True)
PLAYS = 24  # then bob resigns: a short game, reviewed as any finished game


@pytest.fixture
def finished(people: dict[str, Any], settings: Any) -> Game:  # noqa: F811
    # Enough determinizations for marks that mean something on the screenshots, still quick.
    settings.REVIEW_ITERATIONS = 10
    game = start(people["alice"], people["bob"])
    for _ in range(PLAYS):
        play_first_legal(game)
    # No test transaction: the review task runs (at once: the tests' eager tasks) as the end
    # commits.
    services.game_resign(game=game, user=people["bob"])
    return game


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_the_end_screen_sums_up_the_review_and_the_history_shows_the_better_play(
    live_server, open_page, finished, shots, size, viewport
):
    assert GameReview.objects.filter(game=finished).exists()
    page = log_in(open_page, live_server.url, "alice", viewport)
    page.goto(f"{live_server.url}/games/{finished.pk}/")
    summary = page.locator("#review")
    expect(summary.get_by_role("heading", name="The computer's review")).to_be_visible()
    expect(summary.locator("tbody tr")).to_have_count(4)
    summary.scroll_into_view_if_needed()
    shots(page, f"review-end-screen-{size}")

    page.locator("#review-link").click()
    marked = TurnReview.objects.filter(game=finished).exclude(mark="").order_by("number").first()
    assert marked is not None
    note = page.locator("#review-note")
    expect(note.locator(".badge")).to_have_text(str(reviews.MARK_LABELS[TurnReview.Mark(marked.mark)]))
    expect(note.locator(".better-play .card")).to_have_count(len(marked.best_cards))
    expect(page.locator(f".log li.now .badge-{marked.mark}")).to_be_visible()
    shots(page, f"review-history-{size}")

    page.locator("#show-better").click()
    expect(page.locator(".current h2")).to_contain_text("the better play")
    # The better play's cards that stay on the board (a capture may take them) are marked.
    for card in marked.best_cards:
        on_board = page.locator(f'.board svg.card[data-card="{card}"]')
        if on_board.count():
            expect(on_board).to_have_class(re.compile(r"\bfresh\b"))
    expect(page.locator("#show-played")).to_be_visible()
    shots(page, f"review-better-play-{size}")


def test_the_end_screen_says_review_in_progress_and_shows_the_review_once_written(
    live_server, open_page, finished, worker_in_process, shots
):
    TurnReview.objects.filter(game=finished).delete()
    GameReview.objects.filter(game=finished).delete()
    ReviewClaim.objects.filter(game=finished).delete()
    page = log_in(open_page, live_server.url, "bob", PHONE)
    page.goto(f"{live_server.url}/games/{finished.pk}/")
    expect(page.locator("#review")).to_contain_text("Review in progress")
    shots(page, "review-in-progress-phone")
    with page.expect_response(_the_sections_poll, timeout=12_000):
        pass  # the section asks the page again (every five seconds)...
    assert not GameReview.objects.filter(game=finished).exists()  # ...and that writes nothing

    services._queue_review(finished.pk)  # as the game's end queues it, for the worker

    # The section asks again every five seconds and takes the written review in place.
    expect(page.locator("#review tbody tr")).to_have_count(4, timeout=12_000)
    expect(page.locator("#review")).not_to_contain_text("Review in progress")


def _the_sections_poll(answer: Response) -> bool:
    return answer.request.headers.get("hx-request") == "true" and "/poll/" not in answer.url
