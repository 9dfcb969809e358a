"""Dragonheart (Drachenherz) rules engine: pure Python, standard library only.

``decide(state, command, rng) -> events`` validates and decides; ``evolve(state, event)``
applies a recorded fact; a game's state is the fold of its log.
"""

from __future__ import annotations

from engine.cards import Seat
from engine.errors import IllegalMove, MalformedRecord
from engine.events import AnyEvent, Event
from engine.options import Options, resolve_options
from engine.replay import apply_event, apply_events, evolve, fold, state_from_start
from engine.rules import Abort, Command, Play, Resign, Timeout, decide, legal_plays, start_game, winner_of
from engine.state import State

__all__ = [
    "Abort",
    "AnyEvent",
    "Command",
    "Event",
    "IllegalMove",
    "MalformedRecord",
    "Options",
    "Play",
    "Resign",
    "Seat",
    "State",
    "Timeout",
    "apply_event",
    "apply_events",
    "decide",
    "evolve",
    "fold",
    "legal_plays",
    "resolve_options",
    "start_game",
    "state_from_start",
    "winner_of",
]
