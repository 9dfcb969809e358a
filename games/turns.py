"""The last turns of a game in words, for the top of the game page: what the opponent just did
is the first thing a returning player needs. Built from the log's tail (one query whatever the
game's length) and shown only as the viewer may see it (engine.visibility.view_event)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from engine import events as ev
from engine.cards import Seat
from engine.events import Event
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
    number: int
    lines: list[str] = field(default_factory=list)
    placed: list[str] = field(default_factory=list)  # card ids put on the board this turn
    # Captures for the animation: (space or "hold", taker's seat, the cards taken). Captured
    # cards lay face up on the board, so naming them shows nothing hidden.
    captures: list[tuple[str, str, list[str]]] = field(default_factory=list)


def last_turns(game: Game, viewer: Seat | None, values: dict[str, int]) -> list[Turn]:
    """The complete turns found in the log's tail, oldest first: at most one per seat, so the
    page shows each player's latest turn."""
    if not game.version:
        return []
    revealed = game.status == Game.Status.FINISHED
    rows = event_log.read_events(game, after=max(0, game.version - TAIL))
    log = [view_event(row.as_engine_event(), viewer, revealed) for row in rows]
    names = history.names_of(game)  # as pages show them: a bot as "Computer (medium)"
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
            current.number = event["turn"]
            turns.append(current)
            current = None
            continue
        _note(current, event, names, values, viewer)
    latest: dict[str, Turn] = {}
    for turn in turns:
        latest[turn.seat] = turn
    return sorted(latest.values(), key=lambda t: t.number)


def _note(
    turn: Turn, event: Event, names: dict[str, str], values: dict[str, int], viewer: str | None
) -> None:
    kind = event["kind"]
    if kind == ev.CARDS_CAPTURED:
        turn.captures.append((event["space"], event["seat"], list(event["cards"])))
    if kind == ev.DRAGON_TRANSFERRED and event["from"] == viewer and event["returned"]:
        # Only the loser sees which card he put back (view_event hid it from everyone else).
        turn.lines.append(history.describe(event, names, values))
        turn.lines.append(
            _("You put %(card)s back on top of your draw pile.")
            % {"card": card_name(event["returned"], values)}
        )
        return
    if kind in (ev.CARDS_DRAWN, ev.GAME_ENDED, ev.VACATION_STARTED, ev.VACATION_ENDED):
        return  # a draw is in the pile counts; the end has its own panel
    turn.lines.append(history.describe(event, names, values))


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
