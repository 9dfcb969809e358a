"""The front door, as the Django test client sees it: the signed-out home page shows a board in
play and two ways in; sign-up carries the way chosen to the lobby, which welcomes a player
without games with a game against the computer one tap away; the lobby says who challenged
whom, for how long a turn, and explains a provisional rating."""

from __future__ import annotations

import re

from django.test import Client

from games import challenges
from games.models import Game
from tests.support.api_plays import CARD_WORD
from tests.support.tables import start

PASSWORD = "a long enough passphrase"


def _sign_up(client: Client, then: str = "") -> str:
    body = {"username": "dora", "password1": PASSWORD, "password2": PASSWORD, "then": then}
    answer = client.post("/accounts/signup/", body)
    assert answer.status_code == 302, answer.content.decode()[-2000:]
    return answer["Location"]


def test_the_signed_out_home_page_shows_a_board_in_play_and_two_ways_in(db):
    page = Client().get("/").content.decode()
    board = page[page.index('<div class="board"') :]
    assert len(re.findall(r'<svg class="card card-', board)) >= 6  # cards lie on the board
    assert 'href="/accounts/signup/?then=computer">Play the computer now</a>' in page
    assert 'href="/accounts/signup/?then=friend">Challenge a friend</a>' in page
    assert 'href="/how-to-play/"' in page
    # The made-up game's cards carry no ids: nothing on the page reads as a real game's card.
    assert CARD_WORD.findall(page) == []
    # The API is for programs: in the footer, not the header.
    header = page[page.index('<header class="top">') : page.index("</header>")]
    footer = page[page.index('<footer class="bottom">') :]
    assert "/api/docs/" not in header
    assert "/api/docs/" in footer


def test_the_sign_up_form_says_the_password_rules_once_in_words(db):
    page = Client().get("/accounts/signup/?then=computer").content.decode()
    assert page.count("At least 8 characters") == 1
    assert "<ul>" not in page[page.index("<form") : page.index("</form>")]  # not Django's list
    assert 'name="then" value="computer"' in page
    assert "Sign up and play" in page


def test_after_signing_up_for_the_computer_one_tap_starts_a_game_with_the_first_turn_yours(db):
    client = Client()
    assert _sign_up(client, "computer") == "/"
    lobby = client.get("/").content.decode()
    assert "Welcome, dora!" in lobby
    assert 'action="/play-computer/"' in lobby
    answer = client.post("/play-computer/")
    game = Game.objects.get()
    assert answer["Location"] == f"/games/{game.pk}/"
    assert (game.bot, game.status, game.to_move) == ("medium", "active", "a")
    assert game.player_a is not None
    assert game.player_a.username == "dora"
    # With a game, the welcome has done its work.
    assert "Welcome, dora!" not in client.get("/").content.decode()


def test_after_signing_up_for_a_friend_the_new_game_form_has_a_friend_chosen(db):
    client = Client()
    target = _sign_up(client, "friend")
    assert target == "/?against=user#new-game"
    form = client.get(target).content.decode()
    assert re.search(r'<input type="radio" name="against" value="user"[^>]* checked', form)


def test_an_invitation_link_still_brings_the_new_player_back_to_it(db):
    client = Client()
    body = {"username": "dora", "password1": PASSWORD, "password2": PASSWORD, "next": "/invite/abc/"}
    assert client.post("/accounts/signup/", {**body, "then": "computer"})["Location"] == "/invite/abc/"


def test_play_computer_only_by_post(client, alice):
    client.force_login(alice)
    assert client.get("/play-computer/").status_code == 405
    assert not Game.objects.exists()


def test_a_challenge_says_who_challenged_whom_the_time_per_turn_and_if_rated(client, alice, bob):
    challenges.game_create(creator=alice, opponent="bob", days_per_turn=3)
    client.force_login(bob)
    received = client.get("/").content.decode()
    assert "alice challenges you" in received
    assert "3 days a turn · rated" in received
    client.force_login(alice)
    sent = client.get("/").content.decode()
    assert "You challenged bob" in sent
    assert "sent just now" in sent


def test_a_provisional_rating_is_explained_where_it_shows(client, alice, bob):
    client.force_login(bob)
    assert "is provisional" not in client.get("/").content.decode()  # no rating beside a name
    challenges.game_create(creator=alice, opponent="bob", days_per_turn=3)
    page = client.get("/").content.decode()
    assert re.search(r'<span class="rating"[^>]*>1500\?</span>', page)
    assert "is provisional" in page


def test_a_game_waiting_for_you_names_the_opponent_and_the_time_left(client, alice, bob):
    game = start(alice, bob, days_per_turn=2)
    mover = alice if game.to_move == "a" else bob
    other = "bob" if mover == alice else "alice"
    client.force_login(mover)
    turns = client.get("/").content.decode()
    turns = turns[turns.index('id="lobby-turns"') : turns.index('id="lobby-challenges"')]
    assert f"against {other}" in turns
    assert "your move since just now" in turns
    # Django's timesince joins a number and its unit with a no-break space.
    assert re.search(r"<strong>(1\sday,\s23\shours|2\sdays) left</strong>", turns)
