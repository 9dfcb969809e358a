"""A play from an email's link, in headless Chromium and signed out, as the reader meets it on a
phone and on a desktop: opening the link plays nothing and shows the play on the reader's board;
Confirm plays it once; the same link opened again says the turn is over."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games import event_log, play_links
from games.models import Game, GameEvent
from tests.e2e.test_table import A_HAND, B_HAND, DESKTOP, PHONE, _user
from tests.support.api_plays import hidden_ids, shown_ids
from tests.support.tables import stack_the_deck, start

pytestmark = pytest.mark.django_db(transaction=True)


def _plays(game: Game) -> int:
    return GameEvent.objects.filter(game=game, kind="cards_played").count()


def _first_link(game: Game, user: Any) -> dict[str, Any]:
    state = event_log.load_state(game)
    groups = play_links.legal_play_links(user=user, game=game, state=state)
    return groups[0][0]


@pytest.fixture
def alice_to_move(transactional_db: None, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Game]:
    alice, bob = _user("alice"), _user("bob")
    stack_the_deck(monkeypatch, a=A_HAND, b=B_HAND)
    return alice, start(alice, bob, rules={"first_player": "a"})


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_link_shows_the_play_then_confirm_plays_it_once(
    live_server: Any, open_page: Any, alice_to_move: tuple[Any, Game], shots: Any, viewport: dict[str, int]
) -> None:
    alice, game = alice_to_move
    link = _first_link(game, alice)
    hidden = hidden_ids(game.pk, "a")
    page: Page = open_page(viewport=viewport)  # signed out: the link is the whole credential

    page.goto(live_server.url + link["path"])
    expect(page.get_by_role("heading", name="Confirm your play")).to_be_visible()
    expect(page.locator(".chosen-play")).to_have_text(link["label"])
    confirm = page.get_by_role("button", name="Confirm: play it")
    expect(confirm).to_be_in_viewport()  # the decision is on the first screen, phone or desktop
    expect(page.locator(".hand-card.picked")).to_have_count(1)
    assert shown_ids(page.content(), hidden) == set()
    shots(page, f"play-link-confirm-{viewport['width']}")
    page.reload()  # a mail scanner (or the reader) opening it twice: still nothing played
    assert _plays(game) == 0

    confirm.click()
    expect(page.get_by_role("heading", name=f"Played: {link['label']}")).to_be_visible()
    expect(page.get_by_text("Your opponent is on turn now")).to_be_visible()
    shots(page, f"play-link-played-{viewport['width']}")
    assert _plays(game) == 1
    game.refresh_from_db()
    assert game.to_move == "b"

    page.go_back()
    page.reload()  # the link once more, after its turn: refused, nothing written
    expect(page.get_by_role("heading", name="Nothing was played")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("This turn is over")
    expect(page.get_by_role("link", name="Open the game")).to_be_visible()
    assert _plays(game) == 1


def test_a_double_click_on_confirm_plays_once(
    live_server: Any, open_page: Any, alice_to_move: tuple[Any, Game]
) -> None:
    alice, game = alice_to_move
    link = _first_link(game, alice)
    page: Page = open_page(viewport=PHONE)
    page.goto(live_server.url + link["path"])

    page.get_by_role("button", name="Confirm: play it").dblclick()
    expect(page.get_by_role("heading", name=f"Played: {link['label']}")).to_be_visible()
    assert _plays(game) == 1


def test_a_tampered_link_gets_a_clear_page_and_writes_nothing(
    live_server: Any, open_page: Any, alice_to_move: tuple[Any, Game]
) -> None:
    alice, game = alice_to_move
    path = _first_link(game, alice)["path"].rstrip("/")
    page: Page = open_page(viewport=PHONE)

    page.goto(f"{live_server.url}{path[:-3]}xyz/")
    expect(page.get_by_role("heading", name="Nothing was played")).to_be_visible()
    expect(page.get_by_role("button", name="Confirm: play it")).to_have_count(0)
    assert _plays(game) == 0
