"""Rebuild every game's cached columns from its event log and report where they differed."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from games import event_log
from games.models import Game


class Command(BaseCommand):
    help = "Replay every game's log through the engine, compare with the cache, and rewrite the cache."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--check", action="store_true", help="report mismatches, change nothing")

    def handle(self, *args: Any, check: bool = False, **options: Any) -> None:
        mismatches = 0
        games = Game.objects.filter(version__gt=0).order_by("created_at").iterator(chunk_size=200)
        total = 0
        for game in games:
            total += 1
            state = event_log.rebuild_state(game)
            fresh = event_log.cache_fields(state)
            stale = {name for name, value in fresh.items() if getattr(game, name) != value}
            if not stale:
                continue
            mismatches += 1
            self.stdout.write(f"game {game.pk}: cache differs from the log in {', '.join(sorted(stale))}")
            if not check:
                with transaction.atomic():
                    Game.objects.filter(pk=game.pk, version=game.version).update(**fresh)
        verb = "found" if check else "rebuilt"
        self.stdout.write(f"{total} games replayed, {mismatches} caches {verb} different from their logs")
        if check and mismatches:
            raise SystemExit(1)
