"""The history of a game in words, and the board as it stood at any step.

The history page (``history_table``) steps one turn at a time (``turns_of``) and draws each
turn's board with ``state_at(log, turn.end)``; ``state_at`` also gives a review the position
before a turn's play (``reviews.better_position``) and a play link the position at the
version it was made for (``views.links``). The turn emails count "since your last turn" in
events (``first_unseen_step``). What a viewer may see at any step comes from
engine.visibility, as everywhere else."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from engine import events as ev
from engine.cards import CARD_VALUES
from engine.events import Event
from engine.replay import apply_event, state_from_start
from engine.state import State

TYPE_NAMES = {
    "chest": (lambda n: ngettext("treasure chest", "treasure chests", n)),
    "fire_dragon": (lambda n: ngettext("fire dragon", "fire dragons", n)),
    "stone_dragon": (lambda n: ngettext("petrified dragon", "petrified dragons", n)),
    "princess": (lambda n: ngettext("princess", "princesses", n)),
    "troll": (lambda n: ngettext("troll", "trolls", n)),
    "dwarf": (lambda n: ngettext("dwarf", "dwarves", n)),
    "hero": (lambda n: ngettext("hero", "heroes", n)),
    "huntress": (lambda n: ngettext("dragon huntress", "dragon huntresses", n)),
    "ship": (lambda n: ngettext("ship", "ships", n)),
}


def type_name(kind: str, count: int = 1) -> str:
    if kind == "hold":
        return _("the hold")
    return TYPE_NAMES[kind](count)


def state_at(log: list[Event], step: int) -> State:
    """The state after the first ``step`` events of ``log``, replayed from the deal: the game
    at version ``step`` (1 to len(log)). The deal is the first event: step 0 gives the dealt
    game too."""
    state = state_from_start(log[0])
    for event in log[1:step]:
        apply_event(state, event)
    return state


def describe(event: Event, names: dict[str, str], values: dict[str, int] = CARD_VALUES["standard"]) -> str:
    """One line of text for one event, as its viewer may see it (redacted events have no
    card ids, only counts)."""
    line = _DESCRIBERS.get(event["kind"])
    return str(event["kind"]) if line is None else line(event, names, values)


def _who(event: Event, names: dict[str, str]) -> str:
    return names.get(event.get("seat") or "", "")


def _game_started(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    return _("The cards are shuffled and dealt; %(first)s begins.") % {"first": names[event["first"]]}


def _cards_played(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    cards = event["cards"]
    worth = ", ".join(str(values[c]) for c in cards) if event["space"] != "ship" else ""
    line = _("%(who)s played %(count)d %(type)s") % {
        "who": _who(event, names),
        "count": len(cards),
        "type": type_name(event["space"], len(cards)),
    }
    line += f" ({worth})" if worth else ""
    if event["choice"]:
        line += " — " + _("chose %(choice)s") % {"choice": choice_name(event["choice"])}
    return line + "."


def _turn_passed(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    return _("%(who)s had no card left and passed.") % {"who": _who(event, names)}


def _cards_captured(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    cards = event["cards"]
    points = sum(values[c] for c in cards)
    # Two plurals in one sentence (cards and points): each part gets its own form.
    taking = ngettext(
        "%(who)s took %(count)d card from %(space)s",
        "%(who)s took %(count)d cards from %(space)s",
        len(cards),
    ) % {"who": _who(event, names), "count": len(cards), "space": space_name(event["space"])}
    worth = ngettext("%(n)d point", "%(n)d points", points) % {"n": points}
    return _("%(taking)s: %(points)s.") % {"taking": taking, "points": worth}


def _cards_moved_to_hold(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    return _("The %(type)s went into the hold.") % {"type": type_name(event["space"], len(event["cards"]))}


def _voyage_completed(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    return _("The ship sailed: voyage %(n)d.") % {"n": event["voyages"]}


def _dragon_transferred(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    taker = names[event["to"]]
    if event["from"] is None:
        return _("%(who)s won the Great Dragon.") % {"who": taker}
    loser = names[event["from"]]
    # A viewer who may not see the card put back gets its count instead (engine.visibility).
    if event["returned"] is None and not event.get("returned_count"):
        return _("%(who)s took the Great Dragon from %(loser)s.") % {"who": taker, "loser": loser}
    return _("%(who)s took the Great Dragon from %(loser)s, who put a card back on his pile.") % {
        "who": taker,
        "loser": loser,
    }


def _cards_drawn(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    count = event.get("count", len(event["cards"] or []))
    return ngettext("%(who)s drew %(count)d card.", "%(who)s drew %(count)d cards.", count) % {
        "who": _who(event, names),
        "count": count,
    }


def _last_turn_scheduled(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    why = _("the third voyage") if event["reason"] == ev.THIRD_VOYAGE else _("a draw pile ran out")
    return _("After %(why)s, turn %(turn)d will be the last.") % {"why": why, "turn": event["turn"]}


def _turn_ended(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    return _("End of turn %(turn)d.") % {"turn": event["turn"]}


def _vacation_started(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    return _("%(who)s is away until %(until)s: their clock stops.") % {
        "who": _who(event, names),
        "until": event["until"][:10],
    }


def _vacation_ended(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    return _("%(who)s is back; their clock runs again.") % {"who": _who(event, names)}


def _game_ended(event: Event, names: dict[str, str], values: dict[str, int]) -> str:
    return _("Game over (%(reason)s).") % {"reason": end_reason(event["reason"])}


_DESCRIBERS: dict[str, Callable[[Event, dict[str, str], dict[str, int]], str]] = {
    ev.GAME_STARTED: _game_started,
    ev.CARDS_PLAYED: _cards_played,
    ev.TURN_PASSED: _turn_passed,
    ev.CARDS_CAPTURED: _cards_captured,
    ev.CARDS_MOVED_TO_HOLD: _cards_moved_to_hold,
    ev.VOYAGE_COMPLETED: _voyage_completed,
    ev.DRAGON_TRANSFERRED: _dragon_transferred,
    ev.CARDS_DRAWN: _cards_drawn,
    ev.LAST_TURN_SCHEDULED: _last_turn_scheduled,
    ev.TURN_ENDED: _turn_ended,
    ev.VACATION_STARTED: _vacation_started,
    ev.VACATION_ENDED: _vacation_ended,
    ev.GAME_ENDED: _game_ended,
}


def choice_name(choice: str) -> str:
    """A princess's or hero's choice in words: "the treasure chests"."""
    return {
        "chests": _("the treasure chests"),
        "stones": _("the petrified dragons"),
        "princesses": _("the princesses"),
        "trolls": _("the trolls"),
    }[choice]


def space_name(space: str) -> str:
    """A space (or the ship's hold) in words: "the dwarf space"."""
    return _("the hold") if space == "hold" else _("the %(type)s space") % {"type": type_name(space)}


def end_reason(reason: str) -> str:
    return {
        ev.THIRD_VOYAGE: _("the third voyage"),
        ev.DECK_EXHAUSTED: _("a draw pile ran out"),
        ev.RESIGNED: _("resignation"),
        ev.TIMEOUT: _("time ran out"),
        ev.ABORTED: _("aborted"),
    }.get(reason, reason)


def first_unseen_step(log: list[Event], seat: str | None) -> int:
    """The step just after ``seat``'s last completed turn: where "since your last turn" opens."""
    for index in range(len(log) - 1, 0, -1):
        event = log[index]
        if event["kind"] == ev.TURN_ENDED and event["seat"] == seat:
            return min(index + 2, len(log))
    return 1


def names_of(game: Any) -> dict[str, str]:
    return {seat: game.shown_player_name(seat) or _("(open seat)") for seat in ("a", "b")}


# A turn begins with its play (engine/events.py: the chain of a turn).
TURN_OPENERS = frozenset({ev.CARDS_PLAYED, ev.TURN_PASSED})


class Turn(NamedTuple):
    """One step of the history: ``log[start:end]``. ``number`` is 0 for the deal, else the
    engine's turn number; ``seat`` is who played it (None for the deal)."""

    number: int
    seat: str | None
    start: int
    end: int


def turns_of(log: list[Event]) -> list[Turn]:
    """The deal, then one step per turn: the play with everything it caused, up to its
    ``turn_ended`` (and the ``game_ended`` of a rules end). Events outside any turn's chain (a
    vacation, a resignation, a timeout) change nothing on the board and belong to the step
    they follow, so that every step is a turn and a step's board is the state after it."""
    starts = [0] + [i for i, event in enumerate(log) if event["kind"] in TURN_OPENERS]
    ends = [*starts[1:], len(log)]
    return [
        Turn(number, log[start].get("seat") if number else None, start, end)
        for number, (start, end) in enumerate(zip(starts, ends, strict=True))
    ]


def turn_of_step(turns: list[Turn], step: int) -> int:
    """The turn holding event ``step`` (1-based, as the old ``?step=N`` links counted)."""
    index = min(max(step, 1), turns[-1].end) - 1
    return next(turn.number for turn in turns if turn.start <= index < turn.end)


def first_unseen_turn(turns: list[Turn], seat: str | None) -> int:
    """The turn just after ``seat``'s last completed turn: where "since your last turn" opens
    (the deal when the seat has played none yet, the last turn when nothing came after)."""
    own = [turn.number for turn in turns if seat is not None and turn.seat == seat]
    return min(own[-1] + 1, turns[-1].number) if own else 0
