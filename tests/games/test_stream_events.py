"""What each change writes to its players' account streams (games/stream_events.py): the kinds,
whom they reach, their order, and a ``your_turn`` whose view is the body the API gives."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User

from accounts import services as account_services
from engine import events as ev
from games import challenges, event_log, services, vacations
from games.models import Game
from outbox.models import AccountEvent
from tests.support.clients import client_for
from tests.support.tables import play_first_legal, play_to_end, start, to_move, waiting

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice() -> User:
    return account_services.user_create(username="alice", password="dragon-heart-42")


@pytest.fixture
def bob() -> User:
    return account_services.user_create(username="bob", password="dragon-heart-42")


def events_of(user: User) -> list[tuple[int, str, dict[str, Any]]]:
    rows = AccountEvent.objects.filter(user=user).order_by("seq")
    return [(row.seq, row.kind, json.loads(row.data)) for row in rows]


def kinds(user: User) -> list[str]:
    return [kind for _, kind, _ in events_of(user)]


def test_a_challenge_reaches_the_challenged_and_the_challengers_own_stream(alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob", days_per_turn=3)
    [(_, kind, told)] = events_of(bob)
    assert kind == "challenge"
    assert told["game_id"] == game.pk
    assert told["direction"] == "in"
    assert told["challenger"] == {"username": "alice", "is_bot": False, "rating": 1500}
    assert told["challenged"]["username"] == "bob"
    assert (told["rated"], told["days_per_turn"]) == (True, 3)
    assert told["rules"] == game.options
    [(_, kind, own)] = events_of(alice)
    assert (kind, own["direction"]) == ("challenge", "out")


def test_an_open_challenge_reaches_only_its_creator(alice, bob):
    challenges.game_create(creator=alice, opponent=None)
    assert kinds(alice) == ["challenge"]
    assert kinds(bob) == []


@pytest.mark.parametrize(
    ("answer", "reason"),
    [("decline", "declined"), ("cancel", "cancelled")],
)
def test_a_challenge_answered_is_gone_for_both(alice, bob, answer, reason):
    game = challenges.game_create(creator=alice, opponent="bob")
    if answer == "decline":
        challenges.game_decline(game=game, user=bob)
    else:
        challenges.game_cancel(game=game, user=alice)
    for user in (alice, bob):
        (_, kind, data) = events_of(user)[-1]
        assert (kind, data) == ("challenge_gone", {"game_id": game.pk, "reason": reason})


def test_an_accepted_challenge_is_gone_then_started_then_the_first_player_is_told(alice, bob):
    game = start(alice, bob)
    first, second = to_move(game), waiting(game)
    assert kinds(first) == ["challenge", "challenge_gone", "game_start", "your_turn"]
    assert kinds(second) == ["challenge", "challenge_gone", "game_start"]
    _, _, started = events_of(second)[2]
    assert started["seat"] == game.seat_of(second)
    assert started["opponent"] == {"username": first.username, "is_bot": False}
    # Ids count each account's events from 1, with no gap.
    assert [seq for seq, _, _ in events_of(first)] == [1, 2, 3, 4]


def test_each_play_tells_the_player_to_move_with_the_view_the_api_gives(alice, bob):
    game = start(alice, bob)
    for _ in range(4):
        play_first_legal(game)
        game.refresh_from_db()
        player = to_move(game)
        _, kind, told = events_of(player)[-1]
        assert kind == "your_turn"
        assert told["version"] == game.version
        answer = client_for(player).get(f"/api/games/{game.pk}/")
        assert told["view"] == answer.json()
        assert told["deadline"] == answer.json()["deadline"]
        assert told["view"]["legal_plays"]


def test_a_your_turn_shows_no_card_of_the_opponents_hand(alice, bob):
    game = start(alice, bob)
    play_first_legal(game)
    game.refresh_from_db()
    player, other = to_move(game), waiting(game)
    seat = game.seat_of(other)
    assert seat is not None
    hidden = event_log.load_state(game).hands[seat]
    assert hidden
    row = AccountEvent.objects.filter(user=player, kind="your_turn").latest("seq")
    for card in hidden:
        assert f'"{card}"' not in row.data


def test_the_end_tells_both_players_the_result(alice, bob):
    game = start(alice, bob)
    play_to_end(game)
    game.refresh_from_db()
    for user in (alice, bob):
        _, kind, told = events_of(user)[-1]
        assert kind == "game_over"
        assert told["scores"] == game.scores
        assert told["result"]["winner"] == (game.winner or None)
        assert told["result"]["reason"] == game.end_reason
    # The play that ended the game announced no turn: each your_turn names a version before the end.
    turns = AccountEvent.objects.filter(kind="your_turn", game_id=game.pk)
    assert max(json.loads(row.data)["version"] for row in turns) < game.version


def test_a_resignation_tells_both_and_announces_no_turn(alice, bob):
    game = start(alice, bob)
    before = AccountEvent.objects.filter(kind="your_turn").count()
    services.game_resign(game=game, user=waiting(game))
    assert AccountEvent.objects.filter(kind="your_turn").count() == before
    assert kinds(alice)[-1] == kinds(bob)[-1] == "game_over"


def test_a_game_against_the_site_bot_tells_only_the_person(alice):
    game = challenges.game_create(creator=alice, opponent="bot:random", rules={"first_player": "a"})
    assert kinds(alice) == ["game_start", "your_turn"]
    _, _, started = events_of(alice)[0]
    assert started["opponent"] == {"username": "bot:random", "is_bot": True}
    assert AccountEvent.objects.exclude(user=alice).count() == 0
    assert game.pk == events_of(alice)[1][2]["game_id"]


def test_a_vacation_is_no_new_turn(alice, bob):
    game = start(alice, bob)
    player = to_move(game)
    before = kinds(player)
    vacations.vacation_start(user=player, days=3)
    game.refresh_from_db()
    assert Game.objects.get(pk=game.pk).version > 1  # the vacation was logged…
    assert event_log.read_events(game)[-1].kind == ev.VACATION_STARTED
    assert kinds(player) == before  # …and announced no turn
