"""Bots are rated apart from people: a game between a bot account and a person is never rated,
a game between two bot accounts is rated as one between two people, and each kind has its own
leaderboard. Bots may challenge bots."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import bots
from core.errors import Forbidden, InvalidRequest
from games import challenges
from games.models import Game
from ratings.models import Rating
from tests.support.clients import client_for
from tests.support.tables import play_to_end, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def droid(make_bot_account):
    return make_bot_account("droid")


def _established(user, rating: float) -> None:
    now = timezone.now()
    Rating.objects.create(
        user=user,
        rating=rating,
        deviation=70,
        volatility=0.06,
        games=8,
        rated_at=now,
        fifth_last_at=now - timedelta(days=3),
    )


def test_a_challenge_between_a_person_and_a_bot_is_casual_even_with_a_clock(alice, robo):
    assert not challenges.game_create(creator=alice, opponent="robo", days_per_turn=3).rated
    assert not challenges.game_create(creator=robo, opponent="alice", days_per_turn=3).rated


def test_asking_to_rate_a_game_between_a_person_and_a_bot_is_refused(alice, robo):
    with pytest.raises(InvalidRequest) as refused:
        challenges.game_create(creator=alice, opponent="robo", days_per_turn=3, rated=True)
    assert refused.value.code == "rated_apart"
    assert not Game.objects.exists()


def test_the_api_refuses_a_rated_challenge_to_a_bot_with_400(api, robo):
    response = api["alice"].post(
        "/api/games/", {"opponent": "robo", "days_per_turn": 3, "rated": True}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "rated_apart"


def test_a_game_between_two_bots_is_rated_and_changes_their_ratings(robo, droid):
    game = start(robo, droid, days_per_turn=3)
    assert game.rated
    play_to_end(game)
    assert Rating.objects.get(user=robo).games == 1
    assert Rating.objects.get(user=droid).games == 1


def test_a_finished_game_between_a_bot_and_a_person_rates_nobody(alice, robo):
    play_to_end(start(alice, robo, days_per_turn=3))
    assert not Rating.objects.filter(user__in=[alice, robo], games__gt=0).exists()


def test_a_bot_may_challenge_a_bot_through_the_api(robo, droid):
    response = client_for(robo).post("/api/games/", {"opponent": "droid"}, format="json")
    assert response.status_code == 201
    game = Game.objects.get(pk=response.json()["id"])
    assert client_for(droid).post(f"/api/games/{game.pk}/accept/").status_code == 200
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


def test_a_rated_open_challenge_of_a_person_cannot_be_taken_by_a_bot(alice, robo):
    game = challenges.game_create(creator=alice, opponent=None, days_per_turn=3)
    assert game.rated
    with pytest.raises(Forbidden) as refused:
        challenges.game_accept(game=game, user=robo)
    assert refused.value.code == "rated_apart"
    assert Game.objects.get(pk=game.pk).status == Game.Status.OPEN


def test_a_rated_open_challenge_of_a_bot_cannot_be_taken_by_a_person(alice, robo):
    game = challenges.game_create(creator=robo, opponent=None, days_per_turn=3)
    with pytest.raises(Forbidden):
        challenges.game_accept(game=game, user=alice)


def test_a_rated_open_challenge_of_a_bot_is_taken_by_a_bot(robo, droid):
    game = challenges.game_create(creator=robo, opponent=None, days_per_turn=3)
    assert challenges.game_accept(game=game, user=droid).rated


def test_a_casual_open_challenge_is_taken_by_either_kind(alice, robo):
    game = challenges.game_create(creator=alice, opponent=None)
    assert not game.rated
    assert challenges.game_accept(game=game, user=robo).status == Game.Status.ACTIVE


def test_a_rated_challenge_to_a_player_who_became_a_bot_meanwhile_is_not_accepted(alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob", days_per_turn=3)
    bots.make_bot(bob)  # as a switch racing the challenge would (the API refuses it after)
    with pytest.raises(Forbidden):
        challenges.game_accept(game=game, user=bob)


def test_the_peoples_leaderboard_leaves_bots_out_and_the_bots_has_only_bots(client, alice, robo):
    _established(alice, 1600)
    _established(robo, 1700)
    people = APIClient().get("/api/leaderboard/").json()
    machines = APIClient().get("/api/bots/leaderboard/").json()
    assert [(r["username"], r["is_bot"]) for r in people] == [("alice", False)]
    assert [(r["rank"], r["username"], r["is_bot"], r["rating"]) for r in machines] == [
        (1, "robo", True, 1700)
    ]


def test_the_bots_page_ranks_bots_and_the_players_page_does_not(client, alice, robo):
    _established(alice, 1600)
    _established(robo, 1700)
    bots_page = client.get("/bots/").content.decode()
    people_page = client.get("/players/").content.decode()
    assert 'href="/players/robo/"' in bots_page
    assert 'href="/players/alice/"' not in bots_page
    assert 'href="/players/alice/"' in people_page
    assert 'href="/players/robo/"' not in people_page
