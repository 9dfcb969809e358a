"""What a viewer may see: the one place that decides it (API, pages, emails, history, bots).

A viewer is seat ``"a"``, seat ``"b"`` or ``None`` (a spectator). Until the game is over the
opponent's hand, the order of every draw pile, the identity of cards drawn by someone else and
the card an opponent put back on losing the dragon stay hidden; counts are public. Points are
shown only once the game is over, or during play with the ``open_scores`` option (like
BrettspielWelt, players otherwise see only how many cards each has captured).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from engine import events as ev
from engine.cards import SEATS, TYPES, Seat
from engine.events import Event, LogEvent
from engine.rules import Play, legal_plays
from engine.state import State

Viewer = Seat | None


def view_state(state: State, viewer: Viewer, revealed: bool | None = None) -> dict[str, Any]:
    """The state as ``viewer`` may see it, JSON-ready. After the end, everything; ``revealed``
    says whether the game is over when ``state`` is an earlier step of it (history pages)."""
    if state.over if revealed is None else revealed:
        full = state.to_json()
        full.update(_common(state))
        full["end_reason"] = state.end_reason
        full["end_seat"] = state.end_seat
        full["version"] = state.version
        return full
    shown = _common(state)
    shown.update(
        {
            "turn": state.turn,
            "to_move": state.to_move,
            "over": False,
            "last_turn": state.last_turn,
            "hands": {seat: list(state.hands[seat]) if seat == viewer else None for seat in SEATS},
            "board": {kind: list(state.board[kind]) for kind in TYPES},
            "hold": list(state.hold),
            "voyages": state.voyages,
            "dragon": state.dragon,
            "scores": state.scores() if state.options.open_scores else None,
            "winner": None,
        }
    )
    return shown


def _common(state: State) -> dict[str, Any]:
    return {
        "version": state.version,
        "hand_sizes": {seat: len(state.hands[seat]) for seat in SEATS},
        "pile_sizes": {seat: len(state.piles[seat]) for seat in SEATS},
        "captured_counts": {seat: len(state.captured[seat]) for seat in SEATS},
    }


def view_event(event: Event, viewer: Viewer, revealed: bool) -> Event:
    """One event as ``viewer`` may see it; ``revealed`` is true once the game is over. The
    copy may carry keys no engine event has (``hands``, ``count``, ``returned_count``), so
    this works on the loose ``Event`` of a log, not on ``AnyEvent``."""
    if revealed:
        return event
    kind = event["kind"]
    if kind == ev.GAME_STARTED:
        decks = event["decks"]
        return {
            "kind": kind,
            "v": event["v"],
            "first": event["first"],
            "options": event["options"],
            "hands": {seat: list(decks[seat][:5]) if seat == viewer else None for seat in SEATS},
            "hand_sizes": dict.fromkeys(SEATS, 5),
            "pile_sizes": {seat: len(decks[seat]) - 5 for seat in SEATS},
        }
    if kind == ev.CARDS_DRAWN:
        seen = event["seat"] == viewer
        return {**event, "cards": list(event["cards"]) if seen else None, "count": len(event["cards"])}
    if kind == ev.DRAGON_TRANSFERRED and event["returned"] is not None and event["from"] != viewer:
        return {**event, "returned": None, "returned_count": 1}
    return event


def view_events(log: Iterable[Event], viewer: Viewer, revealed: bool) -> list[Event]:
    return [view_event(e, viewer, revealed) for e in log]


class SeatView(NamedTuple):
    """Everything one seat knows at its turn, for bots. Built from the state but holding only
    public facts and the seat's own hand, so a bot cannot peek even by accident."""

    seat: Seat
    turn: int
    hand: tuple[str, ...]
    board: dict[str, tuple[str, ...]]
    hold: tuple[str, ...]
    voyages: int
    dragon: Seat | None
    last_turn: int | None
    hand_sizes: dict[Seat, int]
    pile_sizes: dict[Seat, int]
    # Captured cards were all face up on the board when taken, so they are public history.
    captured: dict[Seat, tuple[str, ...]]
    sailed: tuple[str, ...]  # ships of finished voyages, out of play
    values: dict[str, int]
    options: Any
    legal: tuple[Play, ...]
    # Cards the seat knows lie on top of its own pile, top first: the card it put back on
    # losing the dragon, until it draws it again. Known only when the log is given.
    pile_top: tuple[str, ...] = ()


def seat_view(state: State, seat: Seat, log: Sequence[LogEvent] = ()) -> SeatView:
    """What ``seat`` knows; pass the game's ``log`` (or its recent end) so the view can also
    name the card the seat put back on its own pile."""
    return SeatView(
        seat,
        state.turn,
        tuple(state.hands[seat]),
        {kind: tuple(cards) for kind, cards in state.board.items()},
        tuple(state.hold),
        state.voyages,
        state.dragon,
        state.last_turn,
        {s: len(state.hands[s]) for s in SEATS},
        {s: len(state.piles[s]) for s in SEATS},
        {s: tuple(state.captured[s]) for s in SEATS},
        tuple(card for voyage in state.voyage_ships for card in voyage),
        state.values,
        state.options,
        tuple(legal_plays(state)) if state.to_move == seat else (),
        _put_back(state, seat, log),
    )


def _put_back(state: State, seat: Seat, log: Sequence[LogEvent]) -> tuple[str, ...]:
    """The card ``seat`` put back on its pile and has not drawn since, if the log shows one."""
    for event in reversed(log):
        kind = event["kind"]
        if kind == ev.CARDS_DRAWN and event["seat"] == seat:
            return ()
        if kind == ev.DRAGON_TRANSFERRED and event["from"] == seat:
            card = event["returned"]
            pile = state.piles[seat]
            return (card,) if card is not None and pile and pile[0] == card else ()
        if kind == ev.GAME_STARTED:
            return ()
    return ()
