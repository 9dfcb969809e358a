"""An email (or a push) that names a bot says it is one: "botty (BOT)" in the subject, the text
and the HTML, as the pages badge it (issue 27, "Bots marked"); a person's name stays bare."""

from __future__ import annotations

import pytest
from django.core import mail
from django.core.mail import EmailMessage

from accounts import bots as bot_accounts
from games import challenges, services
from games.models import Game
from notifications import push
from outbox.models import Notification


def _parts(message) -> list[str]:
    return [message.subject, message.body, *(content for content, _type in message.alternatives)]


def _mails_to(user) -> list[EmailMessage]:
    return [m for m in mail.outbox if m.to == [user.email]]


@pytest.fixture
def botty(make_user):
    user = make_user("botty")
    bot_accounts.make_bot(user)
    return user


def test_a_challenge_from_a_bot_account_says_it_comes_from_a_bot(
    alice, botty, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        challenges.game_create(creator=botty, opponent="alice")
    [challenge] = _mails_to(alice)
    assert challenge.subject.startswith("botty (BOT) challenges you")
    for part in _parts(challenge):
        assert "botty (BOT)" in part


def test_the_turn_and_the_end_of_a_game_against_a_bot_name_it_a_bot(
    alice, botty, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        game = challenges.game_create(creator=alice, opponent="botty", rules={"first_player": "a"})
        challenges.game_accept(game=game, user=botty)
    with django_capture_on_commit_callbacks(execute=True):  # the turn's email goes while it is open
        services.game_resign(game=Game.objects.get(pk=game.pk), user=botty)
    subjects = [m.subject for m in _mails_to(alice)]
    assert any(s.startswith("Your turn against botty (BOT)") for s in subjects), subjects
    assert "Your game against botty (BOT) is over" in subjects
    over = next(m for m in _mails_to(alice) if m.subject.endswith("is over"))
    assert "alice won" in over.body  # the winner is a person: no mark
    assert "alice (BOT)" not in " ".join(_parts(over))


def test_a_push_names_a_bot_as_the_email_does(alice, botty, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = challenges.game_create(creator=alice, opponent="botty", rules={"first_player": "a"})
        challenges.game_accept(game=game, user=botty)
    note = Notification.objects.get(user=alice, game_id=game.pk, kind=Notification.Kind.YOUR_TURN)
    assert "botty (BOT)" in push.payload(note)["title"]


def test_emails_between_people_mark_nobody(alice, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob")
        challenges.game_accept(game=game, user=bob)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game=Game.objects.get(pk=game.pk), user=bob)
    assert len(mail.outbox) >= 4  # the challenge, its acceptance, a turn, the end
    for message in mail.outbox:
        for part in _parts(message):
            assert "(BOT)" not in part
