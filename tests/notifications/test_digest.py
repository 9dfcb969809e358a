"""The daily digest: at the reader's local hour, once a local day, across summer time."""

from __future__ import annotations

from datetime import UTC, datetime

from django.core import mail

from games import challenges
from notifications import services as notifications
from notifications.models import Preferences
from outbox.models import Notification


def _digest_reader(user, hour=8, zone="Europe/Berlin"):
    Preferences.objects.update_or_create(
        user=user, defaults={"email_mode": "digest", "digest_hour": hour, "time_zone": zone}
    )


def _waiting_for(alice, bob, capture):
    with capture(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob", rules={"first_player": "a"})
        challenges.game_accept(game=game, user=bob)
    mail.outbox.clear()
    return game


def test_a_digest_reader_gets_no_turn_email_but_one_digest_at_the_local_hour(
    alice, bob, django_capture_on_commit_callbacks
):
    _digest_reader(alice)
    _waiting_for(alice, bob, django_capture_on_commit_callbacks)
    assert Notification.objects.get(user=alice, kind="your_turn").skipped == "preferences"
    with django_capture_on_commit_callbacks(execute=True):
        assert notifications.queue_digests(datetime(2026, 10, 24, 5, 0, tzinfo=UTC)) == 0  # 07:00 CEST
        assert notifications.queue_digests(datetime(2026, 10, 24, 6, 0, tzinfo=UTC)) == 1  # 08:00 CEST
        assert notifications.queue_digests(datetime(2026, 10, 24, 6, 45, tzinfo=UTC)) == 0  # once a day
    assert [m.to for m in mail.outbox] == [[alice.email]]
    assert "1 game is waiting for you" in mail.outbox[0].subject
    assert "bob" in mail.outbox[0].body


def test_the_digest_keeps_its_local_hour_after_summer_time_ends(
    alice, bob, django_capture_on_commit_callbacks
):
    _digest_reader(alice)
    _waiting_for(alice, bob, django_capture_on_commit_callbacks)
    # 26 October: Berlin is back on UTC+1, so 08:00 local is 07:00 UTC, no longer 06:00.
    assert notifications.queue_digests(datetime(2026, 10, 26, 6, 0, tzinfo=UTC)) == 0
    assert notifications.queue_digests(datetime(2026, 10, 26, 7, 0, tzinfo=UTC)) == 1


def test_no_digest_when_no_game_is_waiting(alice, bob):
    _digest_reader(alice)
    assert notifications.queue_digests(datetime(2026, 10, 24, 6, 0, tzinfo=UTC)) == 0
