"""``python -m engine.botkit``: play on a site with one of the engine's bots until stopped.

    python -m engine.botkit --server https://dragonheart.example --token KEY --bot strong \\
        --casual --max-games 3 --clock none,1,3
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from engine.botkit import run
from engine.botkit.client import StreamRefused
from engine.botkit.policy import Policy, parse_clocks
from engine.botkit.stream import NDJSON, SSE
from engine.bots import BOTS


def _clocks(text: str) -> frozenset[int | None] | None:
    try:
        return parse_clocks(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m engine.botkit",
        description="Play on a Dragonheart site with an engine bot until stopped (docs/bots-api.md).",
    )
    parser.add_argument(
        "--server", required=True, help="the site's address, e.g. https://dragonheart.example"
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("DRAGONHEART_TOKEN"),
        help="the account's API token (default: $DRAGONHEART_TOKEN, which keeps it out of ps)",
    )
    parser.add_argument("--bot", choices=sorted(BOTS), default="greedy", help="the engine bot that plays")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument(
        "--rated", dest="rated", action="store_true", default=None, help="accept rated games only"
    )
    kind.add_argument("--casual", dest="rated", action="store_false", help="accept casual games only")
    parser.add_argument(
        "--max-games", type=int, default=4, help="games at once (default 4); more challenges wait"
    )
    parser.add_argument(
        "--clock",
        type=_clocks,
        default=None,
        help='days per turn accepted, comma-separated, "none" for no clock (default: any)',
    )
    parser.add_argument("--format", choices=("sse", "ndjson"), default="sse", help="the stream's format")
    parser.add_argument(
        "--seed", default=None, help="make the bot's plays repeatable (default: unforeseeable)"
    )
    parser.add_argument("--quiet", action="store_true", help="log warnings only")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("a token is needed: --token KEY or DRAGONHEART_TOKEN=KEY")
    if args.max_games < 1:
        parser.error("--max-games is at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
    )
    policy = Policy(rated=args.rated, clocks=args.clock, max_games=args.max_games)
    try:
        run(
            args.server,
            args.token,
            bot=args.bot,
            policy=policy,
            accept=NDJSON if args.format == "ndjson" else SSE,
            seed=args.seed,
        )
    except StreamRefused as exc:
        print(f"botkit: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
