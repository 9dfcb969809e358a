"""A write that reaches a server which is a standby now (a pooler still pointing at a demoted
primary after a failover) is refused by PostgreSQL with SQLSTATE 25006. That is the database
being unavailable, not a fault of the request: the API answers 503 with Retry-After, as for a
dropped connection, and the client retries (with its Idempotency-Key, for a play)."""

from __future__ import annotations

import pytest
from django.db import DataError, InternalError
from psycopg import errors as pg_errors

from core.errors import database_unavailable
from tests.support.clients import client_for


def _refused_by_a_standby() -> InternalError:
    try:
        try:
            raise pg_errors.ReadOnlySqlTransaction("cannot execute INSERT in a read-only transaction")
        except pg_errors.ReadOnlySqlTransaction as cause:
            raise InternalError(str(cause)) from cause  # as Django wraps psycopg's error
    except InternalError as wrapped:
        return wrapped


def test_a_write_refused_by_a_standby_is_the_database_being_unavailable():
    assert database_unavailable(_refused_by_a_standby())


def test_another_internal_or_data_error_is_not():
    assert not database_unavailable(InternalError("something else"))
    assert not database_unavailable(DataError("value too long"))


@pytest.mark.django_db
def test_the_api_answers_a_write_refused_by_a_standby_with_503(alice, monkeypatch):
    from games import challenges

    def refused(**kwargs):
        raise _refused_by_a_standby()

    monkeypatch.setattr(challenges, "game_create", refused)

    response = client_for(alice).post("/api/games/", {"opponent": "bot:random"}, format="json")

    assert response.status_code == 503
    assert response.json()["code"] == "database_unavailable"
    assert response["Retry-After"]
