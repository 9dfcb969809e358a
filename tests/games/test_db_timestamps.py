"""On PostgreSQL, timestamps are read by the compiled loader (dragonheart_site.db) and come back
exactly as Django's own loader gives them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.db import connection
from django.db.backends.postgresql.psycopg_any import register_tzloader
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dragonheart_site.db import TIMESTAMPTZ
from games.models import Game

pytestmark = [pytest.mark.postgresql, pytest.mark.django_db]

_zones = st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-11))])
_instants = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=_zones)


def _read(value: datetime, djangos: bool) -> datetime:
    with connection.cursor() as cursor:
        if djangos:
            register_tzloader(connection.timezone, cursor.cursor)  # this cursor only
        cursor.execute("SELECT %s::timestamptz", [value])
        (read,) = cursor.fetchone()
    return read  # type: ignore[no-any-return]


def test_the_connection_reads_timestamps_with_the_compiled_loader():
    connection.ensure_connection()
    loader = connection.connection.adapters.get_loader(TIMESTAMPTZ, 0)

    assert loader.__module__ == "dragonheart_site.db"
    assert loader.timezone == connection.timezone


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(value=_instants)
def test_a_timestamp_reads_back_as_djangos_loader_reads_it(value):
    ours, djangos = _read(value, djangos=False), _read(value, djangos=True)

    assert ours == djangos == value
    assert ours.tzinfo is djangos.tzinfo
    assert (ours.isoformat(), ours.utcoffset()) == (djangos.isoformat(), djangos.utcoffset())


def test_model_timestamps_are_aware_utc(alice, bob):
    game = Game.objects.create(created_by=alice, player_a=alice, player_b=bob, options={})

    assert Game.objects.get(pk=game.pk).created_at == game.created_at
    assert Game.objects.get(pk=game.pk).created_at.tzinfo is connection.timezone
