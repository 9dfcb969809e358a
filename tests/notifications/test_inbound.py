"""Playing by reply: a reply to a turn email plays the play its first lines name, once, and is
answered; what cannot be played changes nothing and is explained; automatic replies are never
read or answered."""

from __future__ import annotations

import re
import smtplib
import socket
from datetime import timedelta
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller
from django.core import mail
from django.utils import translation

from engine.cards import CARD_TYPE, TYPES
from engine.rules import legal_plays
from games import challenges, event_log, play_links
from games.history import type_name
from games.models import Game, GameEvent
from notifications import inbound
from notifications.models import InboundMail, Preferences
from notifications.smtp import Handler

DOMAIN = "in.dragonheart.test"


@pytest.fixture(autouse=True)
def _inbound_domain(settings):
    settings.INBOUND_EMAIL_DOMAIN = DOMAIN


def _game(alice, bob, capture) -> Game:
    mail.outbox.clear()
    with capture(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob")
        challenges.game_accept(game=game, user=bob)
    return Game.objects.get(pk=game.pk)


def _mover(game: Game, alice, bob):
    return alice if game.to_move == "a" else bob


def _turn_email(user):
    return next(m for m in reversed(mail.outbox) if m.to == [user.email] and m.reply_to)


def _reply(
    turn_email, text: str, *, sender: str | None = None, message_id: str = "<r1@mail.test>"
) -> EmailMessage:
    reply = EmailMessage()
    reply["From"] = sender or turn_email.to[0]
    reply["To"] = turn_email.reply_to[0]
    reply["Subject"] = "Re: " + turn_email.subject
    reply["Message-ID"] = message_id
    quoted = "\n".join("> " + line for line in turn_email.body.splitlines())
    reply.set_content(f"{text}\n\nOn Tue, Dec 1, 2026 at 10:00 AM Dragonheart wrote:\n{quoted}\n")
    return reply


def _plays(game: Game) -> int:
    return GameEvent.objects.filter(game=game, kind="cards_played").count()


def _answers_to(user) -> list[mail.EmailMessage]:
    return [m for m in mail.outbox if m.to == [user.email] and m.extra_headers.get("Auto-Submitted")]


def test_a_turn_email_has_a_signed_reply_address(alice, bob, django_capture_on_commit_callbacks):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    email = _turn_email(_mover(game, alice, bob))
    assert email.reply_to[0].startswith("play+")
    assert email.reply_to[0].endswith("@" + DOMAIN)
    assert len(email.reply_to[0].split("@")[0]) <= 64


def test_a_reply_with_the_number_of_a_listed_play_plays_it_and_is_answered(
    alice, bob, django_capture_on_commit_callbacks
):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    mover = _mover(game, alice, bob)
    email = _turn_email(mover)
    with django_capture_on_commit_callbacks(execute=True):
        outcome = inbound.receive(_reply(email, "1"))
    assert outcome.status == "played"
    assert _plays(game) == 1
    answer = _answers_to(mover)[-1]
    assert "You played" in answer.body


def test_a_reply_delivered_twice_plays_once(alice, bob, django_capture_on_commit_callbacks):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    email = _turn_email(_mover(game, alice, bob))
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound.receive(_reply(email, "1")).status == "played"
        assert inbound.receive(_reply(email, "1")).status == "duplicate"
    assert _plays(game) == 1
    assert InboundMail.objects.count() == 1


@pytest.mark.parametrize("language", ["en", "de", "es", "fr", "uk"])
def test_a_reply_naming_the_cards_plays_them_in_every_language(
    alice, bob, django_capture_on_commit_callbacks, language
):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    mover = _mover(game, alice, bob)
    state = event_log.load_state(game)
    play = legal_plays(state)[-1]
    with translation.override(language):
        words = play_links.play_label(play.cards, play.choice, state.values).replace("→", ",")
    with django_capture_on_commit_callbacks(execute=True):
        outcome = inbound.receive(_reply(_turn_email(mover), words))
    assert outcome.status == "played", (words, outcome)
    played = GameEvent.objects.get(game=game, kind="cards_played").payload
    assert sorted(played["cards"]) == sorted(play.cards)


@pytest.mark.parametrize(
    ("case", "status"),
    [("illegal", "refused"), ("unclear", "refused"), ("foreign", "refused"), ("bad token", "refused")],
)
def test_a_reply_that_cannot_be_played_changes_nothing_and_is_explained(
    alice, bob, charlie, django_capture_on_commit_callbacks, case, status
):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    mover = _mover(game, alice, bob)
    email = _turn_email(mover)
    reply = {
        "illegal": _reply(email, _a_type_not_in_hand(game)),
        "unclear": _reply(email, "hello, how are you?"),
        "foreign": _reply(email, "1", sender=charlie.email),
    }.get(case)
    if case == "bad token":
        reply = _reply(email, "1")
        reply.replace_header("To", email.reply_to[0].replace("play+", "play+9"))
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert reply is not None
        assert inbound.receive(reply).status == status
    assert _plays(game) == 0
    assert [m for m in mail.outbox if m.to == [mover.email]], "an explanation goes out"
    if case in ("illegal", "unclear", "foreign"):
        assert "Nothing was played" in mail.outbox[-1].body
        assert "1. " in mail.outbox[-1].body  # with the legal plays
    if case in ("illegal", "unclear"):
        assert mail.outbox[-1].reply_to == email.reply_to  # and another try is one reply away


def _a_type_not_in_hand(game: Game) -> str:
    state = event_log.load_state(game)
    assert state.to_move is not None
    held = {CARD_TYPE[card] for card in state.hands[state.to_move]}
    return next(type_name(kind) for kind in TYPES if kind not in held)


def test_a_stale_reply_changes_nothing_and_says_the_turn_is_over(
    alice, bob, django_capture_on_commit_callbacks
):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    email = _turn_email(_mover(game, alice, bob))
    with django_capture_on_commit_callbacks(execute=True):
        inbound.receive(_reply(email, "1"))
        mail.outbox.clear()
        outcome = inbound.receive(_reply(email, "2", message_id="<r2@mail.test>"))
    assert outcome.status == "refused"
    assert _plays(game) == 1
    assert "This turn is over" in mail.outbox[-1].body


def test_an_automatic_reply_is_never_read_nor_answered(alice, bob, django_capture_on_commit_callbacks):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    reply = _reply(_turn_email(_mover(game, alice, bob)), "1")
    reply["Auto-Submitted"] = "auto-replied"
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound.receive(reply).status == "ignored"
    assert _plays(game) == 0
    assert mail.outbox == []


def test_a_flood_from_one_sender_is_dropped(alice, bob, settings, django_capture_on_commit_callbacks):
    settings.INBOUND_REPLIES_PER_HOUR = 3
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    email = _turn_email(_mover(game, alice, bob))
    statuses = [
        inbound.receive(_reply(email, "hello", message_id=f"<flood{i}@mail.test>")).status for i in range(5)
    ]
    assert statuses[-1] == "ignored"
    assert InboundMail.objects.count() == 3


def test_the_answer_is_in_the_readers_language(alice, bob, django_capture_on_commit_callbacks):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    mover = _mover(game, alice, bob)
    Preferences.objects.update_or_create(user=mover, defaults={"language": "de"})
    with django_capture_on_commit_callbacks(execute=True):
        inbound.receive(_reply(_turn_email(mover), "1"))
    answer = _answers_to(mover)[-1]
    assert "Du hast" in answer.body
    assert not re.search(r"\b(Fire dragon|Treasure chest|Dwarf|Princess|Hero|Ship)\b", str(answer.body))
    assert answer.subject.startswith("Gespielt gegen")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.django_db(transaction=True)
def test_a_reply_through_the_smtp_server_plays_once(alice, bob):
    game = _game(alice, bob, _immediately)
    mover = _mover(game, alice, bob)
    email = _turn_email(mover)
    controller = Controller(Handler(), hostname="127.0.0.1", port=_free_port())
    controller.start()
    try:
        with smtplib.SMTP(controller.hostname, controller.port) as client:
            for _ in range(2):  # delivered twice
                client.send_message(_reply(email, "1"))
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                client.sendmail(mover.email, ["someone@elsewhere.test"], "Subject: x\n\nhi")
    finally:
        controller.stop()
    assert _plays(game) == 1
    assert InboundMail.objects.get().outcome == "played"
    assert "You played" in _answers_to(mover)[-1].body


class _immediately:
    """Stands in for django_capture_on_commit_callbacks where commits are real."""

    def __init__(self, execute: bool = True) -> None:
        pass

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


# --- no reply lost between servers: a failure in between, a server that died, two servers -------


def test_a_reply_whose_play_failed_is_played_on_its_next_delivery(
    alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    from django.db import OperationalError

    from games import services

    game = _game(alice, bob, django_capture_on_commit_callbacks)
    mover = _mover(game, alice, bob)
    email = _turn_email(mover)
    play = services.game_play

    def database_gone(**kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(services, "game_play", database_gone)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(OperationalError):
        inbound.receive(_reply(email, "1"))  # recorded, then the play fails: the SMTP server says 451
    assert _plays(game) == 0
    assert InboundMail.objects.get().outcome == inbound.RECEIVED

    monkeypatch.setattr(services, "game_play", play)
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound.receive(_reply(email, "1")).status == "played"  # the sender's retry
    assert _plays(game) == 1
    assert InboundMail.objects.get().outcome == "played"
    assert "You played" in _answers_to(mover)[-1].body


def test_a_reply_recorded_by_a_server_that_died_is_played_on_a_later_delivery(
    alice, bob, django_capture_on_commit_callbacks
):
    from django.utils import timezone

    game = _game(alice, bob, django_capture_on_commit_callbacks)
    email = _turn_email(_mover(game, alice, bob))
    reply = _reply(email, "1")
    # A server recorded the reply and died before its play: its claim is left behind.
    InboundMail.objects.create(
        message_id=reply["Message-ID"],
        sender=email.to[0],
        outcome=inbound.RECEIVED,
        claimed_at=timezone.now(),
    )
    with pytest.raises(inbound.Busy):
        inbound.receive(reply)  # a retry while that claim may still be at work: try later
    stale = timezone.now() - inbound.CLAIM_TIMEOUT - timedelta(seconds=1)
    InboundMail.objects.update(claimed_at=stale)
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound.receive(reply).status == "played"
    assert _plays(game) == 1


def test_two_servers_given_the_same_reply_play_it_once(
    alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    from games import services

    game = _game(alice, bob, django_capture_on_commit_callbacks)
    email = _turn_email(_mover(game, alice, bob))
    play = services.game_play
    second: list[str] = []

    def with_a_second_server(**kwargs):
        # The same message reaches another inbound server while this one plays it.
        try:
            second.append(inbound.receive(_reply(email, "1")).status)
        except inbound.Busy:
            second.append("busy")
        return play(**kwargs)

    monkeypatch.setattr(services, "game_play", with_a_second_server)
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound.receive(_reply(email, "1")).status == "played"
        assert second == ["busy"]
        assert inbound.receive(_reply(email, "1")).status == "duplicate"  # that server's retry
    assert _plays(game) == 1


def test_the_play_and_the_replys_record_commit_together(
    alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    from notifications import answers

    game = _game(alice, bob, django_capture_on_commit_callbacks)
    email = _turn_email(_mover(game, alice, bob))

    class Gone(Exception):
        pass

    def dies(*args, **kwargs):
        raise Gone("the process died between the play and the reply's record")

    monkeypatch.setattr(answers, "send_played", dies)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(Gone):
        inbound.receive(_reply(email, "1"))
    assert _plays(game) == 0  # rolled back with the record: the next delivery plays it
    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        assert inbound.receive(_reply(email, "1")).status == "played"
    assert _plays(game) == 1


def test_the_smtp_server_asks_to_try_again_while_another_server_has_the_reply(monkeypatch):
    import asyncio
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    from notifications import smtp

    def busy(content, recipients):
        raise inbound.Busy("<r1@mail.test>")

    monkeypatch.setattr(smtp, "_received", busy)
    envelope = SimpleNamespace(original_content=b"Subject: x\r\n\r\n1\r\n", content=None, rcpt_tos=[])
    # A thread of its own, as aiosmtpd's server runs it: the browser tests leave an event
    # loop running in this thread, where asyncio.run refuses.
    with ThreadPoolExecutor(1) as thread:
        answer = thread.submit(asyncio.run, Handler().handle_DATA(None, None, envelope)).result()
    assert answer.startswith("451 ")
