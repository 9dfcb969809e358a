"""The game page as a table, in headless Chromium: the last turn told, the bot's reply as its
own step, the end in sight, the whole table on the first screen of a phone and a desktop, and
pages that never go stale."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest
from django.test import Client
from playwright.sync_api import Dialog, Page, ViewportSize, expect

from accounts import services as account_services
from engine.cards import CARD_TYPE
from games import challenges, services
from games.models import Game
from tests.support.api_plays import hidden_ids, shown_ids
from tests.support.browser import box
from tests.support.tables import play, play_first_legal, snapshot, stack_the_deck, start

pytestmark = pytest.mark.django_db(transaction=True)
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
# alice opens with a 1-point chest; bob's fire dragon (2) takes it.
A_HAND = ["a00", "a02", "a16", "a23", "a24"]
B_HAND = ["b07", "b01", "b23", "b24", "b25"]


def _user(name: str) -> Any:
    return account_services.user_create(
        email_confirmed=True, username=name, password="dragon-heart-42", email=f"{name}@example.com"
    )


def _signed_in(open_page: Any, live_server: Any, user: Any, **context: Any) -> Page:
    """A browser page with ``user``'s session (the login form is tested elsewhere)."""
    client = Client()
    client.force_login(user)
    page: Page = open_page(**context)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    return page


def _play_in_page(page: Page, card: str) -> None:
    page.locator(f'label.hand-card:has(input[value="{card}"])').click()
    page.locator("#play-button").click()


@pytest.fixture
def players(db):
    return _user("alice"), _user("bob")


def test_the_other_player_sees_the_last_turn_in_english_and_in_german(
    live_server, open_page, monkeypatch, players
):
    alice, bob = players
    stack_the_deck(monkeypatch, a=A_HAND, b=B_HAND)
    game = start(alice, bob, rules={"first_player": "a"})
    url = f"{live_server.url}/games/{game.pk}/"
    alice_page = _signed_in(open_page, live_server, alice, viewport=PHONE)
    bob_page = _signed_in(open_page, live_server, bob, viewport=PHONE)
    alice_page.goto(url)
    bob_page.goto(url)
    expect(bob_page.locator(".news")).to_contain_text("Waiting for your opponent")
    expect(bob_page.get_by_role("checkbox", name="Fire dragon 2")).to_have_count(1)  # cards are named

    _play_in_page(alice_page, "a00")

    # Bob's page reloads itself (its poll) and tells him first what alice did.
    news = bob_page.locator(".news .last-turn").first
    expect(news).to_contain_text("alice, turn 1:", timeout=15_000)
    expect(news).to_contain_text("alice played 1 treasure chest (1).")
    expect(bob_page.locator('.space-chest .card[data-card="a00"]')).to_have_class(re.compile("fresh"))
    assert bob_page.locator(".news").get_attribute("aria-live") == "polite"

    bob_page.get_by_label("Language").select_option("de")
    expect(bob_page.locator(".news .last-turn").first).to_contain_text("alice, Zug 1:")
    expect(bob_page.locator(".news .last-turn").first).to_contain_text("alice legte aus: 1 Schatztruhe (1).")
    expect(bob_page.get_by_role("checkbox", name="Feuerdrache 2")).to_have_count(1)
    expect(bob_page.locator(".board").get_by_role("img", name="Schatztruhe 1")).to_have_count(1)
    assert not shown_ids(bob_page.content(), hidden_ids(game.pk, "b"))


def test_the_bots_reply_arrives_as_its_own_step_after_the_players_own_play(
    live_server, open_page, settings, players, worker_in_process, shots
):
    settings.BOT_MOVE_DELAY_SECONDS = 3  # then a worker plays it; the page's poll only reads
    alice, _bob = players
    game = challenges.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "a"})
    page = _signed_in(open_page, live_server, alice, viewport=PHONE)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    hand = snapshot(game)["hands"]["a"]
    card = next(c for c in hand if CARD_TYPE[c] not in ("princess", "hero"))  # no choice

    _play_in_page(page, card)

    # First the result of alice's own play, with the bot still to move...
    expect(page.locator(".news .last-turn").first).to_contain_text("Your turn 1:")
    expect(page.locator(".news .status")).to_contain_text("is thinking")
    assert Game.objects.get(pk=game.pk).to_move == "b"
    shots(page, "bot-thinking-phone")
    # ...then, a moment later, the bot's turn (the worker's) as its own step, the page
    # updating itself.
    expect(page.locator(".news .last-turn").first).to_contain_text(
        "Computer (greedy) BOT, turn 1:", timeout=20_000
    )
    expect(page.locator(".news .status")).to_contain_text("Your turn")
    expect(page.locator("#play-button")).to_be_visible()


def test_the_voyages_and_the_last_turn_notice_are_shown_before_the_last_play(
    live_server, open_page, players, shots
):
    alice, bob = players
    game = start(alice, bob)
    for _ in range(400):
        game.refresh_from_db()
        if snapshot(game)["last_turn"] is not None:
            break
        play_first_legal(game)
    mover = alice if game.to_move == "a" else bob
    page = _signed_in(open_page, live_server, mover, viewport=PHONE)
    page.goto(f"{live_server.url}/games/{game.pk}/")

    expect(page.locator(".voyage-count")).to_have_text(f"Voyages {snapshot(game)['voyages']}/3")
    expect(page.locator(".end-notice")).to_have_text("This is your last turn: the game ends after it.")
    expect(page.locator(".end-notice")).to_be_in_viewport()
    shots(page, "last-turn-notice-phone")


def _inside(page: Page, selector: str, viewport: ViewportSize) -> None:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    assert box["x"] >= 0, (selector, box)
    assert box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= viewport["width"] + 0.5, (selector, box)
    assert box["y"] + box["height"] <= viewport["height"] + 0.5, (selector, box)


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_the_whole_table_is_on_the_first_screen(
    live_server, open_page, monkeypatch, players, shots, size, viewport
):
    alice, bob = players
    stack_the_deck(monkeypatch, a=["a16", "a00", "a23", "a38", "a44"], b=["b03", "b11", "b23", "b24", "b39"])
    game = start(alice, bob, rules={"first_player": "a"})
    for cards, choice in ((["a00"], None), (["b03"], None), (["a23"], None), (["b23"], None)):
        play(game, cards, choice)
    page = _signed_in(open_page, live_server, alice, viewport=viewport)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.locator('label.hand-card:has(input[data-type="princess"])').first.click()  # the prompt opens
    expect(page.locator('fieldset.choice[data-for="princess"]')).to_be_visible()

    for selector in [".news", ".seat-top .player", ".seat-bottom .player", ".hand", "#play-button"]:
        _inside(page, selector, viewport)
    spaces = page.locator(".board .space")
    assert spaces.count() == 9
    for i in range(9):
        _inside(page, f".board .space >> nth={i}", viewport)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    for target in [page.locator("#play-button"), *page.locator("label.hand-card").all()]:
        box = target.bounding_box()
        assert box
        assert box["width"] >= 44
        assert box["height"] >= 44
    shots(page, f"table-{size}")


def test_a_capture_flies_from_its_space_to_the_taker_and_not_under_reduced_motion(
    live_server, open_page, monkeypatch, players, shots
):
    alice, bob = players
    stack_the_deck(monkeypatch, a=A_HAND, b=B_HAND)
    game = start(alice, bob, rules={"first_player": "a"})
    play(game, ["a00"])
    play(game, ["b07"])  # bob's fire dragon takes alice's chest
    url = f"{live_server.url}/games/{game.pk}/"

    page = _signed_in(open_page, live_server, alice, viewport=PHONE)
    page.goto(url)
    flight = page.locator('.flight[data-from="chest"][data-to="b"]')
    expect(flight).to_have_class(re.compile("flying"))
    # Hold the animation half-way for the picture.
    page.evaluate("document.getAnimations().forEach((a) => { a.pause(); a.currentTime = 950; })")
    expect(flight).to_be_visible()
    assert flight.locator(".card").get_attribute("data-card") == "a00"
    shots(page, "capture-mid-animation")

    still = _signed_in(open_page, live_server, alice, viewport=PHONE, reduced_motion="reduce")
    still.goto(url)
    expect(still.locator(".news .last-turn").first).to_contain_text("bob took 1 card")
    expect(still.locator(".flight")).to_be_hidden()
    assert still.evaluate("document.getAnimations().length") == 0


def _a_capture_before_alice(live_server, open_page, monkeypatch, players) -> Page:
    """alice's game page on a phone, just after bob's fire dragon took her chest."""
    alice, bob = players
    stack_the_deck(monkeypatch, a=A_HAND, b=B_HAND)
    game = start(alice, bob, rules={"first_player": "a"})
    play(game, ["a00"])
    play(game, ["b07"])
    page = _signed_in(open_page, live_server, alice, viewport=PHONE)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    return page


def test_a_capture_flies_once_and_not_again_when_the_same_position_is_reloaded(
    live_server, open_page, monkeypatch, players
):
    page = _a_capture_before_alice(live_server, open_page, monkeypatch, players)
    expect(page.locator(".flight.flying")).to_have_count(1)
    page.reload()
    expect(page.locator(".news .last-turn").first).to_contain_text("bob took 1 card")
    expect(page.locator(".flight.flying")).to_have_count(0)
    expect(page.locator(".flight")).to_be_hidden()


def _uncovered(page: Page, selector: str) -> None:
    """Nothing lies on the middle of ``selector``: a click there reaches it."""
    target = page.locator(selector)
    assert target.evaluate(
        """(el) => { const b = el.getBoundingClientRect();
                     const top = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
                     return el.contains(top); }"""
    ), f"{selector} is covered"


def test_the_flown_cards_are_gone_once_landed_after_a_reload_and_after_back(
    live_server, open_page, monkeypatch, players
):
    page = _a_capture_before_alice(live_server, open_page, monkeypatch, players)
    flight = page.locator(".flight")
    expect(flight).to_have_class(re.compile("flying"))
    expect(flight).to_be_hidden()  # landed

    page.reload()  # the same position: no flight, and none left standing over the links
    expect(page.locator(".news .last-turn").first).to_contain_text("bob took 1 card")
    expect(flight).to_be_hidden()
    _uncovered(page, '.game-links a[href$="?since=1"]')

    # Left in mid-flight, then Back (from the back-forward cache or loaded again).
    page.evaluate("sessionStorage.clear()")
    page.reload()
    expect(flight).to_have_class(re.compile("flying"))
    page.evaluate("document.getAnimations().forEach((a) => a.pause())")
    page.locator(".game-links").get_by_role("link", name="History").click()
    expect(page).to_have_url(re.compile("/history/"))
    page.go_back()

    expect(page.locator(".news .last-turn").first).to_contain_text("bob took 1 card")
    expect(flight).to_be_hidden()
    _uncovered(page, ".game-links a >> nth=0")


def test_a_play_from_a_stale_page_says_the_game_moved_on_and_shows_the_position_now(
    live_server, open_page, monkeypatch, players
):
    alice, bob = players
    stack_the_deck(monkeypatch, a=A_HAND, b=B_HAND)
    game = start(alice, bob, rules={"first_player": "a"})
    page = _signed_in(open_page, live_server, alice, viewport=PHONE)
    page.route("**/poll/**", lambda route: route.abort())  # a page that missed the news
    page.goto(f"{live_server.url}/games/{game.pk}/")
    # Meanwhile, in another tab, alice plays her chest, and bob answers.
    services.game_play(game=game, user=alice, cards=["a00"], choice=None, expected_version=game.version)
    play(game, ["b07"])

    _play_in_page(page, "a02")

    expect(page.locator(".error.stale")).to_have_text(
        "The game moved on: here is the position now. Nothing was played; choose again."
    )
    expect(page.locator(".news .last-turn").first).to_contain_text("bob, turn 1:")
    assert page.locator('input[name="expected_version"]').get_attribute("value") == str(game.version)
    assert Game.objects.get(pk=game.pk).version == game.version


def test_a_page_showing_your_turn_updates_itself_when_the_turn_is_played_elsewhere(
    live_server, open_page, monkeypatch, players
):
    alice, bob = players
    stack_the_deck(monkeypatch, a=A_HAND, b=B_HAND)
    game = start(alice, bob, rules={"first_player": "a"})
    page = _signed_in(open_page, live_server, alice, viewport=PHONE)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    expect(page.locator(".news .status")).to_contain_text("Your turn")

    # The API's play goes through the same service (tests/games/test_api_games.py).
    token = account_services.token_create(user=alice, name="elsewhere")[1]
    request = urllib.request.Request(
        f"{live_server.url}/api/games/{game.pk}/plays/",
        data=json.dumps({"cards": ["a00"], "expected_version": game.version}).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        assert response.status == 201

    expect(page.locator(".news .status")).to_contain_text("Waiting for your opponent", timeout=15_000)
    expect(page.locator(".news .last-turn").first).to_contain_text("Your turn 1:")


def test_a_turn_can_be_played_with_the_keyboard_alone(live_server, open_page, monkeypatch, players):
    alice, bob = players
    stack_the_deck(monkeypatch, a=A_HAND, b=B_HAND)
    game = start(alice, bob, rules={"first_player": "a"})
    page = _signed_in(open_page, live_server, alice, viewport=DESKTOP)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    chest = page.get_by_role("checkbox", name="Treasure chest 1")

    chest.focus()
    page.keyboard.press("Space")
    outline = page.locator('label.hand-card:has(input[value="a00"]) .card').evaluate(
        "(card) => getComputedStyle(card).outlineStyle"
    )
    page.keyboard.press("Tab")
    while page.evaluate("document.activeElement.id") != "play-button":
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")

    assert outline == "solid"  # the focused card shows it
    expect(page.locator(".news .last-turn").first).to_contain_text(
        "Your turn 1: You played 1 treasure chest (1)."
    )
    assert Game.objects.get(pk=game.pk).to_move == "b"


# Every name of a space, in words: laid out on the nine spaces, each must show whole.
_NAME_PROBLEMS = """() => [...document.querySelectorAll(".board .space")].flatMap((space) => {
    const h3 = space.querySelector("h3");
    const range = document.createRange();
    range.selectNodeContents(h3.firstChild);  // the name (a count for screen readers follows)
    const name = h3.firstChild.textContent.trim();
    const cell = space.getBoundingClientRect();
    const lines = [...range.getClientRects()].filter((r) => r.width > 0);
    const pictures = [...space.querySelectorAll("header > .type-icon, header > .prey")]
        .map((el) => el.getBoundingClientRect());
    const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
        && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const problems = [];
    if (new Set(lines.map((r) => Math.round(r.top))).size > 2) problems.push("more than two lines");
    if (lines.some((r) => r.left < cell.left || r.right > cell.right)) problems.push("beyond its space");
    if (lines.some((r) => pictures.some((p) => meets(r, p)))) problems.push("under a picture");
    const cut = h3.scrollWidth > h3.clientWidth || getComputedStyle(h3).textOverflow === "ellipsis";
    if (cut) problems.push("cut");
    return problems.map((p) => `${name}: ${p}`);
})"""

# The top-left value of every card on the board: what lies on it must be the card itself.
_HIDDEN_VALUES = """() => [...document.querySelectorAll(".board svg.card")].flatMap((card) => {
    const value = card.querySelector("text.value");
    if (!value) return [];  // a ship has no value
    const b = value.getBoundingClientRect();
    const corners = [[b.left + 1, b.top + 1], [b.right - 1, b.top + 1], [b.left + 1, b.bottom - 1],
                     [b.right - 1, b.bottom - 1], [b.left + b.width / 2, b.top + b.height / 2]];
    const hidden = corners.some(([x, y]) => !card.contains(document.elementFromPoint(x, y)));
    return hidden ? [card.getAttribute("aria-label") + " " + card.dataset.card] : [];
})"""


def _crowded_board(alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch) -> Game:
    """Three dwarves, two huntresses, a hero and two ships side by side, alice to move."""
    stack_the_deck(monkeypatch, a=["a23", "a29", "a38", "a44", "a00"], b=["b23", "b38", "b33", "b44", "b00"])
    game = start(alice, bob, rules={"first_player": "a"})
    for card in ["a23", "b23", "a29", "b38", "a38", "b33", "a44", "b44"]:
        play(game, [card])
    return game


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_every_space_name_shows_whole_and_every_card_shows_its_value(
    live_server, open_page, monkeypatch, players, shots, language, size, viewport
):
    alice, bob = players
    game = _crowded_board(alice, bob, monkeypatch)
    page = _signed_in(
        open_page, live_server, alice, viewport=viewport, locale=language, reduced_motion="reduce"
    )
    page.set_extra_http_headers({"Accept-Language": language})
    page.goto(f"{live_server.url}/games/{game.pk}/")
    expect(page.locator(".space-dwarf .slot .card")).to_have_count(3)
    expect(page.locator(".space-huntress .slot .card")).to_have_count(2)

    assert page.evaluate(_NAME_PROBLEMS) == []
    assert page.evaluate(_HIDDEN_VALUES) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shots(page, f"crowded-{size}-{language}")


@pytest.mark.parametrize("language", ["es", "fr", "uk"])
def test_the_space_names_fit_a_phone_in_the_other_languages_too(live_server, open_page, players, language):
    alice, bob = players
    game = start(alice, bob)
    page = _signed_in(open_page, live_server, alice, viewport=PHONE, locale=language)
    page.set_extra_http_headers({"Accept-Language": language})
    page.goto(f"{live_server.url}/games/{game.pk}/")
    expect(page.locator("html")).to_have_attribute("lang", language)

    assert page.evaluate(_NAME_PROBLEMS) == []


def test_the_news_box_tells_whole_sentences_on_a_phone(live_server, open_page, monkeypatch, players):
    alice, bob = players
    stack_the_deck(monkeypatch, a=A_HAND, b=B_HAND)
    game = start(alice, bob, rules={"first_player": "a"})
    play(game, ["a00"])
    play(game, ["b07"])  # bob's fire dragon takes alice's chest: bob's line is the long one
    page = _signed_in(open_page, live_server, bob, viewport=PHONE, reduced_motion="reduce")
    page.goto(f"{live_server.url}/games/{game.pk}/")
    own = page.locator(".news .last-turn.own")

    expect(own).to_contain_text(
        "Your turn 1: You played 1 fire dragon (2). You took 1 card from the treasure chest"
    )
    for line in page.locator(".news .last-turn").all():
        assert line.evaluate(
            "(el) => el.scrollWidth <= el.clientWidth && getComputedStyle(el).textOverflow !== 'ellipsis'"
        )
        assert line.evaluate("(el) => el.scrollHeight <= el.clientHeight + 1")
    _inside(page, ".news", PHONE)


@pytest.mark.parametrize("language", ["en", "de"])
def test_resigning_asks_on_the_page_and_keep_playing_keeps_the_game(
    live_server, open_page, monkeypatch, players, shots, language
):
    alice, bob = players
    game = start(alice, bob)
    page = _signed_in(open_page, live_server, alice, viewport=PHONE, locale=language)
    page.set_extra_http_headers({"Accept-Language": language})
    dialogs: list[str] = []

    def refuse(dialog: Dialog) -> None:  # a browser's own box would fail the test below
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", refuse)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    words = {"en": ("Resign", "Resign this game?"), "de": ("Aufgeben", "Dieses Spiel aufgeben?")}[language]
    question = page.locator(".resign-confirm")
    expect(question).to_be_hidden()

    page.locator("details.resign > summary").get_by_text(words[0], exact=True).click()
    expect(question).to_be_visible()
    expect(question).to_contain_text(words[1])
    _inside(page, ".resign-confirm", {"width": 390, "height": 10_000})
    for target in question.locator("button, a").all():
        assert box(target)["height"] >= 44
    shots(page, f"resign-question-{language}")
    question.locator("a.keep").click()
    expect(question).to_be_hidden()
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE

    page.locator("details.resign > summary").click()
    with page.expect_navigation():
        question.locator("button[type=submit]").click()
    assert dialogs == []  # never the browser's own box
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED


def test_resigning_works_without_javascript(live_server, open_page, players):
    alice, bob = players
    game = start(alice, bob)
    page = _signed_in(open_page, live_server, alice, viewport=PHONE, java_script_enabled=False)
    page.goto(f"{live_server.url}/games/{game.pk}/")

    page.locator("details.resign > summary").click()
    page.locator(".resign-confirm a.keep").click()  # no script: the link reloads the game
    expect(page.locator(".resign-confirm")).to_be_hidden()
    page.locator("details.resign > summary").click()
    page.locator(".resign-confirm button[type=submit]").click()

    expect(page.locator(".resign")).to_have_count(0)
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
