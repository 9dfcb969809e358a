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
from django.db import connection, connections, transaction

from accounts import services as account_services
from engine.rules import legal_plays
from games import challenges, event_log, services
from games.models import Game
from notifications import checks, tasks
from notifications import services as notifications
from notifications.relay import OutboxRelay
from outbox import services as outbox
from outbox.models import Notification
from tests.notifications.freezing_proxy import FreezingProxy
from tests.support.celery_worker import wait_for

# For the tests that listen (in the test's thread or the relay's): the relay listens on the
# "direct" alias (the same test database as "default"). Only on committed data: a mirror in a
# test's transaction would be a second transaction (on SQLite, waiting on the first's lock).
listens = pytest.mark.django_db(transaction=True, databases=["default", "direct"])


def _user(name: str) -> Any:
    return account_services.user_create(
        email_confirmed=True, username=name, password="dragon-heart-42", email=f"{name}@example.com"
    )


def _note(user: Any, key: str, game: Game | None = None) -> Notification:
    return Notification.objects.create(user=user, kind=Notification.Kind.ACCEPTED, key=key, game=game)


def _game(creator: Any, opponent: Any) -> Game:
    return challenges.game_create(creator=creator, opponent=opponent.username)


def _sent(note: Notification) -> bool:
    return Notification.objects.filter(pk=note.pk, sent_at__isnull=False).exists()


def _relayed(game: Game, key: str) -> bool:
    """A new row for the game's creator is sent (through the relay and the worker)."""
    note = _note(game.created_by, key, game)
    return wait_for(lambda: _sent(note))


class Published(list[list[int]]):
    def __call__(self, ids: list[int]) -> None:
        self.append(ids)

    def ids(self) -> list[int]:
        return [i for part in self for i in part]


@pytest.fixture
def relay_on(settings) -> Iterator[None]:
    settings.OUTBOX_RELAY = True
    yield
    # The test's connection lives on into the next test: stop listening and drop what it
    # received, or the next relay would read this test's rows.
    direct = connections["direct"]
    if direct.vendor == "postgresql" and direct.connection is not None:
        with direct.cursor() as cursor:
            cursor.execute("UNLISTEN *")
        list(direct.connection.notifies(timeout=0))


@pytest.mark.postgresql
@listens
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
@listens
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
@listens
def test_rows_committed_while_the_relay_was_away_are_queued_when_it_starts(transactional_db, relay_on):
    alice = _user("alice")
    waiting = _note(alice, "waiting")
    sent = _note(alice, "sent")
    Notification.objects.filter(pk=sent.pk).update(sent_at=sent.created_at)
    published = Published()
    OutboxRelay(publish=published).listen()
    assert published.ids() == [waiting.pk]


@pytest.mark.postgresql
@listens
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


@pytest.mark.postgresql
@listens
def test_the_relay_listens_on_a_session_of_its_own_with_tcp_keepalives(transactional_db, relay_on):
    relay = OutboxRelay(publish=Published())
    relay.listen()
    assert relay.session is connections["direct"].connection
    assert relay.session is not connection.connection
    parameters = relay.session.info.get_parameters()
    assert (parameters["keepalives"], parameters["keepalives_idle"]) == ("1", "30")


@pytest.mark.postgresql
@listens
def test_probes_are_heard_and_never_taken_for_rows(transactional_db, relay_on):
    alice = _user("alice")
    relay = OutboxRelay(publish=Published(), probe_every=0, probe_timeout=30)
    relay.listen()
    relay.check_hearing()  # quiet since listening: a probe goes out
    assert relay.probe_sent_at is not None
    note = _note(alice, "after the probe")
    assert relay.collect(wait=2.0) == [note.pk]
    assert relay.probe_sent_at is None


@pytest.fixture
def running_relay(relay_on) -> Iterator[OutboxRelay]:
    # Probes often, so that a deaf session is found within the test's patience.
    relay = OutboxRelay(linger=0.01, probe_every=0.2, probe_timeout=2.0)
    thread = threading.Thread(target=relay.run, kwargs={"wait": 0.1})
    thread.start()
    yield relay
    relay.stopping.set()
    thread.join(timeout=10)
    assert not thread.is_alive()


@pytest.mark.postgresql
@listens
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
@listens
def test_the_relay_reconnects_when_its_database_connection_is_killed(
    transactional_db, celery_on_redis, running_relay
):
    game = _game(_user("alice"), _user("bob"))
    assert _relayed(game, "first")
    killed = running_relay.backend_pid
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [killed])
        assert cursor.fetchone() == (True,)
    assert wait_for(lambda: running_relay.backend_pid not in (None, killed))
    assert _relayed(game, "second")


@pytest.fixture
def freezing_proxy(monkeypatch) -> Iterator[FreezingProxy]:
    """The "direct" alias goes through the proxy (for connections opened from now on)."""
    direct = connections.settings["direct"]
    proxy = FreezingProxy(int(direct["PORT"] or 5432))
    monkeypatch.setitem(direct, "HOST", "127.0.0.1")
    monkeypatch.setitem(direct, "PORT", str(proxy.port))
    yield proxy
    proxy.close()


def _unlisten(relay: OutboxRelay, proxy: FreezingProxy) -> None:
    """The session stays open and says nothing: as a LISTEN left behind on a pooler's
    server connection."""
    assert relay.session is not None
    relay.session.execute("UNLISTEN *")


def _freeze(relay: OutboxRelay, proxy: FreezingProxy) -> None:
    """The server's host vanishes without closing the connection."""
    proxy.freeze()


@pytest.mark.postgresql
@listens
@pytest.mark.parametrize("silence", [_unlisten, _freeze])
def test_a_relay_that_silently_stops_hearing_notices_and_relays_again(
    transactional_db, celery_on_redis, freezing_proxy, running_relay, caplog, silence
):
    game = _game(_user("alice"), _user("bob"))
    assert _relayed(game, "first")
    deaf = running_relay.backend_pid
    with caplog.at_level(logging.WARNING, logger="notifications.relay"):
        silence(running_relay, freezing_proxy)
        missed = _note(game.created_by, "missed", game)
        assert wait_for(lambda: running_relay.backend_pid not in (None, deaf))
    assert f"session {deaf} heard no probe" in caplog.text
    assert wait_for(lambda: _sent(missed))  # by its NOTIFY, or the catch-up on reconnecting
    assert _relayed(game, "second")


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
