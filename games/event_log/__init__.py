"""The only place that appends to a game's log, and the only place that reads it back.

Optimistic concurrency: every append states the version it expects. The game row is updated
first with ``WHERE version = expected``, and the events are written only if it matched: on
PostgreSQL the second of two racing writers waits for the first's row lock, then finds the
version moved and updates nothing; SQLite serialises writers (IMMEDIATE transactions). Either
way the loser gets ``StaleVersion`` and nothing of its change is written. The unique (game,
seq) key is the last guard: a duplicate sequence number can never be stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Model
from django.utils import timezone

from engine import AnyEvent, Event, State, fold
from engine import events as ev
from games.errors import StaleVersion
from games.event_log import statements
from games.models import Game, GameEvent


def load_state(game: Game) -> State:
    """The game's current engine state, from the cached snapshot (no log read)."""
    if game.state is None:
        return rebuild_state(game)
    return State.from_snapshot(game.state)


def read_events(game: Game, after: int = 0, limit: int | None = None) -> list[GameEvent]:
    rows = GameEvent.objects.filter(game=game, seq__gt=after).order_by("seq")
    return list(rows[:limit] if limit is not None else rows)


def read_log(game: Game) -> list[Event]:
    """The whole log as engine events of the current schema."""
    return [row.as_engine_event() for row in read_events(game)]


def played_since(game: Game, version: int) -> bool:
    """Whether a play was recorded after ``version``: any event but a vacation's start or end,
    which are clock facts and leave a turn open."""
    later = GameEvent.objects.filter(game_id=game.pk, seq__gt=version)
    return later.exclude(kind__in=(ev.VACATION_STARTED, ev.VACATION_ENDED)).exists()


def rebuild_state(game: Game) -> State:
    """The state by folding the whole stored log (audits, cache rebuilds)."""
    return fold(row.as_engine_event() for row in GameEvent.objects.filter(game=game).order_by("seq"))


def cache_fields(state: State) -> dict[str, Any]:
    """The Game columns that mirror a state."""
    fields: dict[str, Any] = {
        "version": state.version,
        "to_move": state.to_move or "",
        "state": state.to_snapshot(),
    }
    if state.over:
        fields.update(
            status=Game.Status.FINISHED,
            winner=state.winner or "",
            end_reason=state.end_reason or "",
            scores=state.scores(),
        )
    return fields


def append(
    game: Game,
    events: Iterable[AnyEvent],
    *,
    expected_version: int,
    state: State,
    actor: User | None = None,
    columns: Mapping[str, Any] = MappingProxyType({}),
    companions: Sequence[Model] = (),
) -> list[GameEvent]:
    """Append ``events`` (already applied to ``state``) after ``expected_version`` and update
    the game's cached columns, plus ``columns`` (the turn clock, a start's status), all at
    once; ``companions`` are new rows written with them (the outbox row of the next turn, a
    play's idempotency key).

    Raises StaleVersion if another writer got there first; nothing is written then.
    """
    now = timezone.now()
    rows = [
        GameEvent(
            game_id=game.pk,
            seq=expected_version + i,
            kind=event["kind"],
            v=event["v"],
            payload={k: v for k, v in event.items() if k not in ("kind", "v")},
            actor=actor,
            created_at=now,
        )
        for i, event in enumerate(events, start=1)
    ]
    fields = cache_fields(state)
    assert fields["version"] == expected_version + len(rows), "state and events disagree"
    if state.over and game.finished_at is None:
        fields["finished_at"] = now
    fields.update(columns)
    # One statement on PostgreSQL, whether or not the caller has a transaction open.
    if not statements.update_then_insert(
        Game, {"id": game.pk, "version": expected_version}, fields, [*rows, *companions]
    ):
        raise StaleVersion(expected_version)
    for name, value in fields.items():
        setattr(game, name, value)
    return rows
