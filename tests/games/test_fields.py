"""FastJSONField stores and reads back exactly what Django's JSONField does, on SQLite and on
PostgreSQL (the second pass of scripts/test): each value is written by both fields into the
same column and read back by both."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, models
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.fields import FastJSONField
from games.models import Game

# What a JSON column can hold on both databases: PostgreSQL's jsonb takes no NUL and no lone
# surrogate, and neither database takes NaN. Integers wider than 64 bits and floats that
# jsonb turns into long integers go through Django's own code.
_text = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=12)
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_text, children, max_size=4),
    max_leaves=12,
)

OURS, THEIRS = FastJSONField(null=True), models.JSONField(null=True)


def _write_then_read(game_id: str, field: models.JSONField, value: Any) -> tuple[str, Any]:  # type: ignore[type-arg]
    """Store ``value`` through ``field``; the column's text and what ``field`` reads from it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE games_game SET state = %s WHERE id = %s",
            [field.get_db_prep_save(value, connection), game_id],
        )
        cursor.execute("SELECT state FROM games_game WHERE id = %s", [game_id])
        (text,) = cursor.fetchone()
    return text, field.from_db_value(text, None, connection)


@pytest.fixture
def game_id(alice, bob) -> str:  # type: ignore[no-untyped-def]
    return Game.objects.create(
        created_by=alice, player_a=alice, player_b=bob, options={}, status=Game.Status.ACTIVE
    ).pk


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(value=_json)
def test_what_is_stored_and_read_back_is_what_a_jsonfield_stores_and_reads(game_id, value):
    ours_text, ours = _write_then_read(game_id, OURS, value)
    theirs_text, theirs = _write_then_read(game_id, THEIRS, value)

    assert ours == theirs
    assert type(ours) is type(theirs)
    assert OURS.from_db_value(theirs_text, None, connection) == theirs  # older rows read the same
    if connection.vendor == "postgresql":
        assert ours_text == theirs_text  # jsonb keeps the value, not the text


def test_the_game_snapshot_and_events_use_it(game_id):
    stored = {"hands": {"a": ["a01", "a02"], "b": []}, "version": 2, "name": "Drachenherz ✓"}
    Game.objects.filter(pk=game_id).update(state=stored)

    assert Game.objects.get(pk=game_id).state == stored
    assert list(Game.objects.filter(pk=game_id).values_list("state__hands__a", flat=True)) == [["a01", "a02"]]
    assert isinstance(Game._meta.get_field("state"), FastJSONField)
    assert isinstance(Game._meta.get_field("events").related_model._meta.get_field("payload"), FastJSONField)
