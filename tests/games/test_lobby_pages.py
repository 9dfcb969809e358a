"""The lobby, the new-game form and the waiting page, as the Django test client sees them:
translated choices, fields per opponent, errors beside their field, won and lost, bots named
like players, plurals, and the polls that keep the lobby and the waiting page fresh."""

from __future__ import annotations

import re

import pytest
from django import forms
from django.http import HttpResponse
from django.utils import translation

from games import challenges, services
from games.forms import CreateGameForm
from games.models import Game, shown_name
from games.templatetags.players import outcome_for
from tests.support.tables import play_first_legal, start


@pytest.fixture(autouse=True)
def _english_afterwards():
    # A request in another language leaves that language active in this thread (Django's
    # LocaleMiddleware activates it and nothing deactivates it): later tests expect English.
    yield
    translation.deactivate()


def _html(response: HttpResponse) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def _field_block(page: str, name: str) -> str:
    """The markup of one field of the new-game form, from its wrapper to the next one."""
    start_at = page.index(f'id="id_{name}"')
    begin = page.rindex('<div class="field', 0, start_at)
    return page[begin : page.index("</div>", start_at)]


@pytest.mark.parametrize(
    ("lang", "three_days"),
    [("en", "3 days"), ("de", "3 Tage"), ("es", "3 días"), ("fr", "3 jours"), ("uk", "3 дні")],
)
def test_the_turn_time_choices_are_in_the_language_of_the_page(client, alice, lang, three_days):
    client.force_login(alice)
    page = _html(client.get("/", HTTP_ACCEPT_LANGUAGE=lang))
    assert f'<option value="3" selected>{three_days}</option>' in page


def test_the_turn_time_choices_are_translated_when_shown_not_when_loaded():
    with translation.override("de"):
        field = CreateGameForm().fields["days_per_turn"]
        assert isinstance(field, forms.ChoiceField)
        labels = [str(label) for _value, label in field.choices]  # type: ignore[misc,union-attr]
    assert labels[1:3] == ["1 Tag", "2 Tage"]


def test_each_field_of_the_new_game_form_says_which_opponent_it_is_for(client, alice):
    client.force_login(alice)
    page = _html(client.get("/"))
    assert 'class="field for-user"' in _field_block(page, "username")
    assert 'class="field for-bot"' in _field_block(page, "bot")
    assert 'class="field for-open"' in _field_block(page, "private")
    assert 'class="field for-series"' in _field_block(page, "target")
    assert 'class="field"' in _field_block(page, "preset")


def test_a_missing_username_is_explained_beside_the_username_field(client, alice):
    client.force_login(alice)
    page = _html(client.post("/", {"against": "user", "username": "", "preset": "official"}))
    block = _field_block(page, "username")
    assert '<span class="field-error" id="id_username_error">Name the player you challenge.</span>' in block
    assert 'aria-describedby="id_username_error"' in block
    assert 'aria-invalid="true"' in block


def test_an_unknown_player_is_explained_beside_the_username_field_not_above_the_form(client, alice):
    client.force_login(alice)
    page = _html(client.post("/", {"against": "user", "username": "nobody", "preset": "official"}))
    block = _field_block(page, "username")
    assert "There is no player called &#x27;nobody&#x27;." in block
    assert 'aria-describedby="id_username_error"' in block
    assert 'role="alert"' not in page[page.index('id="new-game"') :]
    assert not Game.objects.exists()


def test_a_series_without_a_number_of_games_is_explained_beside_that_number(client, alice):
    client.force_login(alice)
    body = {"against": "bot", "bot": "medium", "preset": "official", "series": "match", "target": ""}
    page = _html(client.post("/", body))
    assert "Give the number of games." in _field_block(page, "target")


def test_the_computer_needs_no_username(client, alice):
    client.force_login(alice)
    response = client.post("/", {"against": "bot", "bot": "greedy", "preset": "official", "username": ""})
    assert response.status_code == 302
    assert Game.objects.get().bot == "greedy"


def test_finished_games_in_the_lobby_say_who_won(client, alice, bob):
    game = start(alice, bob)
    services.game_resign(game=game, user=bob)
    client.force_login(alice)
    won = _html(client.get("/"))
    client.force_login(bob)
    lost = _html(client.get("/", HTTP_ACCEPT_LANGUAGE="de"))
    assert re.search(r'<li class="game-row won">.*?<span class="outcome">you won</span>', won, re.S)
    assert re.search(r'<li class="game-row lost">.*?<span class="outcome">verloren</span>', lost, re.S)


def test_a_finished_game_without_a_winner_is_a_draw_and_a_spectator_sees_no_outcome(alice, bob, charlie):
    game = start(alice, bob)
    game.status, game.winner = Game.Status.FINISHED, ""
    assert outcome_for(game, alice) == "draw"
    assert outcome_for(game, charlie) == ""
    game.winner = "b"
    assert (outcome_for(game, alice), outcome_for(game, bob)) == ("lost", "won")


def test_bots_are_named_like_players_in_the_lobby_in_every_language(client, alice):
    challenges.game_create(creator=alice, opponent="bot:medium")
    client.force_login(alice)
    english = _html(client.get("/"))
    ukrainian = _html(client.get("/", HTTP_ACCEPT_LANGUAGE="uk"))
    # The row of a game waiting for alice names her opponent as a player would be named.
    assert re.search(r'>against Computer \(medium\) <abbr class="bot-badge"[^>]*>BOT</abbr></a>', english)
    assert "Комп&#x27;ютер (середній)" in ukrainian
    assert "bot:medium" not in english + ukrainian


def test_the_api_keeps_the_bots_machine_name(api, alice):
    challenges.game_create(creator=alice, opponent="bot:strong")
    players = api["alice"].get("/api/games/?mine=1").json()["results"][0]["players"]
    assert players[1]["username"] == "bot:strong"


def test_shown_name_leaves_usernames_as_they_are():
    with translation.override("fr"):
        assert [shown_name("bob"), shown_name(None), shown_name("bot:greedy")] == [
            "bob",
            None,
            "Ordinateur (glouton)",
        ]


@pytest.mark.parametrize(
    ("lang", "counts"),
    [
        ("en", ["1 game waits for your play.", "2 games wait for your play.", "5 games wait for your play."]),
        ("uk", ["1 гра чекає на ваш хід.", "2 гри чекають на ваш хід.", "5 ігор чекають на ваш хід."]),
    ],
)
def test_the_lobbys_news_counts_games_with_the_right_plural(lang, counts):
    with translation.override(lang):
        shown = [
            translation.ngettext("%(n)s game waits for your play.", "%(n)s games wait for your play.", n)
            % {"n": n}
            for n in (1, 2, 5)
        ]
    assert shown == counts


def test_the_waiting_page_counts_days_with_the_right_plural(client, alice, bob):
    one = challenges.game_create(creator=alice, opponent="bob", days_per_turn=1)
    three = challenges.game_create(creator=alice, opponent="bob", days_per_turn=3)
    client.force_login(alice)
    assert "1 day for each turn" in _html(client.get(f"/games/{one.pk}/"))
    assert "3 days for each turn" in _html(client.get(f"/games/{three.pk}/"))


def test_the_waiting_page_names_the_opponent_and_offers_cancel_and_the_lobby(client, alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob")
    client.force_login(alice)
    page = _html(client.get(f"/games/{game.pk}/"))
    assert "Waiting for bob" in page
    assert f'action="/games/{game.pk}/cancel/"' in page
    assert 'href="/">Back to the lobby</a>' in page
    assert f'hx-get="/games/{game.pk}/waiting/?status=challenge"' in page


def test_the_challenged_player_sees_accept_and_decline_but_no_cancel(client, alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob")
    client.force_login(bob)
    page = _html(client.get(f"/games/{game.pk}/"))
    assert "alice challenges you" in page
    assert f'action="/games/{game.pk}/accept/"' in page
    assert f'action="/games/{game.pk}/decline/"' in page
    assert f'action="/games/{game.pk}/cancel/"' not in page


def test_a_spectator_of_a_challenge_is_offered_nothing_to_accept(client, alice, bob, charlie):
    game = challenges.game_create(creator=alice, opponent="bob")
    client.force_login(charlie)
    page = _html(client.get(f"/games/{game.pk}/"))
    assert f'action="/games/{game.pk}/accept/"' not in page


def test_a_declined_challenge_says_so_to_the_challenger(client, alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_decline(game=game, user=bob)
    client.force_login(alice)
    page = _html(client.get(f"/games/{game.pk}/"))
    assert "bob declined the challenge" in page
    assert "hx-get" not in page[page.index("waiting-title") :]


def test_the_waiting_poll_answers_no_content_until_the_challenge_is_accepted(client, alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob")
    client.force_login(alice)
    url = f"/games/{game.pk}/waiting/?status=challenge"
    assert client.get(url).status_code == 204
    challenges.game_accept(game=game, user=bob)
    accepted = client.get(url)
    assert accepted.status_code == 200
    assert accepted["HX-Refresh"] == "true"


def test_the_waiting_poll_reloads_the_page_once_the_challenge_is_declined(client, alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob")
    client.force_login(alice)
    challenges.game_decline(game=game, user=bob)
    assert client.get(f"/games/{game.pk}/waiting/?status=challenge")["HX-Refresh"] == "true"


def test_the_lobby_poll_answers_no_content_while_nothing_changed(client, alice, bob):
    client.force_login(alice)
    page = _html(client.get("/"))
    version = re.search(r'hx-get="/\?lobby=(\w+)"', page)[1]  # type: ignore[index]
    assert client.get(f"/?lobby={version}").status_code == 204


def test_the_lobby_poll_brings_a_new_challenge_and_a_new_version(client, alice, bob):
    client.force_login(alice)
    version = re.search(r'hx-get="/\?lobby=(\w+)"', _html(client.get("/")))[1]  # type: ignore[index]
    game = challenges.game_create(creator=bob, opponent="alice")
    fresh = _html(client.get(f"/?lobby={version}"))
    assert f'action="/games/{game.pk}/accept/"' in fresh
    assert 'id="lobby-challenges" hx-swap-oob="true"' in fresh
    new_version = re.search(r'hx-get="/\?lobby=(\w+)"', fresh)[1]  # type: ignore[index]
    assert new_version != version
    assert client.get(f"/?lobby={new_version}").status_code == 204


def test_the_lobby_poll_notices_when_a_game_becomes_your_turn(client, alice, bob):
    game = start(alice, bob)
    waiting = alice if game.to_move == "b" else bob
    client.force_login(waiting)
    version = re.search(r'hx-get="/\?lobby=(\w+)"', _html(client.get("/")))[1]  # type: ignore[index]
    play_first_legal(game)
    fresh = _html(client.get(f"/?lobby={version}"))
    your_turn = fresh[fresh.index('id="lobby-turns"') : fresh.index('id="lobby-challenges"')]
    assert f'class="button play" href="/games/{game.pk}/"' in your_turn
    assert "<title>(1) Lobby" in fresh
    # The header's link, swapped in place beside the lists.
    link = r'<a href="/" id="nav-games" hx-swap-oob="true" class="nav-games">Your games \(1\)</a>'
    assert re.search(link, fresh)
