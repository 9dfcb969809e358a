"""Rebuild the computer's review of finished games (games/reviews.py) from their logs."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games import reviews
from games.models import Game


class Command(BaseCommand):
    help = "Review finished games again from their logs, replacing their stored reviews."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "game_ids", nargs="*", help="ids of finished games (after --, as an id may begin with a dash)"
        )
        parser.add_argument("--all", action="store_true", help="every finished game")
        parser.add_argument("--iterations", type=int, help="determinizations per turn (default: the setting)")

    def handle(self, *args: Any, game_ids: list[str], all: bool = False, **options: Any) -> None:
        if bool(game_ids) == all:
            raise CommandError("name the games to review, or give --all")
        games = Game.objects.filter(status=Game.Status.FINISHED)
        chosen = games.order_by("finished_at") if all else games.filter(pk__in=game_ids)
        found: set[str] = set()
        for game in chosen.iterator(chunk_size=100):
            found.add(game.pk)
            review = reviews.game_review_build(game=game, iterations=options.get("iterations"))
            assert review is not None  # the query chose finished games only
            self.stdout.write(f"game {game.pk}: reviewed in {review.cpu_seconds:.2f} s of CPU")
        missing = sorted(set(game_ids) - found)
        if missing:
            raise CommandError("not there or not finished: " + " ".join(missing))
