"""Notes only you can read and a word with your move, in Chromium: alice writes a note and
plays with a message; bob (her opponent) and charlie (watching) open the game page, the history
and (bob) the turn email. The note's text is searched for in everything they get and never
found; bob reads the message, charlie never does; bob mutes alice and it is gone. After her
play alice is offered "Next game (1 waiting)"."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from engine import legal_plays
from games import event_log
from games.models import Game
from notifications import emails
from outbox.models import Notification
from tests.e2e.test_history import DESKTOP, PHONE, log_in, people  # noqa: F401  (a fixture)
from tests.support.tables import start

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "zebra-secret-7f3a bob holds two trolls"
WORD = "<b>gg</b> nice voyage 91c2"


def _play_in_page(page: Page, game: Game, message: str) -> None:
    """Pick the first legal play that asks no question, type the message, play."""
    state = event_log.load_state(Game.objects.get(pk=game.pk))
    play = next(p for p in legal_plays(state) if p.choice is None and p.cards)
    for card in play.cards:
        page.locator(f'label.hand-card:has(input[value="{card}"])').click()
    page.get_by_text("Add a word to your move").click()  # folded among the links
    page.get_by_label("A word with your move (optional)").fill(message)
    page.locator("#play-button").click()


def _read(page: Page, url: str) -> str:
    page.goto(url)
    return page.content()


def test_notes_stay_private_and_the_message_reaches_the_opponent_only(
    live_server,
    open_page,
    people: dict[str, Any],  # noqa: F811
    shots,
):
    game = start(people["alice"], people["bob"], rules={"first_player": "a"})  # alice to move
    other = start(people["charlie"], people["alice"], rules={"first_player": "b"})  # waits for alice
    base, game_url = live_server.url, f"{live_server.url}/games/{game.pk}/"

    alice = log_in(open_page, base, "alice", PHONE)
    alice.goto(game_url)
    alice.locator("#notes-text").fill(SECRET)
    alice.get_by_role("button", name="Save notes").click()
    expect(alice.locator("#notes-status")).to_have_text("Your notes are saved.")
    _play_in_page(alice, game, WORD)
    next_game = alice.get_by_role("link", name="Next game (1 waiting)")
    expect(next_game).to_be_visible()
    expect(next_game).to_have_attribute("href", f"/games/{other.pk}/")
    box = next_game.bounding_box()
    assert box is not None
    assert box["height"] >= 44
    expect(alice.locator("#notes-text")).to_have_value(SECRET)  # kept after the play
    shots(alice, "notes-after-play-phone")

    bob = log_in(open_page, base, "bob", DESKTOP)
    bob_page = _read(bob, game_url)
    expect(bob.locator(".news .said-text")).to_have_text(WORD)  # as text: never markup
    assert "<b>gg</b>" not in bob_page
    shots(bob, "message-opponent-desktop")
    bob_history = _read(bob, f"{game_url}history/?turn=1")
    expect(bob.locator(".current .said-text")).to_have_text(WORD)
    note = Notification.objects.filter(user=people["bob"], game=game, kind="your_turn").latest("pk")
    email = emails.email_for(note)
    for text in (bob_page, bob_history, email.body, str(email.alternatives[0][0])):
        assert SECRET not in text
    assert WORD in email.body
    assert "&lt;b&gt;gg&lt;/b&gt; nice voyage 91c2" in str(email.alternatives[0][0])

    charlie = log_in(open_page, base, "charlie", PHONE)
    for url in (game_url, f"{game_url}history/?turn=1", f"{game_url}history/"):
        text = _read(charlie, url)
        assert SECRET not in text
        assert "91c2" not in text
    expect(charlie.locator(".said")).to_have_count(0)

    bob.goto(game_url)
    bob.get_by_role("button", name="Mute alice's messages").click()
    expect(bob.locator(".news .said-text")).to_have_count(0)
    expect(bob.get_by_role("button", name="Unmute")).to_be_visible()
    assert "91c2" not in bob.content()
    assert "91c2" not in _read(bob, f"{game_url}history/?turn=1")
    shots(bob, "message-muted-desktop")


def test_the_history_shows_the_readers_own_notes_beside_it(live_server, open_page, people, shots):  # noqa: F811
    game = start(people["alice"], people["bob"], rules={"first_player": "a"})
    alice = log_in(open_page, live_server.url, "alice", DESKTOP)
    alice.goto(f"{live_server.url}/games/{game.pk}/history/")

    alice.locator("#notes-text").fill(SECRET)
    alice.get_by_role("button", name="Save notes").click()

    expect(alice.locator("#notes-status")).to_have_text("Your notes are saved.")
    alice.reload()
    expect(alice.locator("#notes-text")).to_have_value(SECRET)
    shots(alice, "notes-history-desktop")
    bob: Any = log_in(open_page, live_server.url, "bob", DESKTOP)
    assert SECRET not in _read(bob, f"{live_server.url}/games/{game.pk}/history/")
