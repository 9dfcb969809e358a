"""Bots playing each other: whole games, win rates with confidence intervals, timings."""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from engine.bots import make_bot
from engine.events import Event
from engine.options import DEFAULT, Options
from engine.replay import apply_events, state_from_start
from engine.rules import decide, start_game
from engine.state import State
from engine.visibility import seat_view


@dataclass
class SeatStats:
    name: str
    wins: int = 0
    move_seconds: list[float] = field(default_factory=list)


def play_game(
    bots: dict[str, str],
    seed: str,
    first: str,
    options: Options = DEFAULT,
    stats: dict[str, SeatStats] | None = None,
) -> tuple[State, list[Event]]:
    """One game between the bots named per seat. The table's random source (shuffles, the
    card put back) and each bot's own are separate, so a bot's choices never shift the deal."""
    table = random.Random(f"{seed}:table")
    players = {seat: make_bot(name, random.Random(f"{seed}:bot:{seat}")) for seat, name in bots.items()}
    start = start_game(table, options, first=first)
    state = state_from_start(start)
    log = [start]
    while not state.over:
        seat = state.to_move
        assert seat is not None
        began = time.perf_counter()
        play = players[seat].choose(seat_view(state, seat))
        if stats is not None:
            stats[seat].move_seconds.append(time.perf_counter() - began)
        produced = decide(state, play, table)
        apply_events(state, produced)
        log.extend(produced)
    return state, log


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(samples: list[float], q: float) -> float:
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
