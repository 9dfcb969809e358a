"""Playing from an email by link: opening it never plays, confirming plays once, and a stale,
foreign or tampered link changes nothing and says why."""

from __future__ import annotations

import re

import pytest
from django.core import mail, signing
from django.test import Client

from games import challenges, play_links, services
from games.models import Game, GameEvent
from tests.support.api_plays import hidden_ids, ordinary_play, shown_ids


@pytest.fixture
def game(alice, bob) -> Game:
    started = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=started, user=bob)
    return Game.objects.get(pk=started.pk)


def _mover(game: Game, alice, bob):
    return alice if game.to_move == "a" else bob


def _link(game: Game, user, index: int = 0) -> str:
    return f"/play/{play_links.link_token(user=user, game=game, version=game.version, index=index)}/"


def _written(game: Game) -> int:
    return GameEvent.objects.filter(game=game).count()


def _csrf_client() -> Client:
    return Client(enforce_csrf_checks=True)


def _confirm(client: Client, url: str):
    page = client.get(url)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
    assert token, "the confirm page carries a CSRF token"
    return client.post(url, {"csrfmiddlewaretoken": token[1]})


def test_opening_a_link_shows_the_play_and_plays_nothing(game, alice, bob):
    url = _link(game, _mover(game, alice, bob))
    before = _written(game)
    page = Client().get(url)
    assert page.status_code == 200
    assert "Confirm: play it" in page.content.decode()
    assert _written(game) == before
    assert Game.objects.get(pk=game.pk).version == game.version


def test_confirming_plays_once_however_often_it_is_sent(game, alice, bob):
    url = _link(game, _mover(game, alice, bob))
    client = _csrf_client()
    first = _confirm(client, url)
    assert first.status_code == 200
    assert "Played" in first.content.decode()
    after_first = _written(game)
    again = client.post(url, {"csrfmiddlewaretoken": client.cookies["csrftoken"].value})
    assert again.status_code == 200  # the same play, answered again
    assert _written(game) == after_first
    assert GameEvent.objects.filter(game=game, kind="cards_played").count() == 1


def test_a_link_of_a_turn_that_is_over_changes_nothing(game, alice, bob):
    mover = _mover(game, alice, bob)
    url = _link(game, mover)
    play = ordinary_play(game.pk)
    services.game_play(game=game, user=mover, **play)
    before = _written(game)
    assert Client().get(url).status_code == 409
    answer = _confirm_without_page(url)
    assert answer.status_code == 409
    assert "This turn is over" in answer.content.decode()
    assert _written(game) == before


def _confirm_without_page(url: str):
    return Client().post(url)  # no CSRF check in the test client by default


def test_a_tampered_link_changes_nothing(game, alice, bob):
    url = _link(game, _mover(game, alice, bob))
    token = url.split("/")[2]
    forged = f"/play/{token[:-3]}{'abc' if not token.endswith('abc') else 'xyz'}/"
    before = _written(game)
    for answer in (Client().get(forged), Client().post(forged)):
        assert answer.status_code == 400
        assert "This link is not valid" in answer.content.decode()
    assert _written(game) == before


def test_a_link_opened_by_another_signed_in_player_changes_nothing(game, alice, bob, charlie):
    url = _link(game, _mover(game, alice, bob))
    other = Client()
    other.force_login(charlie)
    before = _written(game)
    assert other.get(url).status_code == 403
    assert other.post(url).status_code == 403
    assert _written(game) == before


def test_a_link_for_the_player_not_on_turn_changes_nothing(game, alice, bob):
    waiting = bob if game.to_move == "a" else alice
    before = _written(game)
    assert Client().post(_link(game, waiting)).status_code == 400
    assert _written(game) == before


def test_a_link_naming_no_play_of_the_turn_changes_nothing(game, alice, bob):
    url = _link(game, _mover(game, alice, bob), index=999)
    before = _written(game)
    for answer in (Client().get(url), Client().post(url)):
        assert answer.status_code == 400
    assert _written(game) == before


def test_a_link_names_no_card(game, alice, bob):
    token = _link(game, _mover(game, alice, bob)).split("/")[2]
    payload = signing.loads(token, salt=play_links.SALT)
    assert set(payload) == {"u", "g", "v", "i"}


def test_the_link_page_shows_no_card_its_reader_may_not_see(game, alice, bob):
    mover = _mover(game, alice, bob)
    page = Client().get(_link(game, mover)).content.decode()
    seat = "a" if mover == alice else "b"
    assert not shown_ids(page, hidden_ids(game.pk, seat))


def test_a_turn_email_lists_the_legal_plays_as_links_that_play(
    alice, bob, django_capture_on_commit_callbacks
):
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        started = challenges.game_create(creator=alice, opponent="bob")
        challenges.game_accept(game=started, user=bob)
    game = Game.objects.get(pk=started.pk)
    mover = _mover(game, alice, bob)
    email = next(m for m in mail.outbox if m.to == [mover.email] and "Your turn" in m.subject)
    links = re.findall(r"^\d+\. (.+): (http\S+/play/\S+/)$", str(email.body), re.M)
    assert links, email.body
    assert all(not re.search(r"\b[ab]\d\d\b", label) for label, _ in links)  # names, not ids
    path = "/" + links[0][1].split("/", 3)[3]
    answer = _confirm(_csrf_client(), path)
    assert answer.status_code == 200
    assert links[0][0].split(" → ")[0] in answer.content.decode()
    assert GameEvent.objects.filter(game=game, kind="cards_played").count() == 1
