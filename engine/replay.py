"""The evolve step: apply one recorded event. It trusts the log and never fails, and it never
draws a random number: every random outcome is already in the events."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine import events as ev
from engine.cards import SHIP, other
from engine.events import (
    CardsCaptured,
    CardsDrawn,
    CardsMovedToHold,
    CardsPlayed,
    DragonTransferred,
    GameEnded,
    LastTurnScheduled,
    LogEvent,
    TurnEnded,
    TurnPassed,
    VacationEnded,
    VacationStarted,
    VoyageCompleted,
)
from engine.options import resolve_options
from engine.state import State


def _remove(cards: list[str], gone: list[str]) -> None:
    # Captures always take a whole pile; clearing is the common case and the cheap one.
    if len(gone) == len(cards):
        cards.clear()
    else:
        for card in gone:
            cards.remove(card)


def _cards_played(s: State, e: CardsPlayed) -> None:
    _remove(s.hands[e["seat"]], e["cards"])
    s.board[e["space"]].extend(e["cards"])


def _turn_passed(s: State, e: TurnPassed) -> None:
    pass


def _nothing(s: State, e: VacationStarted | VacationEnded) -> None:
    """Clock facts (a vacation) are in the log for people to read; the game state ignores them."""


def _cards_captured(s: State, e: CardsCaptured) -> None:
    cards = e["cards"]
    _remove(s.hold if e["space"] == "hold" else s.board[e["space"]], cards)
    seat = e["seat"]
    s.captured[seat].extend(cards)
    values = s.values
    s.points[seat] += sum([values[c] for c in cards])


def _cards_moved_to_hold(s: State, e: CardsMovedToHold) -> None:
    _remove(s.board[e["space"]], e["cards"])
    s.hold.extend(e["cards"])


def _voyage_completed(s: State, e: VoyageCompleted) -> None:
    _remove(s.board[SHIP], e["ships"])
    s.voyage_ships.append(list(e["ships"]))
    s.voyages = e["voyages"]


def _dragon_transferred(s: State, e: DragonTransferred) -> None:
    returned = e["returned"]
    if returned is not None:
        loser = e["from"]
        assert loser is not None, "only a dragon taken from a player has a card put back"
        s.hands[loser].remove(returned)
        s.piles[loser].insert(0, returned)
    s.dragon = e["to"]


def _cards_drawn(s: State, e: CardsDrawn) -> None:
    seat = e["seat"]
    cards = e["cards"]
    del s.piles[seat][: len(cards)]
    s.hands[seat].extend(cards)


def _last_turn_scheduled(s: State, e: LastTurnScheduled) -> None:
    s.last_turn = e["turn"]
    s.last_turn_reason = e["reason"]


def _turn_ended(s: State, e: TurnEnded) -> None:
    s.turn = e["turn"]
    s.to_move = other(e["seat"])


def _game_ended(s: State, e: GameEnded) -> None:
    s.over = True
    s.to_move = None
    s.winner = e["winner"]
    s.end_reason = e["reason"]
    s.end_seat = e["seat"]


# Each apply function is typed with its kind's event, so its body is checked against the keys
# that kind has; a mapping from kind to function cannot say which type goes with which key,
# hence Any here. The lookup by ``kind`` is what narrows an event (and the fastest dispatch).
_APPLY: dict[str, Callable[[State, Any], None]] = {
    ev.CARDS_PLAYED: _cards_played,
    ev.TURN_PASSED: _turn_passed,
    ev.CARDS_CAPTURED: _cards_captured,
    ev.CARDS_MOVED_TO_HOLD: _cards_moved_to_hold,
    ev.VOYAGE_COMPLETED: _voyage_completed,
    ev.DRAGON_TRANSFERRED: _dragon_transferred,
    ev.CARDS_DRAWN: _cards_drawn,
    ev.LAST_TURN_SCHEDULED: _last_turn_scheduled,
    ev.TURN_ENDED: _turn_ended,
    ev.GAME_ENDED: _game_ended,
    ev.VACATION_STARTED: _nothing,
    ev.VACATION_ENDED: _nothing,
}


def state_from_start(event: LogEvent) -> State:
    """The state right after a ``game_started`` event (version 1: one event folded in)."""
    state = State.new(event["decks"], event["first"], resolve_options(event["options"]))
    state.version = 1
    return state


def apply_event(state: State, event: LogEvent) -> None:
    """Apply one event in place (the fold's own accumulator only)."""
    _APPLY[event["kind"]](state, event)
    state.version += 1


def apply_events(state: State, events: Iterable[LogEvent]) -> None:
    apply = _APPLY
    n = 0
    for event in events:
        apply[event["kind"]](state, event)
        n += 1
    state.version += n


def evolve(state: State | None, event: LogEvent) -> State:
    """Pure evolve: a new state with ``event`` applied; ``state`` is left as it was."""
    if event["kind"] == ev.GAME_STARTED:
        return state_from_start(event)
    assert state is not None, "a log begins with game_started"
    new = state.copy()
    apply_event(new, event)
    return new


def fold(events: Iterable[LogEvent]) -> State:
    """Rebuild a game's state from its whole log (one state held at a time). The events are
    of the current schema: a log read from storage is upcast as it is read (events.upcast)."""
    it = iter(events)
    state = state_from_start(next(it))
    apply_events(state, it)
    return state
