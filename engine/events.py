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

from collections.abc import Callable
from typing import Any, Final

Event = dict[str, Any]

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


def game_started(decks: dict[str, list[str]], first: str, options: dict[str, Any]) -> Event:
    return {"kind": GAME_STARTED, "v": SCHEMA_VERSION, "decks": decks, "first": first, "options": options}


def cards_played(seat: str, cards: list[str], space: str, choice: str | None) -> Event:
    return {
        "kind": CARDS_PLAYED,
        "v": SCHEMA_VERSION,
        "seat": seat,
        "cards": cards,
        "space": space,
        "choice": choice,
    }


def turn_passed(seat: str) -> Event:
    return {"kind": TURN_PASSED, "v": SCHEMA_VERSION, "seat": seat}


def cards_captured(seat: str, space: str, cards: list[str]) -> Event:
    """``space`` is a type key, or ``"hold"`` for a voyage's haul."""
    return {"kind": CARDS_CAPTURED, "v": SCHEMA_VERSION, "seat": seat, "space": space, "cards": cards}


def cards_moved_to_hold(space: str, cards: list[str]) -> Event:
    return {"kind": CARDS_MOVED_TO_HOLD, "v": SCHEMA_VERSION, "space": space, "cards": cards}


def voyage_completed(seat: str, ships: list[str], voyages: int) -> Event:
    return {"kind": VOYAGE_COMPLETED, "v": SCHEMA_VERSION, "seat": seat, "ships": ships, "voyages": voyages}


def dragon_transferred(from_seat: str | None, to_seat: str, returned: str | None) -> Event:
    """``from`` is None when the dragon leaves the board; ``returned`` is the card the loser put
    on top of his own draw pile (hidden from everyone but the loser until the game ends)."""
    return {
        "kind": DRAGON_TRANSFERRED,
        "v": SCHEMA_VERSION,
        "from": from_seat,
        "to": to_seat,
        "returned": returned,
    }


def cards_drawn(seat: str, cards: list[str]) -> Event:
    return {"kind": CARDS_DRAWN, "v": SCHEMA_VERSION, "seat": seat, "cards": cards}


def last_turn_scheduled(turn: int, reason: str, seat: str) -> Event:
    """``seat`` is the player whose turn triggered it (who sailed, or whose pile ran out)."""
    return {"kind": LAST_TURN_SCHEDULED, "v": SCHEMA_VERSION, "turn": turn, "reason": reason, "seat": seat}


def turn_ended(seat: str, turn: int) -> Event:
    return {"kind": TURN_ENDED, "v": SCHEMA_VERSION, "seat": seat, "turn": turn}


def game_ended(reason: str, scores: dict[str, int], winner: str | None, seat: str | None = None) -> Event:
    """``seat`` names who resigned, ran out of time or never moved, for those reasons."""
    return {
        "kind": GAME_ENDED,
        "v": SCHEMA_VERSION,
        "reason": reason,
        "scores": scores,
        "winner": winner,
        "seat": seat,
    }


def vacation_started(seat: str, until: str) -> Event:
    """``until`` is an ISO 8601 time: the clocks of ``seat``'s turns stop until then."""
    return {"kind": VACATION_STARTED, "v": SCHEMA_VERSION, "seat": seat, "until": until}


def vacation_ended(seat: str) -> Event:
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
