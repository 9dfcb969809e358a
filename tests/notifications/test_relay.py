"""The outbox relay: rows announce themselves at commit (PostgreSQL NOTIFY), the relay queues
their delivery in batches, and a play with the relay on publishes nothing itself."""

from __future__ import annotations

import logging
import smtplib
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from accounts import services as account_services
from engine.rules import legal_plays
from games import challenges, event_log, services
from games.models import Game
from notifications import checks, tasks
from notifications import services as notifications
from notifications.relay import OutboxRelay
from outbox import services as outbox
from outbox.models import Notification
from tests.celery_worker import wait_for


def _user(name: str) -> Any:
    return account_services.user_create(
        email_confirmed=True, username=name, password="dragon-heart-42", email=f"{name}@example.com"
    )


def _note(user: Any, key: str, game: Game | None = None) -> Notification:
    return Notification.objects.create(user=user, kind=Notification.Kind.ACCEPTED, key=key, game=game)


def _game(creator: Any, opponent: Any) -> Game:
    return challenges.game_create(creator=creator, opponent=opponent.username)


class Published(list[list[int]]):
    def __call__(self, ids: list[int]) -> None:
        self.append(ids)

    def ids(self) -> list[int]:
        return [i for part in self for i in part]


@pytest.fixture
def relay_on(settings) -> Iterator[None]:  # type: ignore[no-untyped-def]
    settings.OUTBOX_RELAY = True
    yield
    # The test's connection lives on into the next test: stop listening and drop what it
    # received, or the next relay would read this test's rows.
    if connection.vendor == "postgresql" and connection.connection is not None:
        with connection.cursor() as cursor:
            cursor.execute("UNLISTEN *")
        list(connection.connection.notifies(timeout=0))


@pytest.mark.postgresql
def test_a_committed_row_is_announced_and_a_rolled_back_one_never_is(transactional_db, relay_on):
    alice = _user("alice")
    published = Published()
    relay = OutboxRelay(publish=published, linger=0.01)
    relay.listen()
    assert published == []

    kept = _note(alice, "kept")
    try:
        with transaction.atomic():
            _note(alice, "rolled-back")
            raise RuntimeError
    except RuntimeError:
        pass
    assert relay.collect(wait=2.0) == [kept.pk]
    assert relay.collect(wait=0.2) == []
    assert list(Notification.objects.values_list("pk", flat=True)) == [kept.pk]


@pytest.mark.postgresql
def test_rows_of_one_commit_come_as_one_batch_published_in_chunks(transactional_db, relay_on):
    alice = _user("alice")
    published = Published()
    relay = OutboxRelay(publish=published, linger=0.05, chunk=10)
    relay.listen()
    with transaction.atomic():
        rows = [_note(alice, f"k{i}") for i in range(25)]
    relay.queue(relay.collect(wait=2.0))
    assert [len(part) for part in published] == [10, 10, 5]
    assert published.ids() == [row.pk for row in rows]


@pytest.mark.postgresql
def test_rows_committed_while_the_relay_was_away_are_queued_when_it_starts(transactional_db, relay_on):
    alice = _user("alice")
    waiting = _note(alice, "waiting")
    sent = _note(alice, "sent")
    Notification.objects.filter(pk=sent.pk).update(sent_at=sent.created_at)
    published = Published()
    OutboxRelay(publish=published).listen()
    assert published.ids() == [waiting.pk]


@pytest.mark.postgresql
def test_a_broker_that_is_down_loses_nothing_the_sweep_cannot_find(transactional_db, relay_on, caplog):
    alice = _user("alice")

    tried: list[list[int]] = []

    def down(ids: list[int]) -> None:
        tried.append(ids)
        raise ConnectionError("broker down")

    relay = OutboxRelay(publish=down)
    relay.listen()
    note = _note(alice, "lost")
    with caplog.at_level(logging.WARNING, logger="notifications.relay"):
        relay.queue(relay.collect(wait=2.0))  # logs, does not raise
    assert tried == [[note.pk]]
    assert "could not queue notifications" in caplog.text
    assert note.pk in outbox.pending(older_than=timedelta(0))


@pytest.fixture
def running_relay(relay_on) -> Iterator[OutboxRelay]:  # type: ignore[no-untyped-def]
    relay = OutboxRelay(linger=0.01)
    thread = threading.Thread(target=relay.run, kwargs={"wait": 0.1})
    thread.start()
    yield relay
    relay.stopping.set()
    thread.join(timeout=10)
    assert not thread.is_alive()


@pytest.mark.postgresql
def test_with_the_relay_a_play_publishes_nothing_and_its_email_still_goes_out_once(
    transactional_db, celery_on_redis, running_relay, monkeypatch
):
    published_by_requests: list[int] = []
    monkeypatch.setattr(outbox, "queue_delivery", published_by_requests.append)
    alice, bob = _user("alice"), _user("bob")
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    game = Game.objects.get(pk=game.pk)
    state = event_log.load_state(game)
    play = legal_plays(state)[0]
    mover = alice if state.to_move == "a" else bob
    services.game_play(
        game=game, user=mover, cards=list(play.cards), choice=play.choice, expected_version=game.version
    )

    turn = Notification.objects.filter(game=game, kind="your_turn").order_by("pk")
    assert turn.count() == 2
    assert wait_for(lambda: not turn.filter(sent_at__isnull=True, skipped="").exists())
    assert published_by_requests == []
    # The mover's own "your turn" is skipped if the worker reached it after the play.
    first, second = turn
    assert first.sent_at is not None or first.skipped == "turn already played"
    assert second.sent_at is not None
    sent_to = [n.user.email for n in turn if n.sent_at is not None]
    assert sorted(m.to[0] for m in mail.outbox if "Your turn" in m.subject) == sorted(sent_to)


@pytest.mark.postgresql
def test_the_relay_reconnects_when_its_database_connection_is_killed(
    transactional_db, celery_on_redis, running_relay
):
    alice = _user("alice")
    game = _game(alice, _user("bob"))
    first = _note(alice, "first", game)
    assert wait_for(lambda: Notification.objects.filter(pk=first.pk, sent_at__isnull=False).exists())
    killed = running_relay.backend_pid
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [killed])
        assert cursor.fetchone() == (True,)
    assert wait_for(lambda: running_relay.backend_pid not in (None, killed))
    second = _note(alice, "second", game)
    assert wait_for(lambda: Notification.objects.filter(pk=second.pk, sent_at__isnull=False).exists())


def test_a_batch_goes_on_when_one_email_fails_and_that_one_retries_alone(alice, bob, monkeypatch):
    game = _game(alice, bob)
    mail.outbox.clear()
    notes = [_note(alice, "one", game), _note(bob, "two", game), _note(alice, "three", game)]
    deliver = notifications.deliver

    def flaky(note_id: int) -> bool:
        if note_id == notes[1].pk:
            raise smtplib.SMTPServerDisconnected("gone")
        return deliver(note_id)

    retried: list[tuple[Any, ...]] = []
    monkeypatch.setattr(notifications, "deliver", flaky)
    monkeypatch.setattr(tasks.send_notification, "apply_async", lambda args, **kw: retried.append(args))
    assert tasks.send_notifications([note.pk for note in notes]) == 2
    assert retried == [(notes[1].pk,)]
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.com", "alice@example.com"]


def test_the_relay_is_refused_on_a_database_without_notify(db, settings):
    settings.OUTBOX_RELAY = True
    errors = checks.outbox_relay_needs_postgresql()
    if connection.vendor == "postgresql":
        assert errors == []
    else:
        assert [error.id for error in errors] == ["notifications.E001"]


def test_the_relay_command_refuses_to_run_when_the_relay_is_off(db, settings):
    settings.OUTBOX_RELAY = False
    with pytest.raises(CommandError, match="OUTBOX_RELAY is off"):
        call_command("relay_outbox")
