"""Card identities: the canonical deck order of RULES.md section 4.

A card id is the seat letter plus a two-digit index into the canonical deck, so
``a23`` is one of seat a's 1-point dwarves. Everything that leaves the engine
names cards this way.
"""

from __future__ import annotations

from typing import Final, Literal, TypeGuard

# A seat is one of two letters everywhere: in events, states, records and card ids.
Seat = Literal["a", "b"]

SEATS: Final[tuple[Seat, Seat]] = ("a", "b")

CHEST: Final = "chest"
FIRE_DRAGON: Final = "fire_dragon"
STONE_DRAGON: Final = "stone_dragon"
PRINCESS: Final = "princess"
TROLL: Final = "troll"
DWARF: Final = "dwarf"
HERO: Final = "hero"
HUNTRESS: Final = "huntress"
SHIP: Final = "ship"

# Board order as drawn (and as listed in a replay's "board" object).
TYPES: Final = (CHEST, FIRE_DRAGON, STONE_DRAGON, PRINCESS, TROLL, DWARF, HERO, HUNTRESS, SHIP)

# Short ids used by the rule texts (CH3, DW1, ...).
SHORT: Final = {
    CHEST: "CH",
    FIRE_DRAGON: "FD",
    STONE_DRAGON: "PD",
    PRINCESS: "PR",
    TROLL: "TR",
    DWARF: "DW",
    HERO: "HE",
    HUNTRESS: "HU",
    SHIP: "SH",
}

# Limited spaces fire when full; stacks (every other type) are unlimited.
CAPACITY: Final = {HUNTRESS: 3, HERO: 2, DWARF: 4, SHIP: 3}

# The canonical deck, in id order: (type, printed value). Ships score 0.
_CANONICAL: Final = (
    [(CHEST, v) for v in (1, 1, 2, 2, 3, 3, 4)]
    + [(FIRE_DRAGON, v) for v in (2, 3, 3, 4)]
    + [(STONE_DRAGON, 2)] * 5
    + [(PRINCESS, v) for v in (1, 1, 2, 2)]
    + [(TROLL, v) for v in (1, 2, 3)]
    + [(DWARF, v) for v in (1, 1, 1, 1, 1, 1, 2, 2, 2, 3)]
    + [(HERO, v) for v in (1, 1, 1, 1, 2)]
    + [(HUNTRESS, v) for v in (1, 1, 1, 1, 2, 2)]
    + [(SHIP, 0)] * 6
)
DECK_SIZE: Final = len(_CANONICAL)
assert DECK_SIZE == 50


def is_seat(value: object) -> TypeGuard[Seat]:
    """Whether ``value`` (from JSON, a form or a row) names a seat: the check of input that
    has its own error for a bad seat, which also tells the type checker it is a ``Seat``."""
    return value in SEATS


def as_seat(value: object) -> Seat:
    """``value`` as a seat, for input that must hold one; ValueError if it does not."""
    if is_seat(value):
        return value
    raise ValueError(f"there is no seat {value!r}; seats are 'a' and 'b'")


def card_id(seat: Seat, index: int) -> str:
    return f"{seat}{index:02d}"


DECKS: Final = {seat: tuple(card_id(seat, i) for i in range(DECK_SIZE)) for seat in SEATS}
ALL_CARDS: Final = frozenset(DECKS["a"] + DECKS["b"])

CARD_TYPE: Final = {card_id(seat, i): kind for seat in SEATS for i, (kind, _) in enumerate(_CANONICAL)}

_STANDARD_VALUES = {card_id(seat, i): v for seat in SEATS for i, (_, v) in enumerate(_CANONICAL)}
# deck_profile dwarf_6x1_4x2 (the German overview's list): index 32 is a 2, total 78.
_DWARF_6X1_4X2_VALUES = {**_STANDARD_VALUES, "a32": 2, "b32": 2}

CARD_VALUES: Final = {
    "standard": _STANDARD_VALUES,
    "dwarf_6x1_4x2": _DWARF_6X1_4X2_VALUES,
}


def owner(card: str) -> Seat:
    """The seat whose deck a card comes from (it returns there only via the dragon rule)."""
    return as_seat(card[0])


def describe(card: str, values: dict[str, int] = _STANDARD_VALUES) -> str:
    """Rule-text notation for messages: ``DW1``, ``SH``."""
    kind = CARD_TYPE[card]
    return SHORT[kind] if kind == SHIP else f"{SHORT[kind]}{values[card]}"


def other(seat: Seat) -> Seat:
    return "b" if seat == "a" else "a"
