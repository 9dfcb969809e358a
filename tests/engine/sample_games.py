"""Small games for the record, replay, visibility and bot tests.

``dragon_swap_record`` is written by hand so that every play is forced: b wins the dragon from
the board with its second play and a takes it from b with play 4, when b has six cards and must
put one back. Decks are given top first; ``deck`` puts the named cards on top of the rest of the
seat's deck in canonical order.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from engine.cards import DECKS, Seat
from engine.options import resolve_options
from engine.record import FORMAT, record_from_events
from engine.selfplay import play_game


def deck(seat: Seat, *top: str) -> list[str]:
    return [*top, *(card for card in DECKS[seat] if card not in top)]


# a: PD a11, PD a12, PR1 a16, CH1 a00, CH1 a01 | pile a02, a03, ...
# b: PR1 b16, CH1 b00, CH1 b01, CH2 b02, CH2 b03 | pile b04, b05, b06, ...
SWAP_DECKS: dict[Seat, list[str]] = {
    "a": deck("a", "a11", "a12", "a16", "a00", "a01"),
    "b": deck("b", "b16", "b00", "b01", "b02", "b03"),
}

SWAP_PLAYS: list[dict[str, Any]] = [
    {"cards": ["a11"]},  # 0: a petrified dragon; a draws a02
    {"cards": ["b16"], "choice": "stones"},  # 1: b takes a11 and the dragon from the board, draws 2
    {"cards": ["a12"]},  # 2: another petrified dragon
    {"cards": ["b00"]},  # 3: a chest; b refills to six: b01 b02 b03 b04 b05 b06
    {"cards": ["a16"], "choice": "stones", "returned": "b03"},  # 4: a takes a12 and the dragon
]

# b's hand when a takes the dragon (play 4), and the top of b's pile then.
B_HAND_AT_SWAP = ["b01", "b02", "b03", "b04", "b05", "b06"]
B_PILE_TOP_AT_SWAP = "b07"


def record(
    plays: list[dict[str, Any]], decks: dict[str, list[str]] | None = None, **extra: Any
) -> dict[str, Any]:
    """A record with seat a first; by default on the dragon swap decks."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "first": "a",
        "decks": copy.deepcopy(SWAP_DECKS if decks is None else decks),
        "plays": copy.deepcopy(plays),
    }
    doc.update(extra)
    return doc


def dragon_swap_record() -> dict[str, Any]:
    return record(SWAP_PLAYS)


@functools.cache
def _finished_record(seed: str, preset: str) -> dict[str, Any]:
    _, log = play_game({"a": "greedy", "b": "random"}, seed, "a", resolve_options({"preset": preset}))
    return record_from_events(log, {"a": "greedy", "b": "random"})


def finished_record(seed: str = "record", preset: str = "official") -> dict[str, Any]:
    """The record of a whole greedy-against-random game (a fresh copy on every call)."""
    return copy.deepcopy(_finished_record(seed, preset))
