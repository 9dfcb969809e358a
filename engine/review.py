"""The computer's review of a finished game: for every turn, the strong search run from the
seat's view at that moment (``seat_view`` of the state before the play, with the log so far),
never from the hidden cards as they turned out. Each turn gets the play the search prefers,
its win chance, the chance of the play actually made, the loss in points of winning chance
and a mark, like lichess's "inaccuracy", "mistake" and "blunder".

Deterministic: each turn's search draws from a generator seeded by the game's seed and the
turn's number, and the budget counts determinizations, never milliseconds.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine import events as ev
from engine.cards import CARD_TYPE, SEATS, Seat
from engine.events import LogEvent
from engine.replay import apply_event, state_from_start
from engine.rules import Play
from engine.search import Budget, Evaluation, SearchBot
from engine.state import State
from engine.visibility import seat_view

# Determinizations per turn. More than the strong bot's 40: the review judges every play,
# and its chances are read as numbers, so they need less noise than a choice does (with 120
# the standard error of a difference between two plays is about 2 points). A 70-turn game
# costs about 10 s of CPU on this machine (benchmarks/RESULTS.md).
REVIEW_BUDGET = Budget(iterations=120)

# Points of winning chance lost, at or above which a turn gets each mark (lichess's words).
INACCURACY, MISTAKE, BLUNDER = "inaccuracy", "mistake", "blunder"
THRESHOLDS: tuple[tuple[float, str], ...] = ((35.0, BLUNDER), (20.0, MISTAKE), (10.0, INACCURACY))
MARKS = (INACCURACY, MISTAKE, BLUNDER)


@dataclass(frozen=True, slots=True)
class TurnReview:
    """One turn judged. ``number`` counts turns from 1 as the history page does. A turn
    with a single legal play is not searched: its chances are None, its loss 0, no mark."""

    number: int
    seat: Seat
    played: Play
    best: Play
    best_chance: float | None
    played_chance: float | None
    choices: int
    loss: float  # points of winning chance (0 to 100), one decimal
    mark: str | None


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """One player's review: the average loss over the turns that offered a choice, and how
    many turns got each mark."""

    turns: int
    average_loss: float
    inaccuracies: int
    mistakes: int
    blunders: int


def mark_of(loss: float) -> str | None:
    for threshold, mark in THRESHOLDS:
        if loss >= threshold:
            return mark
    return None


def turn_rng(seed: str, number: int) -> random.Random:
    # A string seed is hashed with SHA-512 by random.Random: the same on every run and
    # machine, unlike hash(), which Python salts per process.
    return random.Random(f"review:{seed}:{number}")


def review_log(log: Sequence[LogEvent], seed: str, budget: Budget = REVIEW_BUDGET) -> list[TurnReview]:
    """Every turn of a finished game's log, in order. Raises ValueError for a game that is
    not over: during play a review would tell a player about his opponent's chances."""
    state = state_from_start(log[0])
    reviews: list[TurnReview] = []
    for index, event in enumerate(log[1:], start=1):
        if event["kind"] in (ev.CARDS_PLAYED, ev.TURN_PASSED):
            reviews.append(review_turn(state, log[:index], event, len(reviews) + 1, seed, budget))
        apply_event(state, event)
    if not state.over:
        raise ValueError("only a finished game is reviewed")
    return reviews


def review_turn(
    state: State, before: Sequence[LogEvent], opener: LogEvent, number: int, seed: str, budget: Budget
) -> TurnReview:
    """The turn whose play is ``opener``, judged in ``state`` (the position before it) from
    the seat's view alone; ``before`` is the log up to the play, for the card the seat knows
    it put back on its own pile."""
    seat: Seat = opener["seat"]
    view = seat_view(state, seat, before)
    played = _played(opener)
    if len(view.legal) == 1:
        return TurnReview(number, seat, played, played, None, None, 1, 0.0, None)
    bot = SearchBot(turn_rng(seed, number), budget)
    evaluations = bot.evaluate(view)
    best = bot.preferred(evaluations)
    made = _same_play(evaluations, played, state.values)
    loss = round(max(0.0, best.chance - made.chance) * 100, 1)
    return TurnReview(
        number, seat, played, best.play, best.chance, made.chance, len(evaluations), loss, mark_of(loss)
    )


def _played(opener: LogEvent) -> Play:
    if opener["kind"] == ev.TURN_PASSED:
        return Play(())
    return Play(tuple(opener["cards"]), opener["choice"])


def _same_play(evaluations: list[Evaluation], played: Play, values: dict[str, int]) -> Evaluation:
    """The evaluation of the play made. Legal plays name the earliest cards of each multiset
    of values in hand order; a player may have put down other cards of the same types and
    values, which play exactly alike."""
    key = _play_key(played, values)
    for evaluation in evaluations:
        if _play_key(evaluation.play, values) == key:
            return evaluation
    raise ValueError(f"the play {played} is not among the legal plays")


def _play_key(play: Play, values: dict[str, int]) -> tuple[tuple[tuple[str, int], ...], str | None]:
    return tuple(sorted((CARD_TYPE[c], values[c]) for c in play.cards)), play.choice


def summarize(reviews: Iterable[TurnReview]) -> dict[Seat, SeatSummary]:
    """Per seat: the average loss over its turns that offered more than one play (a forced
    turn says nothing about the player), and the count of each mark."""
    summaries: dict[Seat, SeatSummary] = {}
    listed = list(reviews)
    for seat in SEATS:
        judged = [r for r in listed if r.seat == seat and r.choices > 1]
        marks = [r.mark for r in judged]
        average = round(sum(r.loss for r in judged) / len(judged), 1) if judged else 0.0
        summaries[seat] = SeatSummary(
            len(judged), average, marks.count(INACCURACY), marks.count(MISTAKE), marks.count(BLUNDER)
        )
    return summaries
