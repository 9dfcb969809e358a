"""Command line: ``python -m engine replay FILE…``, ``verify-deal FILE…``, ``selfplay``, ``bench``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

from engine.cards import Seat
from engine.deal import verify_document
from engine.errors import MalformedRecord
from engine.options import resolve_options
from engine.record import ReplayError, replay_document


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


def _each_record(paths: list[str], handle: Callable[[Any], tuple[dict[str, Any], int]]) -> int:
    """Print one JSON line per record of ``paths`` and return the exit status: 2 if any was
    malformed, else the highest status ``handle`` gave (RULES.md 4.2's convention)."""
    status = 0
    out = sys.stdout
    for path in paths:
        for doc in _documents(path):
            if isinstance(doc, MalformedRecord):
                line, code = ReplayError(None, doc.code, doc.message).to_json(), 2
            else:
                line, code = handle(doc)
            out.write(json.dumps(line, separators=(", ", ": ")) + "\n")
            status = 2 if code == 2 or status == 2 else max(status, code)
    return status


def cmd_replay(args: argparse.Namespace) -> int:
    return _each_record(args.files, replay_document)


def cmd_verify_deal(args: argparse.Namespace) -> int:
    return _each_record(args.files, verify_document)


def cmd_selfplay(args: argparse.Namespace) -> int:
    from engine.bots import BOTS
    from engine.search import Budget
    from engine.selfplay import percentile, run_match, wilson

    names = args.bots.split(",")
    if len(names) != 2 or not all(name in BOTS for name in names):
        print(f"--bots takes two of {', '.join(BOTS)}, e.g. greedy,random", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("--jobs takes a number of processes, at least 1", file=sys.stderr)
        return 2
    budget = None
    if args.iterations is not None or args.budget_ms is not None:
        budget = Budget(iterations=args.iterations, ms=args.budget_ms)
    seats: dict[Seat, str] = {"a": names[0], "b": names[1]}
    options = resolve_options({"preset": args.preset})
    result = run_match(
        seats, args.seed, args.games, options, jobs=args.jobs, budget=budget, records=bool(args.out)
    )
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            for record in result.records:
                out.write(json.dumps(record, separators=(",", ":")) + "\n")
    header = f"{args.games} games, seed {args.seed}, preset {args.preset}, first seat alternating"
    if args.jobs > 1:
        header += f", {args.jobs} processes"
    if budget is not None:
        header += f", search budget {budget.iterations} iterations / {budget.ms} ms"
    print(header)
    for seat, s in result.stats.items():
        low, high = wilson(s.wins, args.games)
        times = s.move_seconds
        mean_ms = 1000 * sum(times) / len(times) if times else 0.0
        print(
            f"  seat {seat} {s.name:>8}: {s.wins} wins = {s.wins / args.games:.1%} "
            f"(95% CI {low:.1%}–{high:.1%}); per move mean {mean_ms:.3f} ms, "
            f"p95 {1000 * percentile(times, 0.95):.3f} ms"
        )
    print(f"  draws: {result.draws}")
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
    verify = sub.add_parser(
        "verify-deal", help="check that a record's decks are the ones its deal commitment names"
    )
    verify.add_argument(
        "files", nargs="+", metavar="FILE", help="a record (.json) or records (.jsonl); - for stdin"
    )
    verify.set_defaults(func=cmd_verify_deal)
    selfplay = sub.add_parser("selfplay", help="bots play each other")
    selfplay.add_argument("--bots", default="greedy,random", help="two bot names: seat a, seat b")
    selfplay.add_argument("--games", type=int, default=100)
    selfplay.add_argument("--seed", default="0")
    selfplay.add_argument("--preset", default="official", choices=("official", "bsw"))
    selfplay.add_argument("--out", help="write the game records to this .jsonl file")
    selfplay.add_argument("--jobs", type=int, default=1, help="play the games in this many processes")
    selfplay.add_argument(
        "--iterations", type=int, help="search bots: determinizations per move (instead of their level's)"
    )
    selfplay.add_argument(
        "--budget-ms", type=float, help="search bots: milliseconds per move (instead of their level's)"
    )
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
