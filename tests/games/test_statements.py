"""The precompiled writes of a play store exactly what the ORM would, on SQLite and on
PostgreSQL (the second pass of scripts/test), and a play's writes are all or nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import Model
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import selectors
from games.event_log import statements
from games.models import Game, GameEvent
from outbox.models import Notification


def _new_game(alice, bob) -> Game:
    return Game.objects.create(
        status=Game.Status.ACTIVE,
        created_by=alice,
        player_a=alice,
        player_b=bob,
        player_a_name="alice",
        player_b_name="bob",
        options={"preset": "official", "nested": {"list": [1, 2]}},
        state={"hands": {"a": ["a01"]}, "version": 3},
        version=3,
    )


def _stored(obj):
    """The row as read back from the database, without the primary key."""
    fresh = type(obj).objects.get(pk=obj.pk)
    row = {f.attname: getattr(fresh, f.attname) for f in type(obj)._meta.concrete_fields}
    row.pop("id")
    return row


@pytest.mark.django_db
def test_an_insert_stores_what_bulk_create_stores(alice, bob):
    game = _new_game(alice, bob)
    when = timezone.now()

    def events(first_seq: int) -> list[GameEvent]:
        return [
            GameEvent(
                game=game,
                seq=first_seq + i,
                kind="play",
                v=1,
                payload={"cards": ["a01"], "n": i},
                actor=alice,
                created_at=when,
            )
            for i in range(3)
        ]

    by_orm, by_statement = events(1), events(11)
    GameEvent.objects.bulk_create(by_orm)
    statements.insert(by_statement)

    for orm, mine in zip(by_orm, by_statement, strict=True):
        expected, stored = _stored(orm), _stored(mine)
        assert stored.pop("seq") == expected.pop("seq") + 10
        # auto_now_add: both paths stamp the time of writing, as the ORM's pre_save does
        assert abs(stored.pop("created_at") - expected.pop("created_at")) < timedelta(seconds=5)
        assert stored == expected


@pytest.mark.django_db
def test_an_insert_fills_defaults_and_reads_back_the_key(alice, bob):
    game = _new_game(alice, bob)
    note = Notification(user=alice, game=game, kind=Notification.Kind.YOUR_TURN, key="k:1")
    twin = Notification.objects.create(user=alice, game=game, kind=Notification.Kind.YOUR_TURN, key="k:2")

    statements.insert([note])

    assert note.pk is not None
    assert not note._state.adding
    stored, expected = _stored(note), _stored(twin)
    assert stored.pop("key") == "k:1"
    assert expected.pop("key") == "k:2"
    assert abs(stored.pop("created_at") - expected.pop("created_at")) < timedelta(seconds=5)
    assert stored == expected  # attempts 0, skipped "", sent_at None, …


@pytest.mark.django_db
def test_a_unique_clash_raises_integrity_error(alice, bob):
    game = _new_game(alice, bob)
    statements.insert([GameEvent(game=game, seq=1, kind="x", v=1, payload={})])

    with pytest.raises(IntegrityError), transaction.atomic():
        statements.insert([GameEvent(game=game, seq=1, kind="y", v=1, payload={})])

    assert list(GameEvent.objects.filter(game=game).values_list("kind", flat=True)) == ["x"]


@pytest.mark.django_db
def test_an_update_changes_only_the_row_that_matches_and_stores_what_update_stores(alice, bob):
    game, other = _new_game(alice, bob), _new_game(alice, bob)
    values = {
        "version": 4,
        "to_move": "b",
        "state": {"hands": {"b": ["b02"]}, "flag": True},
        "scores": None,
        "turn_started_at": timezone.now(),
    }

    assert statements.update(Game, {"id": game.pk, "version": 2}, values) == 0  # stale: nothing
    assert statements.update(Game, {"id": game.pk, "version": 3}, values) == 1
    Game.objects.filter(pk=other.pk, version=3).update(**values)

    assert model_to_dict(Game.objects.get(pk=game.pk), exclude=["id", "invite_token"]) == model_to_dict(
        Game.objects.get(pk=other.pk), exclude=["id", "invite_token"]
    )


@pytest.mark.django_db
def test_game_by_id_reads_the_row_as_the_orm_does(alice, bob):
    game = _new_game(alice, bob)
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now(), scores={"a": 10, "b": 7})
    expected = Game.objects.get(pk=game.pk)

    read = selectors.game_by_id(game.pk)

    assert read is not None
    for field in Game._meta.concrete_fields:
        assert getattr(read, field.attname) == getattr(expected, field.attname), field.name
    assert selectors.game_by_id("no-such-game") is None


def _rows(game: Game, alice) -> list[Model]:
    """A play's rows: two events (one with no actor: an untyped NULL) and an outbox row."""
    return [
        GameEvent(game=game, seq=4, kind="cards_played", v=1, payload={"cards": ["a01"]}, actor=alice),
        GameEvent(game=game, seq=5, kind="turn_ended", v=1, payload={}, actor=None),
        Notification(user=alice, game=game, kind=Notification.Kind.YOUR_TURN, key=f"{game.pk}:5"),
    ]


@pytest.mark.django_db
def test_update_then_insert_writes_the_rows_as_the_orm_does_and_reads_back_their_keys(alice, bob):
    game, twin = _new_game(alice, bob), _new_game(alice, bob)
    values = {"version": 5, "to_move": "b", "state": {"hands": {"b": ["b02"]}}}
    rows, orm_rows = _rows(game, alice), _rows(twin, alice)

    assert statements.update_then_insert(Game, {"id": game.pk, "version": 3}, values, rows)
    Game.objects.filter(pk=twin.pk).update(**values)
    for row in orm_rows:
        row.save()

    assert model_to_dict(Game.objects.get(pk=game.pk), exclude=["id", "invite_token"]) == model_to_dict(
        Game.objects.get(pk=twin.pk), exclude=["id", "invite_token"]
    )
    for mine, orm in zip(rows, orm_rows, strict=True):
        assert mine.pk is not None
        assert not mine._state.adding
        stored, expected = _stored(mine), _stored(orm)
        for name in ("game_id", "key", "created_at"):
            stored.pop(name, None)
            expected.pop(name, None)
        assert stored == expected


@pytest.mark.django_db
def test_update_then_insert_writes_nothing_when_the_update_matches_nothing(alice, bob):
    game = _new_game(alice, bob)
    rows = _rows(game, alice)

    assert not statements.update_then_insert(Game, {"id": game.pk, "version": 2}, {"version": 5}, rows)

    assert Game.objects.get(pk=game.pk).version == 3
    assert not GameEvent.objects.filter(game=game).exists()
    assert not Notification.objects.filter(game=game).exists()
    assert all(row.pk is None and row._state.adding for row in rows)


@pytest.mark.django_db(transaction=True)
def test_update_then_insert_is_all_or_nothing_when_a_row_clashes(alice, bob):
    """In autocommit, as a play runs: no transaction of the test's would roll it back for it."""
    game = _new_game(alice, bob)
    Notification.objects.create(user=alice, game=game, kind=Notification.Kind.YOUR_TURN, key=f"{game.pk}:5")

    with pytest.raises(IntegrityError):
        statements.update_then_insert(Game, {"id": game.pk, "version": 3}, {"version": 5}, _rows(game, alice))

    assert Game.objects.get(pk=game.pk).version == 3
    assert not GameEvent.objects.filter(game=game).exists()


@pytest.mark.django_db
def test_on_postgresql_update_then_insert_is_one_statement(alice, bob):
    game = _new_game(alice, bob)

    with CaptureQueriesContext(connection) as queries:
        statements.update_then_insert(Game, {"id": game.pk, "version": 3}, {"version": 5}, _rows(game, alice))

    assert len(queries) == (1 if connection.vendor == "postgresql" else 3)
