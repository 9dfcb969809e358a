"""What a bot is given at its turn (``Turn``) and the engine's own bots as choose functions.

A choose function takes a ``Turn`` and returns a play as the API takes it,
``{"cards": [...], "choice": None or "..."}``, normally one of ``turn.legal_plays``."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.botkit.convert import play_to_api, seat_view_from_api
from engine.bots import BOTS, make_bot
from engine.search import Budget
from engine.visibility import SeatView


@dataclass
class Turn:
    """One turn to play: the game, its version, the deadline (ISO 8601, or None without a
    clock) and the seat's whole view as ``GET /api/games/{id}/`` gives it."""

    game_id: str
    version: int
    deadline: str | None
    view: dict[str, Any]
    # Fetches the game's events as this seat may see them, up to this version (cached).
    load_events: Callable[[], list[dict[str, Any]]] = field(repr=False, default=list)
    _events: list[dict[str, Any]] | None = field(default=None, init=False, repr=False)

    @property
    def seat(self) -> str:
        seat: str = self.view["your_seat"]
        return seat

    @property
    def legal_plays(self) -> list[dict[str, Any]]:
        plays: list[dict[str, Any]] = self.view["legal_plays"]
        return plays

    def events(self) -> list[dict[str, Any]]:
        """The game's events as this seat may see them (``GET /api/games/{id}/events/``):
        fetched on the first call only."""
        if self._events is None:
            self._events = self.load_events()
        return self._events

    def seat_view(self) -> SeatView:
        """The engine's ``SeatView`` of this turn (engine/botkit/convert.py)."""
        return seat_view_from_api(self.view, self.events())


Choose = Callable[[Turn], Mapping[str, Any]]


def engine_bot(name: str, seed: str, budget: Budget | None = None) -> Choose:
    """The engine's bot ``name`` (random, greedy, medium, strong) as a choose function, made
    afresh each turn as the site makes its own, with a generator seeded by ``seed``, the game
    and the version: the same turn gets the same play, even when it is played again after a
    restart."""
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; choose one of {sorted(BOTS)}")

    def choose(turn: Turn) -> dict[str, Any]:
        rng = random.Random(f"{seed}:{turn.game_id}:{turn.version}")
        return play_to_api(make_bot(name, rng, budget).choose(turn.seat_view()))

    return choose
