"""``python -m engine bench``: the engine's speed on one core, printed as measured figures.

* random self-play: whole games of uniformly random legal plays (legal-play enumeration,
  decide and evolve included);
* replay of a ``.jsonl`` file of recorded games: JSON parsing, record checks, decide and
  evolve for every play, as ``python -m engine replay`` does;
* fold of the same games' event logs (evolve only), as the service does on a cache miss.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
import tracemalloc

from engine.record import parse_record, record_from_events, replay_record
from engine.replay import apply_events, fold, state_from_start
from engine.rules import decide, legal_plays, start_game
from engine.state import State


def random_game(seed: str) -> tuple[State, list[dict[str, object]]]:
    rng = random.Random(seed)
    start = start_game(rng)
    state = state_from_start(start)
    log = [start]
    while not state.over:
        plays = legal_plays(state)
        produced = decide(state, plays[rng.randrange(len(plays))], rng)
        apply_events(state, produced)
        log.extend(produced)
    return state, log


def run(games: int, replay_games: int, seed: str) -> None:
    print(f"python {sys.version.split()[0]}, one process, one core")

    began = time.perf_counter()
    turns = 0
    for i in range(games):
        state, _ = random_game(f"{seed}:{i}")
        turns += state.turn
    elapsed = time.perf_counter() - began
    print(f"random self-play: {games / elapsed:,.0f} games/s ({games} games, {turns / games:.1f} turns each)")

    logs = [random_game(f"{seed}:replay:{i}")[1] for i in range(replay_games)]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        for log in logs:
            handle.write(json.dumps(record_from_events(log), separators=(",", ":")) + "\n")
        path = handle.name
    events = sum(len(log) for log in logs)
    try:
        began = time.perf_counter()
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                _, _, error = replay_record(parse_record(json.loads(line)))
                assert error is None
        elapsed = time.perf_counter() - began
    finally:
        os.unlink(path)
    print(
        f"record replay ({replay_games} games, {events} events, JSON parsing "
        f"included): {replay_games / elapsed:,.0f} games/s, {1e6 * elapsed / events:.2f} µs per event"
    )

    encoded = [json.dumps(log) for log in logs]
    began = time.perf_counter()
    for text in encoded:
        fold(json.loads(text))
    elapsed = time.perf_counter() - began
    print(f"event-log fold (evolve only, JSON parsing included): {replay_games / elapsed:,.0f} games/s, "
          f"{1e6 * elapsed / events:.2f} µs per event")

    tracemalloc.start()
    state = fold(logs[0])
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del state
    print(f"memory of one folded state (with its log's decks): {size / 1024:.1f} KB")
