"""The outbox: rows written with what causes them, queued by the delivery task's name, and
claimed by one worker at a time."""

from __future__ import annotations

from datetime import timedelta

from django.core import mail
from django.utils import timezone

from games import challenges
from games.models import Game
from outbox import services as outbox
from outbox.models import Notification


def _challenge(alice, bob) -> Game:
    return challenges.game_create(creator=alice, opponent="bob")


def test_it_tells_a_player_of_a_fact_once(alice, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():
        game = _challenge(alice, bob)
    assert not outbox.game_notification(game=game, user_id=bob.pk, kind="challenge")
    assert Notification.objects.filter(user=bob, kind="challenge").count() == 1


def test_a_turn_note_names_the_player_to_move_and_the_version(alice, bob):
    game = _challenge(alice, bob)
    note = outbox.turn_note(game=game, seat="b", version=7)
    assert note is not None
    assert (note.user_id, note.kind, note.key) == (bob.pk, "your_turn", f"{game.pk}:7")
    assert note.pk is None  # written by the play, with its events


def test_a_bot_seat_gets_no_turn_note(alice):
    game = challenges.game_create(creator=alice, opponent="bot:greedy")
    assert outbox.turn_note(game=game, seat="b", version=game.version) is None


def test_the_delivery_is_queued_by_the_task_name_in_settings(alice, bob, settings):
    settings.OUTBOX_DELIVERY_TASK = "notifications.tasks.send_notification"
    note = Notification.objects.create(user=bob, kind="challenge", key="by-name", game=_challenge(alice, bob))
    mail.outbox.clear()
    outbox.queue_delivery(note.pk)  # tasks run eagerly here: the email goes out at once
    assert len(mail.outbox) == 1
    assert Notification.objects.get(pk=note.pk).sent_at is not None


def test_a_delivery_that_cannot_be_queued_is_left_for_the_sweep(alice, bob, settings):
    settings.OUTBOX_DELIVERY_TASK = "no.such.task"
    note = Notification.objects.create(user=bob, kind="challenge", key="lost", game=_challenge(alice, bob))
    outbox.queue_delivery(note.pk)  # logs, does not raise: the play that wrote it stands
    Notification.objects.filter(pk=note.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    assert note.pk in outbox.pending(older_than=timedelta(minutes=1))


def test_only_one_claim_holds_until_it_goes_stale(alice, bob):
    note = Notification.objects.create(user=bob, kind="challenge", key="claimed", game=_challenge(alice, bob))
    assert outbox.claim(note.pk)
    assert not outbox.claim(note.pk)
    stale = timezone.now() - outbox.CLAIM_TIMEOUT - timedelta(seconds=1)
    Notification.objects.filter(pk=note.pk).update(claimed_at=stale)
    assert outbox.claim(note.pk)
    assert Notification.objects.get(pk=note.pk).attempts == 2


def test_a_sent_row_is_never_claimed_again(alice, bob):
    note = Notification.objects.create(
        user=bob, kind="challenge", key="sent", game=_challenge(alice, bob), sent_at=timezone.now()
    )
    assert not outbox.claim(note.pk)
    assert note.pk not in outbox.pending(older_than=timedelta(0))


# --- the database's clock: hosts whose own clocks are off neither steal nor skip ------------------


def _host_clock_off_by(monkeypatch, offset: timedelta) -> None:
    """This process's clock (django.utils.timezone.now) runs ``offset`` from the database's."""
    real_now = timezone.now
    monkeypatch.setattr(timezone, "now", lambda: real_now() + offset)


def test_a_host_whose_clock_runs_fast_does_not_steal_a_fresh_claim(alice, bob, monkeypatch):
    note = Notification.objects.create(user=bob, kind="challenge", key="fast", game=_challenge(alice, bob))
    assert outbox.claim(note.pk)  # a worker with a true clock takes it and is sending
    _host_clock_off_by(monkeypatch, outbox.CLAIM_TIMEOUT + timedelta(minutes=10))
    assert not outbox.claim(note.pk)
    assert note.pk not in outbox.pending(older_than=timedelta(0))
    assert Notification.objects.get(pk=note.pk).attempts == 1


def test_a_host_whose_clock_runs_slow_does_not_skip_a_due_row(alice, bob, monkeypatch):
    note = Notification.objects.create(user=bob, kind="challenge", key="slow", game=_challenge(alice, bob))
    due = timezone.now() - timedelta(minutes=1)
    held = Notification.objects.create(user=bob, kind="your_turn", key="held", game=note.game, held_until=due)
    Notification.objects.filter(pk__in=[note.pk, held.pk]).update(
        created_at=timezone.now() - timedelta(minutes=5)
    )
    _host_clock_off_by(monkeypatch, -timedelta(hours=1))
    assert set(outbox.pending(older_than=timedelta(minutes=1))) == {note.pk, held.pk}


def test_a_hold_counts_from_the_databases_now(alice, bob, monkeypatch):
    note = Notification.objects.create(user=bob, kind="your_turn", key="hold", game=_challenge(alice, bob))
    assert outbox.claim(note.pk)
    _host_clock_off_by(monkeypatch, -timedelta(hours=1))  # "until" computed here would be long past
    outbox.hold(note.pk, timedelta(minutes=5))
    monkeypatch.undo()
    row = Notification.objects.get(pk=note.pk)
    assert row.claimed_at is None
    assert row.held_until is not None
    assert row.held_until > timezone.now() + timedelta(minutes=3)
    assert note.pk not in outbox.pending(older_than=timedelta(0))


# --- a row held for a reader at the table: queued again for the end of its hold -----------------


def test_a_held_row_is_given_back_and_queued_for_the_end_of_its_hold(alice, bob, settings, queued):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # a worker's site (scripts/test's PostgreSQL pass is eager)
    note = Notification.objects.create(user=bob, kind="your_turn", key="held", game=_challenge(alice, bob))
    assert outbox.claim(note.pk)

    outbox.hold(note.pk, timedelta(seconds=90))

    assert queued == [(settings.OUTBOX_DELIVERY_TASK, (note.pk,), 90.0)]
    row = Notification.objects.get(pk=note.pk)
    assert row.claimed_at is None
    assert row.held_until is not None


def test_where_tasks_run_at_once_a_held_row_is_left_to_the_sweep(alice, bob, settings, queued):
    settings.CELERY_TASK_ALWAYS_EAGER = True  # a countdown would not be kept
    note = Notification.objects.create(user=bob, kind="your_turn", key="held", game=_challenge(alice, bob))

    outbox.hold(note.pk, timedelta(seconds=90))

    assert queued == []


def test_a_held_row_is_due_as_its_hold_ends_however_young(alice, bob):
    note = Notification.objects.create(user=bob, kind="your_turn", key="young", game=_challenge(alice, bob))
    assert note.pk not in outbox.pending(older_than=timedelta(minutes=1))  # on its way to a worker

    Notification.objects.filter(pk=note.pk).update(held_until=timezone.now() + timedelta(minutes=1))
    assert note.pk not in outbox.pending(older_than=timedelta(minutes=1))
    Notification.objects.filter(pk=note.pk).update(held_until=timezone.now() - timedelta(seconds=1))
    assert note.pk in outbox.pending(older_than=timedelta(minutes=1))
