"""The board of the signed-out home page: a game as it looks in play, drawn by the table's own
templates. It is a made-up game (a fixed seed, random legal plays, stopped at its ninth turn)
shown as a spectator sees one, and its cards carry no ids, so that nothing on the page can be
read as a card of a real game."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from engine.replay import apply_events, state_from_start
from engine.rules import decide, legal_plays, start_game
from engine.visibility import view_state
from games import presenters, table

SEED = "showcase-2"  # chosen among the first few for a board with seven of its nine spaces laid
TURNS = 9


def _face(card: str, deck: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {**deck[card], "id": ""}


@cache
def board() -> dict[str, Any]:
    """``spaces`` and ``view`` as templates/games/_board.html reads them; made once a process."""
    rng = random.Random(SEED)
    state = state_from_start(start_game(rng))
    while view_state(state, None, False)["turn"] < TURNS:
        plays = legal_plays(state)
        apply_events(state, decide(state, plays[rng.randrange(len(plays))], rng))
    shown = view_state(state, None, False)
    deck = presenters.faces(state.options.deck_profile)
    cards = {kind: [_face(c, deck) for c in ids] for kind, ids in shown["board"].items()}
    view = {
        "dragon": shown["dragon"],
        "voyages": shown["voyages"],
        "hold": [_face(c, deck) for c in shown["hold"] or []],
    }
    return {"spaces": table.spaces(cards), "view": view}
