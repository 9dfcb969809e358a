"""``python -m engine bench``: the engine's speed on one core, printed as measured figures.

* random self-play: whole games of uniformly random legal plays (legal-play enumeration,
  decide and evolve included);
* record replay: a ``.jsonl`` file of recorded games read line by line, JSON-decoded, checked
  and replayed play by play (decide + evolve), as ``python -m engine replay`` does;
* event-log fold: the same games' stored event logs decoded and folded (evolve only), as the
  service does when its cached state is missing.

Each figure is measured ``repeat`` times; the median and the best are printed, since a shared
virtual machine's speed drifts from second to second.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable

from engine.events import AnyEvent
from engine.record import parse_record, record_from_events, replay_record
from engine.replay import apply_events, fold, state_from_start
from engine.rules import decide, legal_plays, start_game
from engine.state import State


def random_game(seed: str) -> tuple[State, list[AnyEvent]]:
    rng = random.Random(seed)
    start = start_game(rng)
    state = state_from_start(start)
    log: list[AnyEvent] = [start]
    while not state.over:
        plays = legal_plays(state)
        produced = decide(state, plays[rng.randrange(len(plays))], rng)
        apply_events(state, produced)
        log.extend(produced)
    return state, log


def _timed(work: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        work()
        times.append(time.perf_counter() - began)
    return times


def _rate(label: str, count: int, unit: str, times: list[float], events: int = 0) -> None:
    median, best = statistics.median(times), min(times)
    line = f"{label}: {count / median:,.0f} {unit}/s median, {count / best:,.0f} best"
    if events:
        line += f"; {1e6 * median / events:.2f} µs per event (median)"
    print(line)


def run(games: int, replay_games: int, seed: str, repeat: int = 3) -> None:
    print(f"python {sys.version.split()[0]}, one process, one core, {repeat} runs each")

    turns: list[int] = []
    times = _timed(lambda: turns.extend(random_game(f"{seed}:{i}")[0].turn for i in range(games)), repeat)
    _rate(
        f"random self-play ({games} games, {sum(turns) / len(turns):.1f} turns each)", games, "games", times
    )

    logs = [random_game(f"{seed}:replay:{i}")[1] for i in range(replay_games)]
    events = sum(len(log) for log in logs)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        for log in logs:
            handle.write(json.dumps(record_from_events(log), separators=(",", ":")) + "\n")
        path = handle.name

    def replay_file() -> None:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                _, _, error = replay_record(parse_record(json.loads(line)))
                assert error is None, error

    try:
        size = os.path.getsize(path)
        times = _timed(replay_file, repeat)
    finally:
        os.unlink(path)
    _rate(
        f"record replay ({replay_games} games, {size / 1e6:.1f} MB .jsonl, {events} events, JSON included)",
        replay_games,
        "games",
        times,
        events,
    )

    encoded = [json.dumps(log) for log in logs]
    times = _timed(lambda: [fold(json.loads(text)) for text in encoded], repeat)
    _rate("event-log fold (evolve only, JSON included)", replay_games, "games", times, events)

    longest = max(logs, key=len)
    tracemalloc.start()
    fold(longest)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"memory: folding the longest game ({len(longest)} events) peaks at {peak / 1024:.1f} KB")
