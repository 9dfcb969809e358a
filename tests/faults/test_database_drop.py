"""PostgreSQL drops a play's connection. Before the play's write reaches it: the client gets a
503, nothing is written, and the retry plays once. Once the write is done (the server committed,
its answer never came): the client gets a 503 though the play is in, and the retry with the
same Idempotency-Key is answered from the stored play. The connection is ended the way an
administrator or a failover ends it, with pg_terminate_backend from another connection.

A play that hands the turn on writes in one statement, which commits by itself; the last play
of a game writes in a transaction. The helpers below end the connection around whichever is
the play's."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from django.core import mail
from django.db import close_old_connections, connection, connections

from games.models import Game, IdempotentPlay
from notifications import tasks
from outbox.models import Notification
from tests.faults.helpers import (
    assert_log_whole,
    first_play,
    post_play,
    started,
    to_the_last_play,
    turn_rows,
    two_minutes_later,
)

pytestmark = pytest.mark.postgresql


def _terminate(pid: int) -> None:
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"], port=db["PORT"], user=db["USER"], password=db["PASSWORD"], dbname="postgres"
    ) as admin:
        # Waits (up to 10 s) until the backend has exited.
        assert admin.execute("SELECT pg_terminate_backend(%s, 10000)", [pid]).fetchone() == (True,)


@contextmanager
def at_the_write_of(table: str, then: Callable[[Callable[[], Any]], Any]) -> Iterator[list[bool]]:
    """Run this thread's first statement that inserts into ``table`` as ``then(run)`` does."""
    done: list[bool] = []

    def execute(run: Any, sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        if done or f'INSERT INTO "{table}"' not in sql:
            return run(sql, params, many, context)
        done.append(True)
        return then(lambda: run(sql, params, many, context))

    with connection.execute_wrapper(execute):
        yield done
    assert done


def served(call: Callable[[], Any]) -> Any:
    """One request with the connection housekeeping of a real server (Django's test client
    leaves it out): old or broken connections are closed when a request starts and ends."""
    close_old_connections()
    try:
        return call()
    finally:
        close_old_connections()


def _drop() -> None:
    _terminate(connection.connection.info.backend_pid)


def _error_of_a_dropped_connection() -> None:
    """Raise what Django gets from the driver for a connection the server ended."""
    with connection.wrap_database_errors:
        connection.connection.execute("SELECT 1")


@contextmanager
def dropped_before_the_write() -> Iterator[None]:
    """The play's connection ends just before its events' statement is sent."""

    def drop_then(run: Callable[[], Any]) -> Any:
        _drop()
        return run()

    with at_the_write_of("games_gameevent", then=drop_then):
        yield


@contextmanager
def write_answer_lost() -> Iterator[None]:
    """The server does the play's write and commits it (its one statement, or the COMMIT of its
    transaction), then the connection ends before Django has heard back."""
    wrapper = connections["default"]
    commit = type(wrapper)._commit  # type: ignore[attr-defined]

    def commit_then_drop(self: Any) -> None:
        del self._commit  # once
        commit(self)
        _drop()
        _error_of_a_dropped_connection()

    def run_then_drop(run: Callable[[], Any]) -> Any:
        result = run()
        if wrapper.in_atomic_block:  # the next COMMIT is the play's
            wrapper._commit = commit_then_drop.__get__(wrapper)  # type: ignore[attr-defined]
            return result
        _drop()  # the statement committed by itself
        _error_of_a_dropped_connection()

    try:
        with at_the_write_of("games_gameevent", then=run_then_drop):
            yield
    finally:
        assert "_commit" not in wrapper.__dict__, "the play never committed"


@pytest.fixture
def game(transactional_db, alice, bob):
    game = started(alice, bob)
    mail.outbox.clear()
    return game


def test_a_connection_dropped_before_the_write_gives_503_and_writes_nothing(api, game, bob):
    with dropped_before_the_write():
        play = first_play(api["alice"], game)
        response = served(lambda: post_play(api["alice"], game, play, key="k-1"))

    assert response.status_code == 503
    assert response.json()["code"] == "database_unavailable"
    assert_log_whole(game, plays=0)
    assert game.version == 1  # the deal only
    assert not turn_rows(game, bob).exists()
    assert not IdempotentPlay.objects.exists()


def test_the_retry_after_a_connection_dropped_before_the_write_plays_once(api, game, bob):
    play = first_play(api["alice"], game)
    with dropped_before_the_write():
        assert served(lambda: post_play(api["alice"], game, play, key="k-1")).status_code == 503

    retry = post_play(api["alice"], game, play, key="k-1")  # on a new connection

    assert retry.status_code == 201
    assert not retry.has_header("Idempotent-Replayed")
    assert_log_whole(game, plays=1)
    assert turn_rows(game, bob).count() == 1
    assert [m.to for m in mail.outbox] == [[bob.email]]


@pytest.fixture
def write_unanswered(api, game):
    """Alice's play (with an Idempotency-Key) whose write was committed but never answered."""
    play = first_play(api["alice"], game)
    with write_answer_lost():
        response = served(lambda: post_play(api["alice"], game, play, key="k-1"))
    assert (response.status_code, response.json()["code"]) == (503, "database_unavailable")
    return play


def test_a_play_whose_write_was_not_answered_is_in_and_its_retry_returns_it(api, game, write_unanswered):
    assert_log_whole(game, plays=1)

    retry = post_play(api["alice"], game, write_unanswered, key="k-1")

    assert retry.status_code == 201
    assert retry["Idempotent-Replayed"] == "true"
    assert retry.json() == api["alice"].get(f"/api/games/{game.pk}/").json()
    assert_log_whole(game, plays=1)
    without_key = post_play(api["alice"], game, write_unanswered, key=None)
    assert (without_key.status_code, without_key.json()["code"]) == (409, "stale_version")


def test_the_turn_email_of_a_play_whose_write_was_not_answered_goes_out_once_by_the_sweep(
    game, bob, write_unanswered
):
    assert mail.outbox == []  # it was to be queued once the write answered

    two_minutes_later(game)

    assert tasks.sweep_outbox() == 1
    assert [m.to for m in mail.outbox] == [[bob.email]]
    assert tasks.sweep_outbox() == 0


@pytest.mark.parametrize(("health_checks", "first_answer"), [(False, 503), (True, 200)])
def test_a_kept_connection_ended_between_requests_costs_at_most_one_503(
    api, game, monkeypatch, health_checks, first_answer
):
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)
    monkeypatch.setitem(connection.settings_dict, "CONN_HEALTH_CHECKS", health_checks)
    connection.close()  # the next one is opened with these settings
    path = f"/api/games/{game.pk}/"
    assert served(lambda: api["alice"].get(path)).status_code == 200  # the connection is kept
    _drop()  # a database restart, a failover

    assert served(lambda: api["alice"].get(path)).status_code == first_answer
    assert served(lambda: api["alice"].get(path)).status_code == 200


# --- The last play of a game: results, emails and the game's end in one transaction ------------


def _game_over_rows(game: Game) -> Any:
    return Notification.objects.filter(game=game, kind=Notification.Kind.GAME_OVER)


@pytest.fixture
def last_play(game, alice, bob):
    play = to_the_last_play(game, {"a": alice, "b": bob})
    game.refresh_from_db()
    mail.outbox.clear()
    return play


def _seat_to_move(api: dict[str, Any], game: Game) -> Any:
    return api["alice"] if game.to_move == "a" else api["bob"]


def test_the_last_play_dropped_before_its_write_ends_nothing_and_its_retry_ends_the_game_once(
    api, game, last_play
):
    version = game.version
    client = _seat_to_move(api, game)
    with dropped_before_the_write():
        response = served(lambda: post_play(client, game, last_play, key="last"))

    assert (response.status_code, response.json()["code"]) == (503, "database_unavailable")
    game.refresh_from_db()
    assert (game.version, game.status, game.finished_at) == (version, Game.Status.ACTIVE, None)
    assert not _game_over_rows(game).exists()
    assert not IdempotentPlay.objects.filter(key="last").exists()

    retry = post_play(client, game, last_play, key="last")

    assert retry.status_code == 201
    assert retry.json()["status"] == "finished"
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert _game_over_rows(game).count() == 2  # one for each player
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.com", "bob@example.com"]


def test_the_last_play_whose_commit_was_not_answered_is_in_once_and_told_once(api, game, last_play):
    client = _seat_to_move(api, game)
    with write_answer_lost():
        response = served(lambda: post_play(client, game, last_play, key="last"))
    assert (response.status_code, response.json()["code"]) == (503, "database_unavailable")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED

    retry = post_play(client, game, last_play, key="last")

    assert retry.status_code == 201
    assert retry["Idempotent-Replayed"] == "true"
    assert retry.json()["status"] == "finished"
    assert _game_over_rows(game).count() == 2
    assert mail.outbox == []  # to be queued once the commit answered: the sweep sends them
    two_minutes_later(game)
    assert tasks.sweep_outbox() == 2
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.com", "bob@example.com"]
    assert tasks.sweep_outbox() == 0
