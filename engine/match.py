"""Match formats (RULES.md 1.11) as pure functions over finished games.

Seats stay with the players for the whole series (seat a is the same person in every game);
only the first seat changes from game to game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.cards import SEATS, Seat, as_seat, other

MATCH = "match"  # first to X wins
SUMOF = "sumof"  # most points over X games


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game, as the service reads it back from its rows: the seats are plain
    strings there, and next_first narrows the one it needs (as_seat)."""

    scores: dict[str, int]  # dragon bonus included
    winner: str | None  # None: a draw
    first: str


@dataclass(frozen=True, slots=True)
class Standing:
    games: int
    wins: dict[Seat, int]
    points: dict[Seat, int]
    over: bool
    winner: Seat | None  # None while running, or a drawn series


def standing(kind: str, target: int, results: list[GameResult], sumof_tiebreak: str = "draw") -> Standing:
    if kind not in (MATCH, SUMOF) or target < 1:
        raise ValueError(f"a series is 'match' or 'sumof' with a target of at least 1, not {kind} {target}")
    wins = {seat: sum(1 for r in results if r.winner == seat) for seat in SEATS}
    points = {seat: sum(r.scores[seat] for r in results) for seat in SEATS}
    winner: Seat | None = None
    if kind == MATCH:
        leaders = [seat for seat in SEATS if wins[seat] >= target]
        over = bool(leaders)
        winner = leaders[0] if leaders else None
    else:
        over = len(results) >= target
        if over:
            winner = _more(points)
            if winner is None and sumof_tiebreak == "game_wins":
                winner = _more(wins)
    return Standing(len(results), wins, points, over, winner)


def _more(counts: dict[Seat, int]) -> Seat | None:
    if counts["a"] == counts["b"]:
        return None
    return "a" if counts["a"] > counts["b"] else "b"


def next_first(results: list[GameResult], rule: str = "alternate", rng: random.Random | None = None) -> Seat:
    """Who begins the next game: ``alternate`` (default), ``loser_starts`` (after a draw,
    alternate) or ``random``. The first game's first seat is the game options' business."""
    if not results:
        raise ValueError("the first game's first seat comes from its options")
    last = results[-1]
    if rule == "random":
        if rng is None:
            raise ValueError("a random source is needed")
        return SEATS[rng.randrange(2)]
    if rule == "loser_starts" and last.winner is not None:
        return other(as_seat(last.winner))
    if rule not in ("alternate", "loser_starts"):
        raise ValueError(f"unknown rule {rule!r}")
    return other(as_seat(last.first))
