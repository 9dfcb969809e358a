"""Command line: ``python -m engine replay FILE…``, ``selfplay``, ``bench``."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from typing import Any

from engine.errors import MalformedRecord
from engine.options import resolve_options
from engine.record import ReplayError, record_from_events, replay_document


def _documents(path: str) -> Iterator[Any]:
    """Each record of a file: one per line for ``.jsonl``, else the whole file. A line or
    file that is not UTF-8 JSON yields the MalformedRecord to report in its place."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                data = handle.read()
    except OSError as exc:
        yield MalformedRecord(f"cannot read {path}: {exc.strerror}")
        return
    if path.endswith(".jsonl"):
        for line in data.splitlines():
            if line.strip():
                yield _decode(line)
    else:
        yield _decode(data)


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return MalformedRecord("not UTF-8 text")
    except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
        return MalformedRecord(f"not JSON: {str(exc)[:200]}")


def cmd_replay(args: argparse.Namespace) -> int:
    status = 0
    out = sys.stdout
    for path in args.files:
        for doc in _documents(path):
            if isinstance(doc, MalformedRecord):
                line, code = ReplayError(None, doc.code, doc.message).to_json(), 2
            else:
                line, code = replay_document(doc)
            out.write(json.dumps(line, separators=(", ", ": ")) + "\n")
            status = 2 if code == 2 or status == 2 else max(status, code)
    return status


def cmd_selfplay(args: argparse.Namespace) -> int:
    from engine.bots import BOTS
    from engine.selfplay import SeatStats, percentile, play_game, wilson

    names = args.bots.split(",")
    if len(names) != 2 or not all(name in BOTS for name in names):
        print(f"--bots takes two of {', '.join(BOTS)}, e.g. greedy,random", file=sys.stderr)
        return 2
    seats = {"a": names[0], "b": names[1]}
    options = resolve_options({"preset": args.preset})
    stats = {seat: SeatStats(name) for seat, name in seats.items()}
    draws = 0
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(open(args.out, "w", encoding="utf-8")) if args.out else None
        for i in range(args.games):
            first = "a" if i % 2 == 0 else "b"
            state, log = play_game(seats, f"{args.seed}:{i}", first, options, stats)
            if state.winner is None:
                draws += 1
            else:
                stats[state.winner].wins += 1
            if out is not None:
                out.write(json.dumps(record_from_events(log, seats), separators=(",", ":")) + "\n")
    print(f"{args.games} games, seed {args.seed}, preset {args.preset}, first seat alternating")
    for seat, s in stats.items():
        low, high = wilson(s.wins, args.games)
        times = s.move_seconds
        mean_ms = 1000 * sum(times) / len(times) if times else 0.0
        print(
            f"  seat {seat} {s.name:>8}: {s.wins} wins = {s.wins / args.games:.1%} "
            f"(95% CI {low:.1%}–{high:.1%}); per move mean {mean_ms:.3f} ms, "
            f"p95 {1000 * percentile(times, 0.95):.3f} ms"
        )
    print(f"  draws: {draws}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from engine.bench import run

    run(games=args.games, replay_games=args.replay_games, seed=args.seed, repeat=args.repeat)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description="Dragonheart rules engine")
    sub = parser.add_subparsers(dest="command", required=True)
    replay = sub.add_parser("replay", help="replay game records and print the resulting states")
    replay.add_argument(
        "files", nargs="+", metavar="FILE", help="a record (.json) or records (.jsonl); - for stdin"
    )
    replay.set_defaults(func=cmd_replay)
    selfplay = sub.add_parser("selfplay", help="bots play each other")
    selfplay.add_argument("--bots", default="greedy,random", help="two bot names: seat a, seat b")
    selfplay.add_argument("--games", type=int, default=100)
    selfplay.add_argument("--seed", default="0")
    selfplay.add_argument("--preset", default="official", choices=("official", "bsw"))
    selfplay.add_argument("--out", help="write the game records to this .jsonl file")
    selfplay.set_defaults(func=cmd_selfplay)
    bench = sub.add_parser("bench", help="measure self-play and replay speed on one core")
    bench.add_argument("--games", type=int, default=2000, help="random self-play games")
    bench.add_argument("--replay-games", type=int, default=2000, help="games in the replay file")
    bench.add_argument("--seed", default="bench")
    bench.add_argument("--repeat", type=int, default=3, help="runs of each measurement")
    bench.set_defaults(func=cmd_bench)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
