"""Bot accounts: POST /api/account/bot/ turns an account that has played no game into a bot,
once and for good; a second call, or one from an account that sits in a game, answers 409."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as UserModel
from rest_framework import status

from accounts import bots
from accounts.models import BotAccount
from games import challenges
from tests.support.tables import play_to_end, start

pytestmark = pytest.mark.django_db
URL = "/api/account/bot/"


def _fresh(user):
    return UserModel.objects.get(pk=user.pk)


def test_it_turns_the_requesters_account_into_a_bot(api, alice):
    response = api["alice"].post(URL)
    assert response.status_code == status.HTTP_200_OK
    assert response.json() == {"username": "alice", "is_bot": True}
    assert bots.is_bot(_fresh(alice))


def test_a_second_call_answers_409_already_bot(api, alice):
    api["alice"].post(URL)
    response = api["alice"].post(URL)
    assert response.status_code == status.HTTP_409_CONFLICT
    assert response.json()["code"] == "already_bot"
    assert BotAccount.objects.filter(user=alice).count() == 1


def test_an_account_that_has_played_answers_409_has_played(api, alice, bob):
    play_to_end(start(alice, bob))
    response = api["alice"].post(URL)
    assert response.status_code == status.HTTP_409_CONFLICT
    assert response.json()["code"] == "has_played"
    assert not bots.is_bot(_fresh(alice))


def test_a_waiting_challenge_counts_and_the_answer_says_to_cancel_it(api, alice, bob):
    game = challenges.game_create(creator=bob, opponent="alice")
    response = api["alice"].post(URL)
    assert response.status_code == status.HTTP_409_CONFLICT
    assert response.json()["code"] == "has_played"
    assert "cancel or decline" in response.json()["detail"]
    challenges.game_decline(game=game, user=alice)
    assert api["alice"].post(URL).status_code == status.HTTP_200_OK


def test_an_open_challenge_of_ones_own_counts(api, alice):
    challenges.game_create(creator=alice, opponent=None)
    assert api["alice"].post(URL).json()["code"] == "has_played"


def test_a_game_in_progress_counts_and_the_answer_does_not_say_to_cancel_it(api, alice, bob):
    start(alice, bob)
    detail = api["alice"].post(URL).json()["detail"]
    assert "cancel" not in detail
    assert "new account" in detail


def test_the_switch_cannot_be_undone(api, alice):
    api["alice"].post(URL)
    assert api["alice"].delete(URL).status_code == status.HTTP_405_METHOD_NOT_ALLOWED
    assert bots.is_bot(_fresh(alice))


def test_it_needs_a_signed_in_account(api):
    assert api["anon"].post(URL).status_code in (status.HTTP_401_UNAUTHORIZED, status.HTTP_403_FORBIDDEN)
    assert not BotAccount.objects.exists()


def test_make_bot_refuses_a_bot_with_a_409_service_error(alice):
    bots.make_bot(alice)
    with pytest.raises(bots.AlreadyBot) as refused:
        bots.make_bot(_fresh(alice))
    assert refused.value.kind == "conflict"
    assert refused.value.code == "already_bot"


def test_is_bot_is_false_for_anonymous_users_and_people(alice):
    assert not bots.is_bot(AnonymousUser())
    assert not bots.is_bot(None)
    assert not bots.is_bot(alice)


def test_bot_user_ids_picks_the_bots_in_one_query(alice, bob, charlie, django_assert_num_queries):
    bots.make_bot(bob)
    with django_assert_num_queries(1):
        assert bots.bot_user_ids([alice.pk, bob.pk, charlie.pk, None]) == {bob.pk}


def test_a_user_loaded_with_its_bot_account_asks_no_more(alice, django_assert_num_queries):
    bots.make_bot(alice)
    loaded = UserModel.objects.select_related("bot_account").get(pk=alice.pk)
    with django_assert_num_queries(0):
        assert bots.is_bot(loaded)
