"""The last turns of a game in words, for the top of the game page: what the opponent just did
is the first thing a returning player needs. Built from the log's tail (one query whatever the
game's length) and shown only as the viewer may see it (engine.visibility.view_event).

The page speaks to its reader: the reader's own turn in the second person ("You played …"),
the opponent's with their name, and each player's turns numbered on their own (a player's
first turn is their turn 1, whoever began). The history page and the emails tell the game in
the third person with the game's turn numbers (games/history.py): they step through the whole
game, where one count for both players is the clearer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from engine import events as ev
from engine.cards import Seat, other
from engine.events import Event
from engine.state import State
from engine.visibility import view_event
from games import event_log, history
from games.models import Game
from games.templatetags.games_extras import card_name

# A turn is at most nine events (play, capture, hold or voyage, dragon, two end notices, draw,
# end of turn, end of game); vacations may sit between turns. Forty covers the last two turns.
TAIL = 40


@dataclass
class Turn:
    seat: str
    number: int  # the seat's own count: its first turn is 1
    game_turn: int = 0  # the game's count, both seats together (the log's)
    lines: list[str] = field(default_factory=list)
    placed: list[str] = field(default_factory=list)  # card ids put on the board this turn
    # Captures for the animation: (space or "hold", taker's seat, the cards taken). Captured
    # cards lay face up on the board, so naming them shows nothing hidden.
    captures: list[tuple[str, str, list[str]]] = field(default_factory=list)


@dataclass(frozen=True)
class Teller:
    """Who reads the lines, and what they need to be told: the names, the card values and the
    seat that began (the players take turns strictly in turn, passes included)."""

    viewer: Seat | None
    names: dict[str, str]
    values: dict[str, int]
    first: Seat

    def own_number(self, turn: int) -> int:
        return own_number(turn, self.first)

    def seat_of(self, turn: int) -> Seat:
        return seat_of(turn, self.first)


def seat_of(turn: int, first: Seat) -> Seat:
    """Who plays the game's turn ``turn`` (1, 2, …): the seats alternate, passes included."""
    return first if turn % 2 == 1 else other(first)


def own_number(turn: int, first: Seat) -> int:
    """The game's turn ``turn`` as its player counts it: their 1st, 2nd, … turn."""
    return (turn + 1) // 2 if seat_of(turn, first) == first else turn // 2


def last_turns(game: Game, viewer: Seat | None, state: State) -> list[Turn]:
    """The complete turns found in the log's tail, oldest first: at most one per seat, so the
    page shows each player's latest turn."""
    if not game.version:
        return []
    revealed = game.status == Game.Status.FINISHED
    rows = event_log.read_events(game, after=max(0, game.version - TAIL))
    log = [view_event(row.as_engine_event(), viewer, revealed) for row in rows]
    # The names as pages show them: a bot as "Computer (medium)".
    teller = Teller(viewer=viewer, names=history.names_of(game), values=state.values, first=state.first)
    turns: list[Turn] = []
    current: Turn | None = None
    for event in log:
        kind = event["kind"]
        if kind in (ev.CARDS_PLAYED, ev.TURN_PASSED):
            current = Turn(seat=event["seat"], number=0)
            if kind == ev.CARDS_PLAYED:
                current.placed = list(event["cards"])
        if current is None:
            continue  # the tail began inside a turn, or a vacation between turns
        if kind == ev.TURN_ENDED:
            current.game_turn = event["turn"]
            current.number = teller.own_number(event["turn"])
            turns.append(current)
            current = None
            continue
        _note(current, event, teller)
    latest: dict[str, Turn] = {}
    for turn in turns:
        latest[turn.seat] = turn
    return sorted(latest.values(), key=lambda t: t.game_turn)


def _note(turn: Turn, event: Event, teller: Teller) -> None:
    kind = event["kind"]
    if kind == ev.CARDS_CAPTURED:
        turn.captures.append((event["space"], event["seat"], list(event["cards"])))
    if kind in (ev.CARDS_DRAWN, ev.GAME_ENDED, ev.VACATION_STARTED, ev.VACATION_ENDED):
        return  # a draw is in the pile counts; the end has its own panel
    if kind == ev.DRAGON_TRANSFERRED and event["from"] == teller.viewer and teller.viewer is not None:
        turn.lines.extend(_dragon_lost(event, teller))
        return
    if kind == ev.LAST_TURN_SCHEDULED:
        turn.lines.append(_last_turn_scheduled(event, teller))
        return
    mine = teller.viewer is not None and turn.seat == teller.viewer
    told = _YOURS.get(kind) if mine else None
    turn.lines.append(told(event, teller) if told else history.describe(event, teller.names, teller.values))


# The reader's own turn, in the second person. The lines of no one (the hold, the voyage) are
# history's; the words are the same as the third person's, with "you" for the name.


def _you_played(event: Event, teller: Teller) -> str:
    cards = event["cards"]
    line = _("You played %(count)d %(type)s") % {
        "count": len(cards),
        "type": history.type_name(event["space"], len(cards)),
    }
    if event["space"] != "ship":
        line += " (" + ", ".join(str(teller.values[c]) for c in cards) + ")"
    if event["choice"]:
        line += " — " + _("you chose %(choice)s") % {"choice": history.choice_name(event["choice"])}
    return line + "."


def _you_passed(event: Event, teller: Teller) -> str:
    return _("You had no card left and passed.")


def _you_took(event: Event, teller: Teller) -> str:
    cards = event["cards"]
    points = sum(teller.values[c] for c in cards)
    # Two plurals in one sentence (cards and points): each part gets its own form.
    taking = ngettext(
        "You took %(count)d card from %(space)s", "You took %(count)d cards from %(space)s", len(cards)
    ) % {"count": len(cards), "space": history.space_name(event["space"])}
    worth = ngettext("%(n)d point", "%(n)d points", points) % {"n": points}
    return _("%(taking)s: %(points)s.") % {"taking": taking, "points": worth}


def _you_won_the_dragon(event: Event, teller: Teller) -> str:
    if event["from"] is None:
        return _("You won the Great Dragon.")
    loser = teller.names[event["from"]]
    if event["returned"] is None and not event.get("returned_count"):
        return _("You took the Great Dragon from %(loser)s.") % {"loser": loser}
    return _("You took the Great Dragon from %(loser)s, who put a card back on their pile.") % {
        "loser": loser
    }


_YOURS = {
    ev.CARDS_PLAYED: _you_played,
    ev.TURN_PASSED: _you_passed,
    ev.CARDS_CAPTURED: _you_took,
    ev.DRAGON_TRANSFERRED: _you_won_the_dragon,
}


def _dragon_lost(event: Event, teller: Teller) -> list[str]:
    """The reader lost the dragon on the opponent's turn; only the loser sees which card he put
    back (view_event hid it from everyone else)."""
    lines = [_("%(who)s took the Great Dragon from you.") % {"who": teller.names[event["to"]]}]
    if event["returned"]:
        lines.append(
            _("You put %(card)s back on top of your draw pile.")
            % {"card": card_name(event["returned"], teller.values)}
        )
    return lines


def _last_turn_scheduled(event: Event, teller: Teller) -> str:
    """The last turn in the numbers the news box uses: whose turn it is, counted on its own."""
    why = _("the third voyage") if event["reason"] == ev.THIRD_VOYAGE else _("a draw pile ran out")
    seat, n = teller.seat_of(event["turn"]), teller.own_number(event["turn"])
    if seat == teller.viewer:
        return _("After %(why)s, your turn %(n)d will be the last of the game.") % {"why": why, "n": n}
    return _("After %(why)s, %(name)s's turn %(n)d will be the last of the game.") % {
        "why": why,
        "name": teller.names[seat],
        "n": n,
    }


def turn_context(turns: list[Turn], faces: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What the template needs: the turns, the newest first; the cards the newest placed (to
    mark them on the board); its captures (to animate them from the space to the taker)."""
    newest = turns[-1] if turns else None
    return {
        "last_turns": list(reversed(turns)),
        "fresh": set(newest.placed) if newest else set(),
        "flights": [
            {"space": space, "seat": seat, "cards": [faces[c] for c in cards]}
            for space, seat, cards in (newest.captures if newest else [])
        ],
    }
