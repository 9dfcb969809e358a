"""No response of any endpoint shows a card its requester may not see, during a game: not to
the opponent, not to a spectator, not to an anonymous client; nor the salt of the deal's
commitment, which would let anyone try the few orders left late in a game. The secret cards are taken from
the server's own state (helpers.hidden_ids), never from a response."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from engine.cards import ALL_CARDS
from games.models import Game, GameEvent
from tests.support.api_plays import hidden_ids, leaked
from tests.support.tables import footprint, play, play_first_legal, snapshot, stack_the_deck, start

# A card id standing alone: not inside a game id, invite token or CSRF token (all [A-Za-z0-9_-]),
# nor a CSS colour (#a00).
CARD_ID = re.compile(r"(?<![\w#-])[ab]\d\d(?![\w-])")
SEATS = {"alice": "a", "bob": "b", "charlie": None, "anon": None}


def _dragon_lost_with_a_card_put_back(monkeypatch: Any, alice: Any, bob: Any) -> Game:
    """Bob wins the dragon, then Alice takes it from him while he holds six cards: he puts
    one back on his pile, which only he may know (RULES.md R1.7.4)."""
    stack_the_deck(monkeypatch, a=["a11", "a12", "a16", "a23", "a24"], b=["b16", "b23", "b24", "b25", "b26"])
    game = start(alice, bob, rules={"first_player": "a"})
    play(game, ["a11"])  # a petrified dragon
    play(game, ["b16"], "stones")  # bob takes it and the dragon from the board
    play(game, ["a12"])  # another petrified dragon
    play(game, ["b23"])  # bob now holds six cards
    play(game, ["a16"], "stones")  # alice takes the dragon from bob
    return game


def _last_transfer(game: Game) -> dict[str, Any] | None:
    event = GameEvent.objects.filter(game=game, kind="dragon_transferred").order_by("-seq").first()
    return event.payload if event is not None else None


def _put_back(game: Game) -> str | None:
    last = _last_transfer(game)
    return last["returned"] if last is not None else None


@pytest.fixture(params=["at the deal", "in the middle of the game", "after the dragon changed hands"])
def running(request, monkeypatch, api, alice, bob):
    if request.param == "after the dragon changed hands":
        return _dragon_lost_with_a_card_put_back(monkeypatch, alice, bob)
    game = start(alice, bob)
    for _ in range(12 if request.param == "in the middle of the game" else 0):
        play_first_legal(game)
    return game


@pytest.fixture
def people(alice, bob, charlie):
    return {"alice": alice, "bob": bob, "charlie": charlie, "anon": None}


def _browser(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _every_response(
    api: dict[str, Any], people: dict[str, Any], name: str, game: Game
) -> list[tuple[str, Any]]:
    """(what, response) for every endpoint ``name`` can call on a running game, refusals too."""
    client, url = api[name], f"/api/games/{game.pk}/"
    stale = {"cards": [], "expected_version": 0}
    current = {"cards": ["z99"], "expected_version": game.version}
    calls = [
        ("view", client.get(url)),
        ("events", client.get(f"{url}events/?after=0&limit=500")),
        ("list", client.get("/api/games/")),
        ("my list", client.get("/api/games/?mine=1&status=active")),
        ("record", client.get(f"{url}record/")),
        ("stale play", client.post(f"{url}plays/", stale, format="json")),
        ("illegal play", client.post(f"{url}plays/", current, format="json")),
        ("malformed play", client.post(f"{url}plays/", "{", content_type="application/json")),
        *[(action, client.post(f"{url}{action}/")) for action in ("accept", "decline", "cancel", "rematch")],
    ]
    if SEATS[name] is None:  # a seated player's resignation would end the game
        calls.append(("resign", client.post(f"{url}resign/")))
    browser = _browser(people[name])
    calls += [("game page", browser.get(f"/games/{game.pk}/")), ("home page", browser.get("/"))]
    return calls


def _secret(game: Game, name: str) -> set[str]:
    seat = SEATS[name]
    secret = hidden_ids(game.pk, seat)
    last = _last_transfer(game)
    if seat is not None and last is not None and last["from"] == seat:
        # The loser knows the card he put on his own pile (drawn again on his next turn).
        secret.discard(last["returned"])
    return secret


def _card_ids(response: Any) -> set[str]:
    return set(CARD_ID.findall(response.content.decode()))


@pytest.mark.parametrize("name", ["alice", "bob", "charlie", "anon"])
def test_no_endpoint_shows_anyone_a_card_they_may_not_see(api, people, running, name):
    secret = _secret(running, name)
    before = footprint(running)

    salt = Game.objects.get(pk=running.pk).deal_salt  # opens the deal's commitment: secret too

    for what, response in _every_response(api, people, name, running):
        assert not _card_ids(response) & secret, (
            f"{name}'s {what} ({response.status_code}) shows hidden cards"
        )
        assert salt not in response.content.decode(), f"{name}'s {what} shows the deal's salt"
        if response.get("Content-Type", "").startswith("application/json"):
            assert not leaked(response.json(), secret), f"{name}'s {what} shows hidden cards"

    assert secret
    assert len(salt) == 64
    assert footprint(running) == before


def test_the_scan_finds_the_cards_a_player_may_see_in_their_own_responses(api, people, running):
    hand = {c["id"] for c in api["alice"].get(f"/api/games/{running.pk}/").json()["hand"]}
    responses = dict(_every_response(api, people, "alice", running))

    assert len(hand) >= 5  # six with the dragon
    assert hand <= ALL_CARDS
    assert hand <= _card_ids(responses["view"])
    assert hand <= _card_ids(responses["game page"])
    assert leaked(responses["view"].json(), hand) == hand


def test_only_the_loser_of_the_dragon_sees_which_card_he_put_back(api, monkeypatch, alice, bob):
    game = _dragon_lost_with_a_card_put_back(monkeypatch, alice, bob)
    put_back = _put_back(game)

    seen = {
        name: [
            e
            for e in api[name].get(f"/api/games/{game.pk}/events/").json()["results"]
            if e["kind"] == "dragon_transferred"
        ][-1]
        for name in ("alice", "bob", "charlie")
    }

    assert put_back in {"b24", "b25", "b26", "b00", "b01", "b02"}  # one of bob's six cards
    assert seen["bob"]["returned"] == put_back
    assert (seen["alice"]["returned"], seen["alice"]["returned_count"]) == (None, 1)
    assert (seen["charlie"]["returned"], seen["charlie"]["returned_count"]) == (None, 1)


def test_the_card_put_back_is_on_top_of_the_losers_pile_where_nobody_else_sees_it(monkeypatch, alice, bob):
    game = _dragon_lost_with_a_card_put_back(monkeypatch, alice, bob)

    put_back = _put_back(game)

    assert put_back in hidden_ids(game.pk, "a")
    assert put_back in hidden_ids(game.pk, None)
    assert snapshot(game)["piles"]["b"][0] == put_back


def _region(html: str, pattern: str) -> str:
    return "".join(re.findall(pattern, html, re.S))


@pytest.mark.parametrize("name", ["alice", "bob", "charlie"])
def test_the_last_turn_and_its_animation_show_no_hidden_card(people, running, name):
    """The words of the last turns (a draw, the card put back) and the cards the page flies
    from the board to a taker's panel are built from the log: scanned here on their own."""
    html = _browser(people[name]).get(f"/games/{running.pk}/").content.decode()
    news = _region(html, r'<section class="news".*?</section>')
    flights = _region(html, r'<div class="flight".*?</div>')
    secret = _secret(running, name)

    assert 'class="last-turn' in news or running.version <= 1
    assert not set(CARD_ID.findall(news)) & secret, f"{name}'s last turn names hidden cards"
    assert not set(CARD_ID.findall(flights)) & secret, f"{name}'s capture animation shows hidden cards"
    assert not set(CARD_ID.findall(html)) & secret


def test_the_capture_animation_carries_only_cards_that_lay_on_the_board(monkeypatch, alice, bob):
    game = _dragon_lost_with_a_card_put_back(monkeypatch, alice, bob)
    html = _browser(alice).get(f"/games/{game.pk}/").content.decode()
    flown = set(CARD_ID.findall(_region(html, r'<div class="flight".*?</div>')))

    rows = GameEvent.objects.filter(game=game, kind="cards_captured")
    captured = {card for row in rows for card in row.payload["cards"]}
    assert flown == {"a12"}  # alice's last princess took the petrified dragon lying there
    assert flown <= captured
    put_back = _put_back(game)
    assert put_back is not None
    assert put_back not in CARD_ID.findall(html)
