"""The profile's email log says what became of each email in words: sent when, held while its
reader was at the table and not sent, to be sent at a time unless they play first, or not sent
and why; never "waiting" for an email that will not go. Holds come from the real presence
rule (tests/notifications/test_presence.py); time is moved by rewriting stored times."""

from __future__ import annotations

import html
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone

from games import services
from notifications import selectors
from notifications.models import Preferences
from outbox.models import Notification
from tests.notifications.test_presence import _play, _played_while_watched, _started

UTC = ZoneInfo("UTC")


def _log(user, *, mode: str = Preferences.Mode.EVERY_TURN, may_email: bool = True) -> list[selectors.LogLine]:
    stop = selectors.stops(user, mode=mode, may_email=may_email, bounced=False)
    return selectors.email_log(user, now=timezone.now(), zone=UTC, stopped=stop)


def _line_of(user, note: Notification, **options) -> selectors.LogLine:
    return next(line for line in _log(user, **options) if line.note.pk == note.pk)


def _held(client, alice, bob, capture) -> tuple[Any, Any, Any]:
    game, mover, waiting = _played_while_watched(client, alice, bob, capture)
    note = Notification.objects.get(game=game, user=waiting, kind="your_turn", sent_at__isnull=True)
    return note, mover, waiting


def test_it_says_when_an_email_was_sent(alice, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        _started(alice, bob)
    note = Notification.objects.filter(user=bob, sent_at__isnull=False).first()
    assert note is not None
    line = _line_of(bob, note)
    assert (line.outcome, line.at) == ("sent", note.sent_at)


def test_a_held_email_says_when_it_goes_unless_its_reader_plays_first(
    client, alice, bob, django_capture_on_commit_callbacks
):
    note, _mover, waiting = _held(client, alice, bob, django_capture_on_commit_callbacks)
    line = _line_of(waiting, note)
    assert (line.outcome, line.at) == ("due", note.held_until)


def test_a_held_email_whose_turn_was_played_is_held_and_not_sent(
    client, alice, bob, django_capture_on_commit_callbacks
):
    note, _mover, waiting = _held(client, alice, bob, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        _play(note.game, waiting)
    assert Notification.objects.get(pk=note.pk).skipped == ""  # its delivery has not looked again
    assert _line_of(waiting, note).outcome == "held"


def test_a_held_email_skipped_at_delivery_is_held_and_not_sent(
    client, alice, bob, django_capture_on_commit_callbacks
):
    note, _mover, waiting = _held(client, alice, bob, django_capture_on_commit_callbacks)
    Notification.objects.filter(pk=note.pk).update(skipped="turn already played")
    assert _line_of(waiting, note).outcome == "held"


def test_an_email_that_the_preferences_will_stop_is_not_waiting(
    client, alice, bob, django_capture_on_commit_callbacks
):
    note, _mover, waiting = _held(client, alice, bob, django_capture_on_commit_callbacks)
    line = _line_of(waiting, note, mode=Preferences.Mode.DIGEST)
    assert (line.outcome, str(line.reason)) == ("will_not", "your email preferences")


def test_an_email_to_an_unconfirmed_address_is_not_waiting(
    client, alice, bob, django_capture_on_commit_callbacks
):
    note, _mover, waiting = _held(client, alice, bob, django_capture_on_commit_callbacks)
    line = _line_of(waiting, note, may_email=False)
    assert (line.outcome, str(line.reason)) == ("will_not", "your address was not confirmed")


def test_a_skipped_email_says_why_in_words(alice, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = _started(alice, bob)
    note = Notification.objects.create(
        user=bob, game=game, kind="reminder", key="r", skipped="address bounced"
    )
    line = _line_of(bob, note)
    assert (line.outcome, str(line.reason)) == ("not_sent", "emails to your address came back")


def test_the_page_says_held_and_never_waiting(client, alice, bob, django_capture_on_commit_callbacks):
    note, _mover, waiting = _held(client, alice, bob, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        _play(note.game, waiting)
    client.force_login(waiting)
    page = html.unescape(client.get("/accounts/profile/").content.decode())
    assert "held while you were playing — not sent" in page
    assert "waiting to be sent" not in page


def test_the_page_shows_the_last_twenty_newest_first(client, alice):
    for n in range(25):
        subject = f"Digest number {n}:"
        note = Notification.objects.create(user=alice, kind="digest", key=f"d{n}", subject=subject)
        Notification.objects.filter(pk=note.pk).update(
            created_at=timezone.now() - timedelta(hours=25 - n), sent_at=timezone.now()
        )
    client.force_login(alice)
    page = client.get("/accounts/profile/").content.decode()
    assert page.count("Digest number") == 20
    assert page.index("Digest number 24:") < page.index("Digest number 5:")
    assert "Digest number 4:" not in page


def test_the_record_says_one_game_and_two_games(client, alice, bob):
    client.force_login(alice)
    assert "No game finished yet." in client.get("/accounts/profile/").content.decode()
    for n in (1, 2):
        services.game_resign(game=_started(alice, bob), user=bob)
        words = "1 game finished" if n == 1 else "2 games finished"
        assert words in client.get("/accounts/profile/").content.decode()
