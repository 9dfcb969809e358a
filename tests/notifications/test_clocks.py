"""Turn clocks: reminders, losses on time and aborts, with time simulated (never waited for)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.core import mail

from games import challenges, clocks, services
from games.models import Game
from notifications import preferences
from notifications import services as notifications
from notifications.emails import _local_deadline
from notifications.models import Preferences
from outbox.models import Notification
from tests.support.api_plays import play_first_legal

START = datetime(2026, 10, 24, 12, 0, tzinfo=UTC)  # Berlin leaves summer time on the 25th


def _game(alice, bob, capture, days=2, first="a") -> Game:
    with capture(execute=True):
        game = challenges.game_create(
            creator=alice, opponent="bob", rules={"first_player": first}, days_per_turn=days
        )
        challenges.game_accept(game=game, user=bob)
    game = Game.objects.get(pk=game.pk)
    Game.objects.filter(pk=game.pk).update(turn_started_at=START, deadline=START + timedelta(days=days))
    mail.outbox.clear()
    return Game.objects.get(pk=game.pk)


def test_each_turn_gets_its_full_time(alice, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob", days_per_turn=3)
        challenges.game_accept(game=game, user=bob)
    game = Game.objects.get(pk=game.pk)
    assert game.deadline is not None
    assert game.turn_started_at is not None
    assert game.deadline - game.turn_started_at == timedelta(days=3)


def test_a_casual_game_has_no_deadline(alice, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = challenges.game_create(creator=alice, opponent="bob")
        challenges.game_accept(game=game, user=bob)
    assert Game.objects.get(pk=game.pk).deadline is None


def test_one_reminder_goes_out_once_three_quarters_of_the_time_have_passed(
    alice, bob, django_capture_on_commit_callbacks
):
    _game(alice, bob, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        assert clocks.send_reminders(START + timedelta(hours=35)) == 0
        assert clocks.send_reminders(START + timedelta(hours=37)) == 1
        assert clocks.send_reminders(START + timedelta(hours=40)) == 0
    assert [m.to for m in mail.outbox] == [[alice.email]]
    assert mail.outbox[0].subject.startswith("Reminder:")


def test_running_out_of_time_loses_the_game_and_both_players_are_told(
    alice, bob, django_capture_on_commit_callbacks, api
):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        play_first_legal(api["alice"], game.pk)  # alice moves; bob is now on the clock
    Game.objects.filter(pk=game.pk).update(deadline=START + timedelta(days=2))
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.time_out_overdue_games(now=START + timedelta(days=2, seconds=1)) == 1
    ended = Game.objects.get(pk=game.pk)
    assert (ended.status, ended.winner, ended.end_reason) == ("finished", "a", "timeout")
    assert sorted(m.to[0] for m in mail.outbox) == [alice.email, bob.email]
    assert ended.events.filter(kind="game_ended").count() == 1


def test_a_game_whose_first_move_never_comes_is_aborted_without_a_result(
    alice, bob, django_capture_on_commit_callbacks
):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    services.time_out_overdue_games(now=START + timedelta(days=3))
    ended = Game.objects.get(pk=game.pk)
    assert (ended.status, ended.winner, ended.end_reason) == ("finished", "", "aborted")


def test_time_does_not_run_out_before_the_deadline(alice, bob, django_capture_on_commit_callbacks):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    assert services.time_out_overdue_games(now=START + timedelta(days=2) - timedelta(seconds=1)) == 0
    assert Game.objects.get(pk=game.pk).status == "active"


def test_the_deadline_is_written_in_the_players_time_zone_across_summer_time(
    alice, bob, django_capture_on_commit_callbacks
):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    Preferences.objects.update_or_create(user=alice, defaults={"time_zone": "Europe/Berlin"})
    # Two days after 14:00 summer time is 13:00 winter time in Berlin: 12:00 UTC both times.
    assert _local_deadline(game, preferences.preferences_of(alice).time_zone) == "2026-10-26 13:00 CET"
    Preferences.objects.update_or_create(user=bob, defaults={"time_zone": "America/New_York"})
    assert _local_deadline(game, preferences.preferences_of(bob).time_zone) == "2026-10-26 08:00 EDT"


def test_a_reminder_for_a_turn_already_played_is_not_sent(
    alice, bob, django_capture_on_commit_callbacks, api
):
    game = _game(alice, bob, django_capture_on_commit_callbacks)
    clocks.send_reminders(START + timedelta(hours=37))  # queued; the worker is late
    play_first_legal(api["alice"], game.pk)
    note = Notification.objects.get(game=game, kind="reminder")
    assert notifications.deliver(note.pk) is False
    assert Notification.objects.get(pk=note.pk).skipped == "turn already played"
