"""A bot account plays only through the API: the pages' forms, an email's play link and a reply
by email refuse it and play nothing; it gets no game emails (it has the account stream); it
may still read the pages, and play through the API."""

from __future__ import annotations

from email.message import EmailMessage

import pytest
from django.core import mail

from games import challenges, play_links
from games.models import Game, GameEvent
from notifications import inbound
from notifications.reply_addresses import reply_address
from outbox.models import Notification
from tests.support.api_plays import ordinary_play
from tests.support.clients import client_for
from tests.support.tables import play_first_legal, snapshot, start

pytestmark = pytest.mark.django_db
REFUSAL = "it plays only through the API"


@pytest.fixture
def robos_turn(alice, robo) -> Game:
    """A casual game of alice against the bot robo, robo to move."""
    game = start(alice, robo)
    if game.player(game.to_move) != robo:
        play_first_legal(game)
    return Game.objects.get(pk=game.pk)


def _signed_in(client, user):
    client.force_login(user)
    return client


def _events(game: Game) -> int:
    return GameEvent.objects.filter(game=game).count()


def _refused(response) -> None:
    assert response.status_code == 403
    assert REFUSAL in response.content.decode()


def test_the_play_form_refuses_a_bot_and_plays_nothing(client, robos_turn, robo):
    before = _events(robos_turn)
    card = snapshot(robos_turn)["hands"][robos_turn.to_move][0]
    form = {"cards": [card], "choice": "chests", "expected_version": robos_turn.version}
    _refused(_signed_in(client, robo).post(f"/games/{robos_turn.pk}/play/", form))
    assert _events(robos_turn) == before


def test_the_resign_button_refuses_a_bot(client, robos_turn, robo):
    _refused(_signed_in(client, robo).post(f"/games/{robos_turn.pk}/resign/"))
    assert Game.objects.get(pk=robos_turn.pk).status == Game.Status.ACTIVE


def test_the_accept_and_decline_buttons_refuse_a_bot(client, alice, robo):
    game = challenges.game_create(creator=alice, opponent="robo")
    page = _signed_in(client, robo)
    _refused(page.post(f"/games/{game.pk}/accept/"))
    _refused(page.post(f"/games/{game.pk}/decline/"))
    assert Game.objects.get(pk=game.pk).status == Game.Status.CHALLENGE


def test_an_invitation_link_refuses_a_bot(client, alice, robo):
    game = challenges.game_create(creator=alice, opponent=None)
    _refused(_signed_in(client, robo).post(f"/invite/{game.invite_token}/"))
    assert Game.objects.get(pk=game.pk).status == Game.Status.OPEN


def test_the_lobby_refuses_a_bots_new_game(client, robo):
    page = _signed_in(client, robo)
    _refused(page.post("/", {"against": "bot", "bot": "medium"}))
    _refused(page.post("/play-computer/"))
    assert not Game.objects.exists()


def test_a_bot_still_reads_its_pages(client, robos_turn, robo):
    page = _signed_in(client, robo)
    assert page.get(f"/games/{robos_turn.pk}/").status_code == 200
    assert page.get("/").status_code == 200


def test_a_bot_plays_through_the_api(robos_turn, robo):
    response = client_for(robo).post(
        f"/api/games/{robos_turn.pk}/plays/", ordinary_play(robos_turn.pk), format="json"
    )
    assert response.status_code == 201
    assert Game.objects.get(pk=robos_turn.pk).version > robos_turn.version


def test_a_play_link_refuses_a_bot_and_plays_nothing(client, robos_turn, robo):
    token = play_links.link_token(user=robo, game=robos_turn, version=robos_turn.version, index=0)
    before = _events(robos_turn)
    _refused(client.get(f"/play/{token}/"))
    _refused(client.post(f"/play/{token}/"))
    assert _events(robos_turn) == before


def test_a_bot_gets_no_game_email(alice, robo, django_capture_on_commit_callbacks):
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        game = challenges.game_create(creator=alice, opponent="robo")
        challenges.game_accept(game=game, user=robo)
    assert not [m for m in mail.outbox if m.to == [robo.email]]
    notes = Notification.objects.filter(user=robo, channel=Notification.Channel.EMAIL)
    assert notes.exists()
    assert set(notes.values_list("skipped", flat=True)) == {"bot account"}


def test_a_reply_by_email_from_a_bot_is_refused_and_answered(
    settings, robos_turn, robo, django_capture_on_commit_callbacks
):
    settings.INBOUND_EMAIL_DOMAIN = "in.dragonheart.test"
    note = Notification.objects.filter(user=robo, game=robos_turn, kind="your_turn").latest("pk")
    reply = EmailMessage()
    reply["From"] = robo.email
    reply["To"] = reply_address(note)
    reply["Subject"] = "Re: your turn"
    reply["Message-ID"] = "<bot-reply@mail.test>"
    reply.set_content("1\n")
    before = _events(robos_turn)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        outcome = inbound.receive(reply)
    assert outcome.status == "refused"
    assert _events(robos_turn) == before
    [answer] = [m for m in mail.outbox if m.to == [robo.email]]
    assert REFUSAL in answer.body
