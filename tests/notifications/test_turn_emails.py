"""The "your turn" email: one per turn, to the right player, showing only what they may see."""

from __future__ import annotations

import html
import re
import smtplib
from datetime import timedelta

import pytest
from django.core import mail
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.utils import timezone

from engine.cards import CARD_TYPE, CARD_VALUES
from games import challenges
from games.models import Game
from games.templatetags.games_extras import card_label
from notifications import preferences, tasks
from notifications import services as notifications
from notifications.models import Preferences
from outbox import services as outbox
from outbox.models import Notification
from tests.support.api_plays import hidden_ids, play_first_legal, shown_ids
from tests.support.tables import snapshot

VALUES = CARD_VALUES["standard"]


def _started(alice, bob, capture) -> Game:
    with capture(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob")
        challenges.game_accept(game=game, user=bob)
    return Game.objects.get(pk=game.pk)


def _turn_mails():
    return [m for m in mail.outbox if "Your turn" in m.subject]


def _mover(game, alice, bob):
    return (alice, bob) if game.to_move == "a" else (bob, alice)


def test_the_first_player_is_told_it_is_their_turn(alice, bob, django_capture_on_commit_callbacks):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _mover(game, alice, bob)
    assert [m.to for m in _turn_mails()] == [[mover.email]]
    assert waiting.username in _turn_mails()[0].subject


def test_a_play_sends_exactly_one_email_to_the_player_whose_turn_it_becomes(
    api, alice, bob, django_capture_on_commit_callbacks
):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _mover(game, alice, bob)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert play_first_legal(api[mover.username], game.pk).status_code == 201
    assert [m.to for m in mail.outbox] == [[waiting.email]]
    message = mail.outbox[0]
    assert "Your turn" in message.subject
    assert mover.username in message.subject
    assert f"/games/{game.pk}/" in message.body
    assert "Since your last turn" in message.body
    html = _html_part(message)
    assert f"/games/{game.pk}/" in html


def test_a_task_run_twice_sends_one_email(alice, bob, django_capture_on_commit_callbacks):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    note = Notification.objects.get(game=game, kind="your_turn")
    mail.outbox.clear()
    assert tasks.send_notification(note.pk) is False  # already sent on commit
    assert mail.outbox == []
    assert Notification.objects.get(pk=note.pk).attempts == 1


def test_the_email_shows_the_players_own_hand_and_no_hidden_card(
    api, alice, bob, django_capture_on_commit_callbacks
):
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _mover(game, alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        play_first_legal(api[mover.username], game.pk)
    message = _turn_mails()[-1]
    seat = "a" if waiting == alice else "b"
    secret = hidden_ids(game.pk, seat)
    for text in (message.subject, message.body, _html_part(message)):
        assert not shown_ids(text, secret)
    hand = snapshot(Game.objects.get(pk=game.pk))["hands"][seat]
    faces = sorted(card_label({"type": CARD_TYPE[c], "value": VALUES[c]}) for c in hand)
    shown = message.body.split("Your hand:\n")[1].split("\n\n")[0]
    cards = [name.strip() for line in shown.splitlines() for name in line.removeprefix("- ").split(",")]
    assert sorted(cards) == faces  # own cards as the edition names them, nothing else


def test_every_email_has_one_click_unsubscribe_and_it_works(
    client, alice, bob, django_capture_on_commit_callbacks
):
    _started(alice, bob, django_capture_on_commit_callbacks)
    message = _turn_mails()[0]
    url = message.extra_headers["List-Unsubscribe"].strip("<>")
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    recipient = alice if message.to == [alice.email] else bob
    assert client.get(url).status_code == 200  # a confirmation page: link scanners change nothing
    assert preferences.preferences_of(recipient).email_mode == Preferences.Mode.EVERY_TURN
    assert client.post(url, {"List-Unsubscribe": "One-Click"}).status_code == 200
    assert preferences.preferences_of(recipient).email_mode == Preferences.Mode.NONE


def test_a_forged_unsubscribe_link_changes_nothing(client, alice):
    assert client.post("/unsubscribe/not-a-signed-token/").status_code == 400


def test_a_player_who_wants_no_email_gets_none_and_the_log_says_why(
    alice, bob, django_capture_on_commit_callbacks
):
    Preferences.objects.update_or_create(user=alice, defaults={"email_mode": Preferences.Mode.NONE})
    Preferences.objects.update_or_create(user=bob, defaults={"email_mode": Preferences.Mode.NONE})
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    assert mail.outbox == []
    assert set(Notification.objects.filter(game=game).values_list("skipped", flat=True)) == {"preferences"}


def test_no_email_goes_out_for_a_turn_already_played(
    api, alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(outbox, "queue_delivery", lambda note_id: None)  # the worker is slow
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, _ = _mover(game, alice, bob)
    play_first_legal(api[mover.username], game.pk)
    first = Notification.objects.filter(game=game, kind="your_turn").order_by("pk").first()
    assert first is not None
    assert notifications.deliver(first.pk) is False
    assert Notification.objects.get(pk=first.pk).skipped == "turn already played"
    assert mail.outbox == []


def test_after_an_outage_a_backlog_of_turn_rows_sends_only_the_open_turns_email(
    api, alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(outbox, "queue_delivery", lambda note_id: None)  # no broker
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    for _ in range(8):  # each player has had four turns announced, none delivered
        mover, _ = _mover(Game.objects.get(pk=game.pk), alice, bob)
        assert play_first_legal(api[mover.username], game.pk).status_code == 201
    game = Game.objects.get(pk=game.pk)
    on_turn, _ = _mover(game, alice, bob)
    backlog = Notification.objects.filter(game=game, kind="your_turn", user=on_turn)
    assert backlog.count() >= 4
    for note_id in outbox.pending(older_than=timedelta(0)):  # the sweep, once it is back
        notifications.deliver(note_id)
    assert [m.to for m in _turn_mails()] == [[on_turn.email]]
    assert Notification.objects.get(game=game, key=f"{game.pk}:{game.version}").sent_at is not None
    assert set(backlog.exclude(key=f"{game.pk}:{game.version}").values_list("skipped", flat=True)) == {
        "turn already played"
    }


def test_a_vacation_recorded_after_the_turn_began_leaves_its_email_due(
    api, alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    from games import vacations

    monkeypatch.setattr(outbox, "queue_delivery", lambda note_id: None)
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    mover, waiting = _mover(game, alice, bob)
    assert play_first_legal(api[mover.username], game.pk).status_code == 201
    vacations.vacation_start(user=mover, days=3)  # an event after the turn row, not a play
    note = Notification.objects.get(game=game, kind="your_turn", user=waiting)
    assert notifications.deliver(note.pk) is True
    assert [m.to for m in _turn_mails()] == [[waiting.email]]


def test_an_smtp_failure_releases_the_row_for_a_retry(
    alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(outbox, "queue_delivery", lambda note_id: None)
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    note = Notification.objects.get(game=game, kind="your_turn")

    def refuse(*args, **kwargs):
        raise smtplib.SMTPServerDisconnected("the server went away")

    monkeypatch.setattr("django.core.mail.EmailMultiAlternatives.send", refuse)
    with pytest.raises(smtplib.SMTPException):
        notifications.deliver(note.pk)
    failed = Notification.objects.get(pk=note.pk)
    assert (failed.sent_at, failed.claimed_at, failed.last_error) == (None, None, "the server went away")
    monkeypatch.undo()
    assert notifications.deliver(note.pk) is True
    assert len(mail.outbox) == 1


def test_a_play_succeeds_with_the_broker_down_and_the_sweep_sends_the_email_later(
    api, alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    def broker_down(*args, **kwargs):
        raise OSError("connection refused")

    monkeypatch.setattr(tasks.send_notification, "apply_async", broker_down)
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    assert mail.outbox == []
    monkeypatch.undo()
    Notification.objects.update(created_at=timezone.now() - timedelta(hours=1))

    assert tasks.sweep_outbox() == 3  # challenge, accepted, your turn
    assert len(mail.outbox) == 3
    assert not Notification.objects.filter(game=game, sent_at__isnull=True).exists()


def test_the_profile_shows_the_send_log(client, alice, bob, django_capture_on_commit_callbacks):
    _started(alice, bob, django_capture_on_commit_callbacks)
    message = _turn_mails()[0]
    recipient = alice if message.to == [alice.email] else bob
    client.force_login(recipient)
    page = client.get("/accounts/profile/").content.decode()
    assert html.escape(message.subject) in page


def test_a_row_claimed_by_a_worker_that_died_is_sent_once_after_the_claim_goes_stale(
    alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(outbox, "queue_delivery", lambda note_id: None)
    game = _started(alice, bob, django_capture_on_commit_callbacks)
    note = Notification.objects.get(game=game, kind="your_turn")
    assert outbox.claim(note.pk)  # a worker takes it ... and dies before sending
    assert notifications.deliver(note.pk) is False  # a fresh claim is respected
    assert note.pk not in outbox.pending(older_than=timedelta(0))

    stale = timezone.now() - outbox.CLAIM_TIMEOUT - timedelta(seconds=1)
    Notification.objects.filter(pk=note.pk).update(claimed_at=stale)
    assert note.pk in outbox.pending(older_than=timedelta(0))
    assert notifications.deliver(note.pk) is True
    assert notifications.deliver(note.pk) is False
    assert len(_turn_mails()) == 1


def test_the_email_is_written_in_the_players_language(alice, bob, django_capture_on_commit_callbacks):
    Preferences.objects.update_or_create(user=alice, defaults={"language": "de"})
    Preferences.objects.update_or_create(user=bob, defaults={"language": "de"})
    _started(alice, bob, django_capture_on_commit_callbacks)
    message = [m for m in mail.outbox if "Du bist am Zug" in m.subject]
    assert len(message) == 1
    assert "Fahrten 0/3" in message[0].subject
    body = message[0].body
    assert "Deine Hand:" in body
    assert "Die Karten sind gemischt und verteilt" in body  # the history lines too
    assert "Nachziehstapel" in body
    assert not re.search(
        r"\b(chest|fire_dragon|stone_dragon|princess|troll|dwarf|hero|huntress|ship)\b", str(body)
    )


@pytest.mark.parametrize("tail", [1, 3, 40])
def test_since_your_last_turn_is_the_same_whatever_part_of_the_log_is_read_first(
    api, alice, bob, django_capture_on_commit_callbacks, monkeypatch, tail
):
    from notifications import emails

    game = _started(alice, bob, django_capture_on_commit_callbacks)
    for _ in range(6):
        mover, _waiting = _mover(game, alice, bob)
        with django_capture_on_commit_callbacks(execute=True):
            assert play_first_legal(api[mover.username], game.pk).status_code == 201
        game.refresh_from_db()
    reader = _mover(game, alice, bob)[0]
    monkeypatch.setattr(emails, "RECENT_EVENTS", 10**6)  # the whole log
    whole = emails.turn_context(game, reader)["since"]

    monkeypatch.setattr(emails, "RECENT_EVENTS", tail)

    assert whole  # the opponent's last turn, at least its play and its end
    assert emails.turn_context(game, reader)["since"] == whole


def test_the_challenge_email_links_to_the_challenge_which_can_be_answered_there(
    client, alice, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob")
    (message,) = mail.outbox
    assert message.to == [bob.email]
    link = re.search(r"https?://\S+/games/(\S+?)/", str(message.body))
    assert link is not None
    assert link.group(1) == game.pk
    assert f"/games/{game.pk}/" in _html_part(message)
    client.force_login(bob)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f"/games/{game.pk}/accept/" in page
    assert f"/games/{game.pk}/decline/" in page


def test_a_turn_played_while_its_email_is_drawn_gets_no_email(api, alice, bob, monkeypatch):
    from django.db import transaction

    from notifications import emails

    with transaction.atomic():  # its rows written, nothing sent yet
        game = challenges.game_create(creator=alice, opponent="bob")
        challenges.game_accept(game=game, user=bob)
    game = Game.objects.get(pk=game.pk)
    note = Notification.objects.get(game=game, kind="your_turn")
    mover, _ = _mover(game, alice, bob)
    drawn = emails.email_for

    def drawn_while_the_turn_is_played(row):
        message = drawn(row)
        assert play_first_legal(api[mover.username], game.pk).status_code == 201
        return message

    monkeypatch.setattr(emails, "email_for", drawn_while_the_turn_is_played)
    mail.outbox.clear()

    assert notifications.deliver(note.pk) is False
    assert _turn_mails() == []
    assert Notification.objects.get(pk=note.pk).skipped == "turn already played"


def _html_part(message: EmailMessage) -> str:
    assert isinstance(message, EmailMultiAlternatives)
    return str(message.alternatives[0][0])
