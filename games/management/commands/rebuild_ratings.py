from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from engine import events as ev
from games.models import Game
from ratings import services as ratings
from ratings.services import Result


def rated_results() -> Iterator[Result]:
    """Every finished rated game between two people, in the order the games ended (what
    services._game_over hands the ratings, game by game)."""
    games = (
        Game.objects.filter(status=Game.Status.FINISHED, rated=True)
        .exclude(end_reason=ev.ABORTED)
        .exclude(player_a=None)
        .exclude(player_b=None)
        .order_by("finished_at", "pk")
        .values_list("pk", "player_a_id", "player_b_id", "winner", "finished_at")
    )
    for game_id, a, b, winner, finished_at in games.iterator(chunk_size=2000):
        assert finished_at is not None  # every finished game has its time
        yield Result(game_id, a, b, ratings.score_of_a(winner), finished_at)


class Command(BaseCommand):
    help = (
        "Recompute every player's rating from the finished rated games, in the order they ended, "
        "and report where the stored ratings differ; --fix writes the recomputed ones."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--fix", action="store_true", help="Replace the stored ratings and their history."
        )

    def handle(self, *args: Any, fix: bool, **options: Any) -> None:
        standings, changes = ratings.replay(rated_results())
        found = ratings.differences(standings)
        for d in found:
            self.stdout.write(f"user {d.user_id}: stored {_show(d.stored)}, recomputed {_show(d.computed)}")
        self.stdout.write(
            f"{len(standings)} players, {len(changes) // 2} rated games: {len(found)} differences"
        )
        if fix:
            ratings.overwrite(standings, changes)
            self.stdout.write("the stored ratings are now the recomputed ones")
        elif found:
            raise CommandError(f"{len(found)} stored ratings differ from the games (run with --fix)")


def _show(values: tuple[float, float, float, int] | None) -> str:
    if values is None:
        return "none"
    rating, deviation, volatility, games = values
    return f"{rating!r} ± {deviation!r} (volatility {volatility!r}, {games} games)"
