"""No secret and no hidden card in the logs. Two players play several turns through the API,
with a failed login, wrong plays, a throttled request and an unknown game, under the logging
configuration production loads (settings.LOGGING, read by a production process) at its most
talkative, LOG_LEVEL=DEBUG; everything its console handler would print is then searched for
every card that was hidden when the game began, the API tokens, the passwords, SECRET_KEY and
the salt of the game's deal commitment.

What the configuration must guarantee: SQL is never logged. Django logs each query with its
parameters (django.db.backends, DEBUG) whenever settings.DEBUG is on or a test captures
queries, and those parameters carry the cached game state (both hands, both piles) and token
digests; LOGGING pins that logger to INFO whatever LOG_LEVEL says.
"""

from __future__ import annotations

import io
import logging
import logging.config
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.db import connections
from rest_framework.throttling import ScopedRateThrottle

from engine.cards import SEATS
from games import event_log
from games.models import Game
from tests.support.api_plays import play_first_legal
from tests.support.production import production_settings
from tests.support.world import PASSWORD, World

WRONG_PASSWORD = "not-the-dragon-99"
TURNS = 8


@pytest.fixture(scope="module")
def production_logging() -> dict[str, Any]:
    config: dict[str, Any] = production_settings(LOG_LEVEL="DEBUG")["LOGGING"]
    return config


@pytest.fixture
def log(production_logging) -> Iterator[io.StringIO]:
    """What production's handlers print, configured as production configures them."""
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    named = list(production_logging.get("loggers", {}))
    saved_levels = {name: logging.getLogger(name).level for name in named}
    logging.config.dictConfig(production_logging)
    printed = io.StringIO()
    for handler in root.handlers:
        assert isinstance(handler, logging.StreamHandler)
        handler.setStream(printed)
    yield printed
    for handler in root.handlers[:]:
        root.removeHandler(handler)
    root.handlers[:] = saved_handlers
    root.setLevel(saved_level)
    for name, level in saved_levels.items():
        logging.getLogger(name).setLevel(level)


def hidden_at_the_start(game: Game) -> set[str]:
    """Every card in a hand or a pile: each was hidden from someone, and every card hidden
    later in the game is one of them."""
    state = event_log.load_state(Game.objects.get(pk=game.pk))
    return {card for seat in SEATS for card in (*state.hands[seat], *state.piles[seat])}


def play_a_while(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Several turns, and on the way every kind of refusal."""
    alice, bob, anon = world.api("alice"), world.api("bob"), world.api(None)
    game_id = world.active.pk
    plays = f"/api/games/{game_id}/plays/"
    world.browser(None).post("/accounts/login/", {"username": "alice", "password": WRONG_PASSWORD})
    anon.post("/api/tokens/", {"username": "bob", "password": WRONG_PASSWORD}, format="json")
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "tokens", "1/minute")
    for _ in range(2):  # the second one is throttled
        anon.post("/api/tokens/", {"username": "bob", "password": PASSWORD}, format="json")
    for turn in range(TURNS):
        mover, waiter = (alice, bob) if turn % 2 == 0 else (bob, alice)
        version = mover.get(f"/api/games/{game_id}/").json()["version"]
        for client, cards, refusal in ((waiter, "a01", 403), (mover, "z99", 400)):
            body = {"cards": [cards], "expected_version": version}
            assert client.post(plays, body, format="json").status_code == refusal
        assert play_first_legal(mover, game_id).status_code == 201
        waiter.get(f"/api/games/{game_id}/events/?after=0")
    assert anon.get(f"/api/games/{game_id}/").status_code == 401
    assert alice.get("/api/games/no-such-game/").status_code == 404
    world.browser("bob").get(f"/games/{game_id}/")


def secrets_in(text: str, world: World, hidden: set[str]) -> dict[str, list[str]]:
    words = set(re.findall(r"(?<![\w#-])[ab]\d\d(?![\w-])", text))  # as tests/games/test_hidden_cards.py
    found = {
        "hidden cards": sorted(words & hidden),
        "tokens": [name for name, key in world.keys.items() if key in text],
        "passwords": [p for p in (PASSWORD, WRONG_PASSWORD) if p in text],
        "SECRET_KEY": ["SECRET_KEY"] if settings.SECRET_KEY in text else [],
        "deal salt": ["deal salt"] if Game.objects.get(pk=world.active.pk).deal_salt in text else [],
    }
    return {kind: values for kind, values in found.items() if values}


def test_the_production_log_level_is_debug_here(log):
    """The search below is made at the most talkative level production can be given."""
    logging.getLogger("games.anything").debug("a debug line")

    assert "a debug line" in log.getvalue()


def test_no_secret_or_hidden_card_reaches_the_production_log(world, log, monkeypatch):
    hidden = hidden_at_the_start(world.active)

    play_a_while(world, monkeypatch)

    text = log.getvalue()
    assert "Unauthorized: /api/games/" in text  # the refusals were logged, and read here
    assert secrets_in(text, world, hidden) == {}


def test_sql_stays_out_of_the_production_log_even_with_debug_on(world, log, monkeypatch):
    """settings.DEBUG (a staging site) makes Django log every query: the config drops them."""
    hidden = hidden_at_the_start(world.active)
    monkeypatch.setattr(connections["default"], "force_debug_cursor", True)

    play_a_while(world, monkeypatch)

    text = log.getvalue()
    assert "SELECT" not in text
    assert secrets_in(text, world, hidden) == {}


def test_the_search_finds_hidden_cards_in_logged_sql(world, log, monkeypatch):
    """The searches above can fail: with the SQL logger let down to DEBUG, the cached state
    in the queries' parameters shows the hidden cards."""
    hidden = hidden_at_the_start(world.active)
    monkeypatch.setattr(connections["default"], "force_debug_cursor", True)
    sql = logging.getLogger("django.db.backends")
    pinned = sql.level
    sql.setLevel(logging.DEBUG)
    try:
        play_a_while(world, monkeypatch)
    finally:
        sql.setLevel(pinned)

    assert "hidden cards" in secrets_in(log.getvalue(), world, hidden)
