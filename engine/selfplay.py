"""Bots playing each other: whole games, win rates with confidence intervals, timings."""

from __future__ import annotations

import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from engine.bots import make_bot
from engine.cards import Seat
from engine.events import AnyEvent
from engine.options import DEFAULT, Options
from engine.record import record_from_events
from engine.replay import apply_events, state_from_start
from engine.rules import decide, start_game
from engine.search import Budget
from engine.state import State
from engine.visibility import seat_view


@dataclass
class SeatStats:
    name: str
    wins: int = 0
    move_seconds: list[float] = field(default_factory=list)


def play_game(
    bots: dict[Seat, str],
    seed: str,
    first: Seat,
    options: Options = DEFAULT,
    stats: dict[Seat, SeatStats] | None = None,
    budget: Budget | None = None,
) -> tuple[State, list[AnyEvent]]:
    """One game between the bots named per seat. The table's random source (shuffles, the
    card put back) and each bot's own are separate, so a bot's choices never shift the deal.
    A bot is made afresh for every move, as the site does: no bot carries memory between
    moves. ``budget`` overrides the search bots' own."""
    table = random.Random(f"{seed}:table")
    bot_rngs = {seat: random.Random(f"{seed}:bot:{seat}") for seat in bots}
    start = start_game(table, options, first=first)
    state = state_from_start(start)
    log: list[AnyEvent] = [start]
    while not state.over:
        seat = state.to_move
        assert seat is not None
        began = time.perf_counter()
        play = make_bot(bots[seat], bot_rngs[seat], budget).choose(seat_view(state, seat, log))
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


@dataclass
class MatchResult:
    stats: dict[Seat, SeatStats]
    draws: int
    records: list[dict[str, Any]]  # in game order; empty unless asked for


def run_match(
    bots: dict[Seat, str],
    seed: str,
    games: int,
    options: Options = DEFAULT,
    *,
    jobs: int = 1,
    budget: Budget | None = None,
    records: bool = False,
) -> MatchResult:
    """``games`` games, the first seat alternating, game ``i`` seeded ``{seed}:{i}``: the same
    games whatever ``jobs`` is (with an iteration budget; a time budget depends on the
    machine). Each move is timed in the process that plays it."""
    result = MatchResult({seat: SeatStats(name) for seat, name in bots.items()}, 0, [])
    chunks = [(bots, seed, range(j, games, jobs), options, budget, records) for j in range(jobs)]
    if jobs == 1:
        outcomes = _play_games(*chunks[0])
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            outcomes = [o for chunk in pool.map(_play_games, *zip(*chunks, strict=True)) for o in chunk]
    for _, winner, seconds, record in sorted(outcomes, key=lambda o: o[0]):
        if winner is None:
            result.draws += 1
        else:
            result.stats[winner].wins += 1
        for seat, times in seconds.items():
            result.stats[seat].move_seconds.extend(times)
        if record is not None:
            result.records.append(record)
    return result


_Outcome = tuple[int, Seat | None, dict[Seat, list[float]], dict[str, Any] | None]


def _play_games(
    bots: dict[Seat, str],
    seed: str,
    indices: range,
    options: Options,
    budget: Budget | None,
    records: bool,
) -> list[_Outcome]:
    outcomes: list[_Outcome] = []
    for i in indices:
        stats = {seat: SeatStats(name) for seat, name in bots.items()}
        first: Seat = "a" if i % 2 == 0 else "b"
        state, log = play_game(bots, f"{seed}:{i}", first, options, stats, budget)
        seconds = {seat: s.move_seconds for seat, s in stats.items()}
        outcomes.append((i, state.winner, seconds, record_from_events(log, bots) if records else None))
    return outcomes
