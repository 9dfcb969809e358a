"""PostgreSQL drops a play's connection. Before the commit: the client gets a 503, nothing is
written, and the retry plays once. At the commit (the server committed, its answer never came):
the client gets a 503 though the play is in, and the retry with the same Idempotency-Key is
answered from the stored play. The connection is ended the way an administrator or a failover
ends it, with pg_terminate_backend from another connection."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from django.core import mail
from django.db import close_old_connections, connection, connections

from games.models import IdempotentPlay
from notifications import tasks
from tests.faults.helpers import (
    assert_log_whole,
    first_play,
    post_play,
    started,
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
def after_insert_into(table: str, then: Callable[[], None]) -> Iterator[list[bool]]:
    """Call ``then`` once, right after this thread's first INSERT into ``table``."""
    done: list[bool] = []

    def execute(run: Any, sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
        result = run(sql, params, many, context)
        if not done and sql.startswith(f'INSERT INTO "{table}"'):
            done.append(True)
            then()
        return result

    with connection.execute_wrapper(execute):
        yield done
    assert done


def _drop() -> None:
    _terminate(connection.connection.info.backend_pid)


@contextmanager
def dropped_in_the_transaction() -> Iterator[None]:
    """The play's connection ends once its events are written, before its COMMIT."""
    with after_insert_into("games_gameevent", then=_drop):
        yield


@contextmanager
def commit_answer_lost() -> Iterator[None]:
    """The play's COMMIT is done by the server, then the connection ends before Django has
    heard back: Django gets the error the driver gives for a connection the server ended."""
    wrapper = connections["default"]
    commit = type(wrapper)._commit

    def commit_then_drop(self: Any) -> None:
        del self._commit  # once
        commit(self)
        _drop()
        with self.wrap_database_errors:
            self.connection.execute("SELECT 1")

    def arm() -> None:  # the events are written: the next COMMIT is the play's
        wrapper._commit = commit_then_drop.__get__(wrapper)

    try:
        with after_insert_into("games_gameevent", then=arm):
            yield
    finally:
        assert "_commit" not in wrapper.__dict__, "the play never committed"


@pytest.fixture
def game(transactional_db, alice, bob):  # type: ignore[no-untyped-def]
    game = started(alice, bob)
    mail.outbox.clear()
    return game


def test_a_connection_dropped_before_the_commit_gives_503_and_writes_nothing(api, game, bob):
    with dropped_in_the_transaction():
        response = post_play(api["alice"], game, first_play(api["alice"], game), key="k-1")

    assert response.status_code == 503
    assert response.json()["code"] == "database_unavailable"
    assert_log_whole(game, plays=0)
    assert game.version == 1  # the deal only
    assert not turn_rows(game, bob).exists()
    assert not IdempotentPlay.objects.exists()


def test_the_retry_after_a_connection_dropped_before_the_commit_plays_once(api, game, bob):
    play = first_play(api["alice"], game)
    with dropped_in_the_transaction():
        assert post_play(api["alice"], game, play, key="k-1").status_code == 503

    retry = post_play(api["alice"], game, play, key="k-1")  # on a new connection

    assert retry.status_code == 201
    assert not retry.has_header("Idempotent-Replayed")
    assert_log_whole(game, plays=1)
    assert turn_rows(game, bob).count() == 1
    assert [m.to for m in mail.outbox] == [[bob.email]]


@pytest.fixture
def commit_unanswered(api, game):  # type: ignore[no-untyped-def]
    """Alice's play (with an Idempotency-Key) whose COMMIT was done but never answered."""
    play = first_play(api["alice"], game)
    with commit_answer_lost():
        response = post_play(api["alice"], game, play, key="k-1")
    assert (response.status_code, response.json()["code"]) == (503, "database_unavailable")
    return play


def test_a_play_whose_commit_was_not_answered_is_in_and_its_retry_returns_it(api, game, commit_unanswered):
    assert_log_whole(game, plays=1)

    retry = post_play(api["alice"], game, commit_unanswered, key="k-1")

    assert retry.status_code == 201
    assert retry["Idempotent-Replayed"] == "true"
    assert retry.json() == api["alice"].get(f"/api/games/{game.pk}/").json()
    assert_log_whole(game, plays=1)
    without_key = post_play(api["alice"], game, commit_unanswered, key=None)
    assert (without_key.status_code, without_key.json()["code"]) == (409, "stale_version")


def test_the_turn_email_of_a_play_whose_commit_was_not_answered_goes_out_once_by_the_sweep(
    game, bob, commit_unanswered
):
    assert mail.outbox == []  # it was to be queued once the commit answered

    two_minutes_later(game)

    assert tasks.sweep_outbox() == 1
    assert [m.to for m in mail.outbox] == [[bob.email]]
    assert tasks.sweep_outbox() == 0


def _as_the_wsgi_handler(client: Any, path: str) -> Any:
    """One request with the connection housekeeping of a real server (Django's test client
    leaves it out): old or broken connections are closed when a request starts and ends."""
    close_old_connections()
    try:
        return client.get(path)
    finally:
        close_old_connections()


@pytest.mark.parametrize(("health_checks", "first_answer"), [(False, 503), (True, 200)])
def test_a_kept_connection_ended_between_requests_costs_at_most_one_503(
    api, game, monkeypatch, health_checks, first_answer
):
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)
    monkeypatch.setitem(connection.settings_dict, "CONN_HEALTH_CHECKS", health_checks)
    connection.close()  # the next one is opened with these settings
    path = f"/api/games/{game.pk}/"
    assert _as_the_wsgi_handler(api["alice"], path).status_code == 200  # the connection is kept
    _drop()  # a database restart, a failover

    assert _as_the_wsgi_handler(api["alice"], path).status_code == first_answer
    assert _as_the_wsgi_handler(api["alice"], path).status_code == 200
