"""The computer's review of finished games (engine/review.py): worker CPU per game, and how
much winning chance each side gives away when one plays ``random`` and the other ``strong``.

    .venv/bin/python -m benchmarks.review [--games 5] [--iterations N]
    .venv/bin/python -m benchmarks.review --random-vs-strong 50 [--jobs 2]

The first form reviews seeded games between two ``greedy`` bots (the way people play: each
turn a real choice), then the first seeded ``random`` game of exactly 70 turns, and prints the
CPU each review took (``time.process_time``: the review is pure computation, so this is what a
Celery worker spends on it; reading the log and writing the rows add milliseconds). The second
plays seeded games of ``random`` against ``strong`` (its 40 determinizations, no clock, so the
games are the same on any machine; ``random`` takes seat a in even games, b in odd ones, and
each moves first in half of its games),
reviews them and prints each side's average loss per game, its mean and standard deviation.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from engine.cards import Seat, other
from engine.events import AnyEvent
from engine.review import REVIEW_BUDGET, review_log, summarize
from engine.search import LEVELS, Budget
from engine.selfplay import play_game

STRONG_WITHOUT_CLOCK = Budget(iterations=LEVELS["strong"].iterations)


def turns_of(log: list[AnyEvent]) -> int:
    return sum(1 for e in log if e["kind"] in ("cards_played", "turn_passed"))


def timed_review(log: list[AnyEvent], seed: str, budget: Budget) -> float:
    began = time.process_time()
    review_log(log, seed, budget)
    return time.process_time() - began


def long_random_game(turns: int) -> tuple[str, list[AnyEvent]]:
    """The first seeded random game of exactly ``turns`` turns."""
    for i in range(10_000):
        _, log = play_game({"a": "random", "b": "random"}, f"long:{i}", "a")
        if turns_of(log) == turns:
            return f"long:{i}", log
    raise RuntimeError(f"no random game of {turns} turns in 10,000 seeds")


def cpu_per_game(games: int, budget: Budget) -> None:
    print(f"review budget: {budget.iterations} determinizations per turn")
    seconds = []
    for i in range(games):
        seed = f"review-bench:{i}"
        first: Seat = "a" if i % 2 == 0 else "b"
        _, log = play_game({"a": "greedy", "b": "greedy"}, seed, first)
        cpu = timed_review(log, seed, budget)
        seconds.append(cpu)
        per_turn = cpu / turns_of(log) * 1000
        print(f"greedy vs greedy {seed}: {turns_of(log)} turns, {cpu:.2f} s CPU ({per_turn:.0f} ms a turn)")
    print(f"mean {statistics.mean(seconds):.2f} s, max {max(seconds):.2f} s CPU per game")
    seed, log = long_random_game(70)
    cpu = timed_review(log, seed, budget)
    print(f"random vs random {seed}: {turns_of(log)} turns, {cpu:.2f} s CPU (target: under 60 s)")


def _review_match_game(i: int) -> tuple[float, float, float]:
    """(random's average loss, strong's, the review's CPU) of game ``i``."""
    random_seat: Seat = "a" if i % 2 == 0 else "b"
    strong_seat = other(random_seat)
    seed = f"random-vs-strong:{i}"
    bots = {random_seat: "random", strong_seat: "strong"}
    first: Seat = "a" if (i // 2) % 2 == 0 else "b"  # each pairing of seats moves first as often
    _, log = play_game(bots, seed, first, budget=STRONG_WITHOUT_CLOCK)
    began = time.process_time()
    summary = summarize(review_log(log, seed, REVIEW_BUDGET))
    cpu = time.process_time() - began
    return summary[random_seat].average_loss, summary[strong_seat].average_loss, cpu


def random_vs_strong(games: int, jobs: int) -> None:
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(_review_match_game, range(games)))
    for name, column in (("random", 0), ("strong", 1)):
        losses = [r[column] for r in results]
        print(
            f"{name}: average loss per game {statistics.mean(losses):.2f} ± {statistics.stdev(losses):.2f} "
            f"points (mean ± sd over {games} games; min {min(losses):.1f}, max {max(losses):.1f})"
        )
    higher = sum(1 for r in results if r[0] > r[1])
    cpu = [r[2] for r in results]
    print(f"random's loss higher than strong's in {higher} of {games} games")
    print(f"review CPU per game: mean {statistics.mean(cpu):.2f} s, max {max(cpu):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=REVIEW_BUDGET.iterations)
    parser.add_argument("--random-vs-strong", type=int, metavar="GAMES")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    if args.random_vs_strong:
        random_vs_strong(args.random_vs_strong, args.jobs)
    else:
        cpu_per_game(args.games, Budget(iterations=args.iterations))


if __name__ == "__main__":
    main()
