"""Hypothesis strategies: rule options, and whole games of random legal plays.

A game is three drawn facts: the options, the seed of the table's random source (the
shuffles and the card put back on losing the dragon) and the seed of the player who picks a
legal play at random every turn. Drawing each play from Hypothesis instead would shrink
nicer, but a whole game's worth of draws overruns its buffer and biases the sample towards
short games. Uniform play ends nine games in ten by the third voyage, so half the players
hold back their ships, and those games mostly end when a draw pile runs out.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, cast

from hypothesis import strategies as st

from engine.cards import CARD_TYPE, SHIP
from engine.events import Event
from engine.options import resolve_options
from engine.replay import apply_events, state_from_start
from engine.rules import Play, decide, legal_plays, start_game
from engine.state import State
from tests.engine.builders import loose

# No game can be longer: every turn except an empty-handed pass puts down at least one card
# (100 cards in all), and once a draw pile is empty the end is at most three turns away.
# The generator plays on a little past this bound so that a game that never ends shows up.
MAX_TURNS = 110

PRESETS = ("official", "bsw")

# Every rule option with every value it may take (RULES.md 1.12). ``open_scores`` is a table
# setting that records leave out; the visibility tests cover it.
RULE_OPTIONS: dict[str, tuple[object, ...]] = {
    "first_player": ("random", "a", "b"),
    "deck_end_mode": ("last_card_drawn", "bsw_next_turn", "short_refill"),
    "dragon_requires_stone": (True, False),
    "dragon_loss_return": ("excess", "always_one"),
    "deck_profile": ("standard", "dwarf_6x1_4x2"),
}


@st.composite
def option_specs(draw: st.DrawFn) -> dict[str, Any]:
    """An options object as a record writes it: no preset, or a preset, plus any overrides."""
    spec: dict[str, Any] = {}
    preset = draw(st.sampled_from((None, *PRESETS)))
    if preset is not None:
        spec["preset"] = preset
    for name, values in RULE_OPTIONS.items():
        if draw(st.booleans()):
            spec[name] = draw(st.sampled_from(values))
    return spec


@dataclass(frozen=True)
class Turn:
    before: State  # a copy of the state the play was decided on
    play: Play
    events: list[Event]


@dataclass(frozen=True)
class Game:
    options: dict[str, Any]
    start: Event
    turns: list[Turn]
    final: State  # the state built during play, applying each turn's events in place

    @property
    def log(self) -> list[Event]:
        return [self.start, *(event for turn in self.turns for event in turn.events)]


@st.composite
def games(draw: st.DrawFn, options: st.SearchStrategy[dict[str, Any]] | None = None) -> Game:
    spec = draw(option_specs() if options is None else options)
    table = random.Random(draw(st.integers(min_value=0, max_value=2**32 - 1)))
    player = random.Random(draw(st.integers(min_value=0, max_value=2**32 - 1)))
    avoids_ships = draw(st.booleans())
    start = start_game(table, resolve_options(spec))
    state = state_from_start(start)
    state.version = 1
    turns: list[Turn] = []
    while not state.over and len(turns) <= MAX_TURNS:
        plays = legal_plays(state)
        if avoids_ships:
            plays = [p for p in plays if not p.cards or CARD_TYPE[p.cards[0]] != SHIP] or plays
        play = plays[player.randrange(len(plays))]
        before = state.copy()
        events = decide(state, play, table)
        apply_events(state, events)
        turns.append(Turn(before, play, loose(events)))
    return Game(spec, cast(Event, start), turns, state)
