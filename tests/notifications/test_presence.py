"""No "your turn" email while its reader is at the table: held while they poll, sent once they
have been gone for the hold if the turn is still theirs, never if they played. Time is moved
by rewriting the stored timestamps, never slept."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.core import mail
from django.utils import timezone

from accounts import presence
from games import challenges, services
from games.models import Game
from notifications import services as delivery
from notifications import tasks
from outbox.models import Notification
from tests.support.api_plays import ordinary_play
from tests.support.celery_worker import wait_for


def _started(alice, bob) -> Game:
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    return Game.objects.get(pk=game.pk)


def _turn_emails_to(user) -> list[mail.EmailMessage]:
    return [m for m in mail.outbox if m.to == [user.email] and "turn" in m.subject.lower()]


def _play(game: Game, user) -> None:
    game.refresh_from_db()
    services.game_play(game=game, user=user, **ordinary_play(game.pk))


def _players(game: Game, alice, bob):
    return (alice, bob) if game.to_move == "a" else (bob, alice)


def _watching(client, user, game: Game) -> None:
    client.force_login(user)
    assert client.get(f"/games/{game.pk}/poll/?version={game.version}").status_code in (200, 204)


def _played_while_watched(client, alice, bob, capture):
    """A started game whose first play was made while the other player watched its page."""
    game = _started(alice, bob)
    mover, waiting = _players(game, alice, bob)
    _watching(client, waiting, game)
    with capture(execute=True):
        _play(game, mover)
    return game, mover, waiting


def _gone_for(user, game: Game, minutes: int) -> None:
    """The reader's last request was ``minutes`` ago, and the outbox rows are as old."""
    earlier = timezone.now() - timedelta(minutes=minutes)
    presence.forget()
    presence.mark_present(user.pk, now=earlier)
    rows = Notification.objects.filter(game=game, user=user, sent_at__isnull=True)
    rows.update(created_at=earlier, held_until=earlier + timedelta(minutes=5))


def test_a_player_polling_the_game_page_gets_no_turn_email(
    client, alice, bob, django_capture_on_commit_callbacks
):
    game = _started(alice, bob)
    mover, waiting = _players(game, alice, bob)
    _watching(client, waiting, game)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        _play(game, mover)
    assert _turn_emails_to(waiting) == []
    row = Notification.objects.get(game=game, user=waiting, kind="your_turn", sent_at__isnull=True)
    assert row.held_until is not None
    assert row.held_until > timezone.now() + timedelta(minutes=4)
    assert row.skipped == ""


def test_a_held_email_waits_while_the_reader_is_still_there(
    client, alice, bob, django_capture_on_commit_callbacks
):
    game, _mover, waiting = _played_while_watched(client, alice, bob, django_capture_on_commit_callbacks)
    mail.outbox.clear()
    Notification.objects.filter(game=game).update(created_at=timezone.now() - timedelta(minutes=2))
    tasks.sweep_outbox()  # held: not yet due
    assert _turn_emails_to(waiting) == []


def test_once_the_reader_has_gone_the_held_email_goes_if_the_turn_is_still_theirs(
    client, alice, bob, django_capture_on_commit_callbacks
):
    game, _mover, waiting = _played_while_watched(client, alice, bob, django_capture_on_commit_callbacks)
    mail.outbox.clear()
    _gone_for(waiting, game, minutes=6)
    assert tasks.sweep_outbox() >= 1
    assert len(_turn_emails_to(waiting)) == 1


def test_a_held_email_is_never_sent_if_its_reader_played(
    client, alice, bob, django_capture_on_commit_callbacks
):
    game, mover, waiting = _played_while_watched(client, alice, bob, django_capture_on_commit_callbacks)
    held = Notification.objects.get(game=game, user=waiting, kind="your_turn", sent_at__isnull=True)
    _watching(client, mover, game)  # the first player watches too: their turn email is held as well
    with django_capture_on_commit_callbacks(execute=True):
        _play(game, waiting)
    mail.outbox.clear()
    _gone_for(waiting, game, minutes=6)
    tasks.sweep_outbox()
    assert _turn_emails_to(waiting) == []
    assert Notification.objects.get(pk=held.pk).skipped == "turn already played"


def test_a_reader_away_from_the_site_gets_the_email_at_once(alice, bob, django_capture_on_commit_callbacks):
    game = _started(alice, bob)
    mover, waiting = _players(game, alice, bob)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        _play(game, mover)
    assert len(_turn_emails_to(waiting)) == 1


def test_a_reader_who_left_before_the_window_closed_is_away(alice, bob, django_capture_on_commit_callbacks):
    game = _started(alice, bob)
    mover, waiting = _players(game, alice, bob)
    presence.mark_present(waiting.pk, now=timezone.now() - timedelta(minutes=3))  # the window is 2
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        _play(game, mover)
    assert len(_turn_emails_to(waiting)) == 1


def test_the_lobby_counts_as_being_at_the_table(client, alice, bob, django_capture_on_commit_callbacks):
    game = _started(alice, bob)
    mover, waiting = _players(game, alice, bob)
    client.force_login(waiting)
    client.get("/")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        _play(game, mover)
    assert _turn_emails_to(waiting) == []


def test_a_game_against_the_bot_sends_no_turn_email_while_the_player_is_there(
    client, alice, settings, django_capture_on_commit_callbacks
):
    settings.BOT_MOVE_DELAY_SECONDS = 0  # the bot answers within the play's request
    with django_capture_on_commit_callbacks(execute=True):
        game = challenges.game_create(creator=alice, opponent="bot:random")
    client.force_login(alice)
    client.get(f"/games/{game.pk}/")
    mail.outbox.clear()
    for _ in range(4):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        body = ordinary_play(game.pk)
        form = {**body, "choice": body["choice"] or ""}
        with django_capture_on_commit_callbacks(execute=True):
            assert client.post(f"/games/{game.pk}/play/", form).status_code == 302
    assert _turn_emails_to(alice) == []
    assert Notification.objects.filter(
        game=game, user=alice, kind="your_turn", held_until__isnull=False
    ).exists()


# --- a held email goes when its hold ends, queued with a countdown --------------------------------


def _at(monkeypatch, moment: datetime) -> None:
    monkeypatch.setattr(timezone, "now", lambda: moment)


def _held_turn_row(alice, bob, capture, seen: datetime) -> tuple[Notification, Any]:
    """The turn row of a play made while its reader, last seen at ``seen``, is at the table."""
    game = _started(alice, bob)
    mover, waiting = _players(game, alice, bob)
    presence.mark_present(waiting.pk, now=seen)
    with capture(execute=True):
        _play(game, mover)
    return Notification.objects.get(game=game, user=waiting, kind="your_turn"), waiting


def test_a_held_email_is_queued_for_the_end_of_its_hold_and_sent_once_then(
    alice, bob, queued, settings, monkeypatch, django_capture_on_commit_callbacks
):
    now = timezone.now()
    note, waiting = _held_turn_row(
        alice, bob, django_capture_on_commit_callbacks, seen=now - timedelta(seconds=10)
    )
    mail.outbox.clear()
    _at(monkeypatch, now)

    assert delivery.deliver(note.pk) is False  # the worker's first try: the reader is there
    task, args, countdown = queued[-1]
    assert (task, args, countdown) == (
        settings.OUTBOX_DELIVERY_TASK,
        (note.pk,),
        settings.EMAIL_HOLD_SECONDS - 10,
    )

    _at(monkeypatch, now + timedelta(seconds=countdown))  # the countdown has run: gone since
    assert delivery.deliver(note.pk) is True
    assert delivery.deliver(note.pk) is False  # delivered twice: sent once
    assert tasks.sweep_outbox() == 0
    assert len(_turn_emails_to(waiting)) == 1


def test_at_the_end_of_its_hold_an_email_to_a_reader_still_there_is_held_again(
    alice, bob, queued, settings, monkeypatch, django_capture_on_commit_callbacks
):
    now = timezone.now()
    note, waiting = _held_turn_row(alice, bob, django_capture_on_commit_callbacks, seen=now)
    _at(monkeypatch, now)
    delivery.deliver(note.pk)
    end = now + timedelta(seconds=queued[-1][2])
    presence.mark_present(waiting.pk, now=end - timedelta(seconds=5))  # still polling
    mail.outbox.clear()
    _at(monkeypatch, end)

    assert delivery.deliver(note.pk) is False
    assert queued[-1] == (settings.OUTBOX_DELIVERY_TASK, (note.pk,), settings.EMAIL_HOLD_SECONDS - 5)
    assert _turn_emails_to(waiting) == []


def test_a_held_email_goes_by_the_worker_when_its_hold_ends_with_a_three_second_window(
    transactional_db, alice, bob, client, settings, worker_in_process
):
    settings.PRESENCE_WINDOW_SECONDS, settings.EMAIL_HOLD_SECONDS = 3, 4
    game = _started(alice, bob)
    mover, waiting = _players(game, alice, bob)
    _watching(client, waiting, game)  # then the reader leaves the page
    _play(game, mover)

    assert wait_for(lambda: bool(_turn_emails_to(waiting)), 30)  # no sweep runs: the countdown's
    row = Notification.objects.get(game=game, user=waiting, kind="your_turn")
    assert row.held_until is not None  # held first, while the reader was there
    assert (row.attempts, len(_turn_emails_to(waiting))) == (2, 1)


# --- presence: seen within the window is present, whatever the window -----------------------------


def test_a_player_seen_within_a_three_second_window_is_present(settings, alice):
    settings.PRESENCE_WINDOW_SECONDS = 3
    start = timezone.now()
    presence.mark_present(alice.pk, now=start)
    presence.mark_present(alice.pk, now=start + timedelta(seconds=2))  # a poll, two seconds on

    assert presence.held_until(alice.pk, start + timedelta(seconds=4.5)) is not None  # 2.5 s ago


def test_a_poll_not_written_again_still_counts_within_a_three_second_window(settings, alice):
    settings.PRESENCE_WINDOW_SECONDS = 3
    start = timezone.now()
    presence.mark_present(alice.pk, now=start)
    presence.mark_present(alice.pk, now=start + timedelta(seconds=0.5))  # too soon to write again

    assert presence.last_seen(alice.pk) == start
    assert presence.held_until(alice.pk, start + timedelta(seconds=3.4)) is not None  # 2.9 s ago


def test_a_player_gone_for_longer_than_a_three_second_window_is_away(settings, alice):
    settings.PRESENCE_WINDOW_SECONDS = 3
    start = timezone.now()
    presence.mark_present(alice.pk, now=start)

    assert presence.held_until(alice.pk, start + timedelta(seconds=4)) is None
