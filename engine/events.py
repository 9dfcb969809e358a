"""Events: past-tense, JSON-serialisable facts, each with a ``kind`` and a schema version ``v``.

A turn is recorded as the chain below (optional links in brackets)::

    cards_played | turn_passed
    [cards_captured] [cards_moved_to_hold] [voyage_completed] [dragon_transferred]
    [last_turn_scheduled: third voyage] [cards_drawn] [last_turn_scheduled: pile ran out]
    turn_ended [game_ended]

Every random outcome (deck orders, the card put back on losing the dragon) is written into an
event when it is decided, so replaying a log never draws a random number.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, TypedDict

from engine.cards import Seat

SCHEMA_VERSION: Final = 1

GAME_STARTED: Final = "game_started"
CARDS_PLAYED: Final = "cards_played"
TURN_PASSED: Final = "turn_passed"
CARDS_CAPTURED: Final = "cards_captured"
CARDS_MOVED_TO_HOLD: Final = "cards_moved_to_hold"
VOYAGE_COMPLETED: Final = "voyage_completed"
DRAGON_TRANSFERRED: Final = "dragon_transferred"
CARDS_DRAWN: Final = "cards_drawn"
LAST_TURN_SCHEDULED: Final = "last_turn_scheduled"
TURN_ENDED: Final = "turn_ended"
GAME_ENDED: Final = "game_ended"
# Clock facts, not rules: a player's declared absence, recorded so that both players can see
# why a turn did not time out. They change nothing in the game.
VACATION_STARTED: Final = "vacation_started"
VACATION_ENDED: Final = "vacation_ended"

KINDS: Final = (
    GAME_STARTED,
    CARDS_PLAYED,
    TURN_PASSED,
    CARDS_CAPTURED,
    CARDS_MOVED_TO_HOLD,
    VOYAGE_COMPLETED,
    DRAGON_TRANSFERRED,
    CARDS_DRAWN,
    LAST_TURN_SCHEDULED,
    TURN_ENDED,
    GAME_ENDED,
    VACATION_STARTED,
    VACATION_ENDED,
)

# Why a game ended (game_ended.reason) or why a last turn was scheduled.
THIRD_VOYAGE: Final = "third_voyage"
DECK_EXHAUSTED: Final = "deck_exhausted"
RESIGNED: Final = "resigned"
TIMEOUT: Final = "timeout"
ABORTED: Final = "aborted"

LastTurnReason = Literal["third_voyage", "deck_exhausted"]
EndReason = Literal["third_voyage", "deck_exhausted", "resigned", "timeout", "aborted"]


# --- the events as the engine writes them ---------------------------------------------------
# One TypedDict per kind, with exactly the keys its constructor below builds. They are plain
# dicts at run time: the types cost nothing on the hot paths and change no JSON.


class GameStarted(TypedDict):
    kind: Literal["game_started"]
    v: int
    decks: dict[Seat, list[str]]  # shuffled: the first five cards are the hand, then the pile top first
    first: Seat
    options: dict[str, Any]  # Options.to_json()


class CardsPlayed(TypedDict):
    kind: Literal["cards_played"]
    v: int
    seat: Seat
    cards: list[str]
    space: str  # the cards' type key
    choice: str | None


class TurnPassed(TypedDict):
    kind: Literal["turn_passed"]
    v: int
    seat: Seat


class CardsCaptured(TypedDict):
    kind: Literal["cards_captured"]
    v: int
    seat: Seat
    space: str  # a type key, or "hold" for a voyage's haul
    cards: list[str]


class CardsMovedToHold(TypedDict):
    kind: Literal["cards_moved_to_hold"]
    v: int
    space: str
    cards: list[str]


class VoyageCompleted(TypedDict):
    kind: Literal["voyage_completed"]
    v: int
    seat: Seat
    ships: list[str]
    voyages: int


# The functional form, because one key is the keyword ``from``.
DragonTransferred = TypedDict(
    "DragonTransferred",
    {
        "kind": Literal["dragon_transferred"],
        "v": int,
        "from": Seat | None,
        "to": Seat,
        "returned": str | None,
    },
)


class CardsDrawn(TypedDict):
    kind: Literal["cards_drawn"]
    v: int
    seat: Seat
    cards: list[str]


class LastTurnScheduled(TypedDict):
    kind: Literal["last_turn_scheduled"]
    v: int
    turn: int
    reason: LastTurnReason
    seat: Seat


class TurnEnded(TypedDict):
    kind: Literal["turn_ended"]
    v: int
    seat: Seat
    turn: int


class GameEnded(TypedDict):
    kind: Literal["game_ended"]
    v: int
    reason: EndReason
    scores: dict[Seat, int]
    winner: Seat | None
    seat: Seat | None


class VacationStarted(TypedDict):
    kind: Literal["vacation_started"]
    v: int
    seat: Seat
    until: str


class VacationEnded(TypedDict):
    kind: Literal["vacation_ended"]
    v: int
    seat: Seat


# Any event the engine writes. Tagged by ``kind``: comparing ``event["kind"]`` with one of
# the constants above narrows it to that kind's TypedDict.
AnyEvent = (
    GameStarted
    | CardsPlayed
    | TurnPassed
    | CardsCaptured
    | CardsMovedToHold
    | VoyageCompleted
    | DragonTransferred
    | CardsDrawn
    | LastTurnScheduled
    | TurnEnded
    | GameEnded
    | VacationStarted
    | VacationEnded
)

# Any event as read from a log, for the code outside the engine: a row's JSON, an event of an
# older schema version before its upcast, or a viewer's redacted copy (engine.visibility),
# which carries keys no AnyEvent has. So it stays a loose dict.
Event = dict[str, Any]

# What the engine's readers (the fold, the views, the record) take: an event it has just
# written or one read back from a log. A Mapping, because a TypedDict is a Mapping[str, Any]
# but never a dict[str, Any]; the readers only read.
LogEvent = Mapping[str, Any]


def game_started(decks: dict[Seat, list[str]], first: Seat, options: dict[str, Any]) -> GameStarted:
    return {"kind": GAME_STARTED, "v": SCHEMA_VERSION, "decks": decks, "first": first, "options": options}


def cards_played(seat: Seat, cards: list[str], space: str, choice: str | None) -> CardsPlayed:
    return {
        "kind": CARDS_PLAYED,
        "v": SCHEMA_VERSION,
        "seat": seat,
        "cards": cards,
        "space": space,
        "choice": choice,
    }


def turn_passed(seat: Seat) -> TurnPassed:
    return {"kind": TURN_PASSED, "v": SCHEMA_VERSION, "seat": seat}


def cards_captured(seat: Seat, space: str, cards: list[str]) -> CardsCaptured:
    """``space`` is a type key, or ``"hold"`` for a voyage's haul."""
    return {"kind": CARDS_CAPTURED, "v": SCHEMA_VERSION, "seat": seat, "space": space, "cards": cards}


def cards_moved_to_hold(space: str, cards: list[str]) -> CardsMovedToHold:
    return {"kind": CARDS_MOVED_TO_HOLD, "v": SCHEMA_VERSION, "space": space, "cards": cards}


def voyage_completed(seat: Seat, ships: list[str], voyages: int) -> VoyageCompleted:
    return {"kind": VOYAGE_COMPLETED, "v": SCHEMA_VERSION, "seat": seat, "ships": ships, "voyages": voyages}


def dragon_transferred(from_seat: Seat | None, to_seat: Seat, returned: str | None) -> DragonTransferred:
    """``from`` is None when the dragon leaves the board; ``returned`` is the card the loser put
    on top of his own draw pile (hidden from everyone but the loser until the game ends)."""
    return {
        "kind": DRAGON_TRANSFERRED,
        "v": SCHEMA_VERSION,
        "from": from_seat,
        "to": to_seat,
        "returned": returned,
    }


def cards_drawn(seat: Seat, cards: list[str]) -> CardsDrawn:
    return {"kind": CARDS_DRAWN, "v": SCHEMA_VERSION, "seat": seat, "cards": cards}


def last_turn_scheduled(turn: int, reason: LastTurnReason, seat: Seat) -> LastTurnScheduled:
    """``seat`` is the player whose turn triggered it (who sailed, or whose pile ran out)."""
    return {"kind": LAST_TURN_SCHEDULED, "v": SCHEMA_VERSION, "turn": turn, "reason": reason, "seat": seat}


def turn_ended(seat: Seat, turn: int) -> TurnEnded:
    return {"kind": TURN_ENDED, "v": SCHEMA_VERSION, "seat": seat, "turn": turn}


def game_ended(
    reason: EndReason, scores: dict[Seat, int], winner: Seat | None, seat: Seat | None = None
) -> GameEnded:
    """``seat`` names who resigned, ran out of time or never moved, for those reasons."""
    return {
        "kind": GAME_ENDED,
        "v": SCHEMA_VERSION,
        "reason": reason,
        "scores": scores,
        "winner": winner,
        "seat": seat,
    }


def vacation_started(seat: Seat, until: str) -> VacationStarted:
    """``until`` is an ISO 8601 time: the clocks of ``seat``'s turns stop until then."""
    return {"kind": VACATION_STARTED, "v": SCHEMA_VERSION, "seat": seat, "until": until}


def vacation_ended(seat: Seat) -> VacationEnded:
    return {"kind": VACATION_ENDED, "v": SCHEMA_VERSION, "seat": seat}


Upcaster = Callable[[Event], Event]

# (kind, version) → the step that turns an event of that version into the next version of the
# same kind; a kind keeps its name across versions. Empty while every kind is at version 1:
# a bump adds its step here, and stored logs are never rewritten.
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcast(event: Event) -> Event:
    """Bring a stored event of an older schema version up to the current one, step by step;
    an event already current comes back as it is. The one place that calls it is where a
    stored row becomes an engine event (games.models.GameEvent.as_engine_event), so that every
    reader of a log gets current events and none upcasts twice."""
    step = UPCASTERS.get((event["kind"], event["v"]))
    while step is not None:
        event = step(event)
        step = UPCASTERS.get((event["kind"], event["v"]))
    return event
