"""Audit every game: its log is whole, the rules would write it again event for event, the
cached columns agree with it, and a finished game's deal opens onto the decks its log dealt.
Reports each difference; changes nothing."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import connection

from engine import events as ev
from engine.deal import check, parse_deal
from engine.errors import IllegalMove, MalformedRecord
from engine.record import events_from_record, parse_record, record_from_events
from games import event_log
from games.models import Game, GameEvent

FORFEITS = (ev.RESIGNED, ev.TIMEOUT, ev.ABORTED)
CLOCK_FACTS = (ev.VACATION_STARTED, ev.VACATION_ENDED)


def problems_of(game: Game) -> list[str]:
    rows = list(GameEvent.objects.filter(game=game).order_by("seq"))
    found = []
    seqs = [row.seq for row in rows]
    if seqs != list(range(1, game.version + 1)):
        found.append(f"the log's sequence numbers are not 1..{game.version}")
        return found
    log = [row.as_engine_event() for row in rows]
    found += _rules_problems(log)
    if found:  # a log the rules would not write may not even fold; its cache proves nothing
        return found
    fresh = event_log.cache_fields(event_log.rebuild_state(game))
    stale = sorted(name for name, value in fresh.items() if getattr(game, name) != value)
    if stale:
        found.append(f"the cache differs from the log in {', '.join(stale)}")
    return found + _deal_problems(game, log[0])


def _deal_problems(game: Game, start: dict[str, Any]) -> list[str]:
    """A finished game's published deal must open onto the decks of its ``game_started``.
    A running game's salt stays unread, here too (Game.revealed_deal)."""
    revealed = game.revealed_deal()
    if revealed is None:
        return []
    try:
        result = check(start["decks"], parse_deal(revealed))
    except MalformedRecord:
        return ["the deal's salt or commitment is damaged"]
    return [] if result.verdict == "ok" else ["the deal's commitment does not open onto the decks dealt"]


def _rules_problems(log: list[dict[str, Any]]) -> list[str]:
    """Replay the game's plays through decide: the events must come out the same."""
    stored = [e for e in log if e["kind"] not in CLOCK_FACTS]
    forfeit = stored[-1]["kind"] == ev.GAME_ENDED and stored[-1]["reason"] in FORFEITS
    try:
        replayed = events_from_record(parse_record(record_from_events(stored)))
    except IllegalMove as exc:
        return [f"a play the rules refuse ({exc.code}: {exc.message})"]
    except (MalformedRecord, KeyError, IndexError, TypeError, ValueError) as exc:
        return [f"the log cannot be read as a game ({exc!r})"]
    expected = stored[:-1] if forfeit else stored
    if replayed != expected:
        at = next((i for i, (a, b) in enumerate(zip(replayed, expected, strict=False)) if a != b), None)
        return [f"the rules write a different log (first difference at event {at})"]
    return []


class Command(BaseCommand):
    help = "Check every game's log against the rules and its cached state; exit 1 on any difference."

    def handle(self, *args: Any, **options: Any) -> None:
        total = bad = 0
        for game in Game.objects.filter(version__gt=0).order_by("created_at").iterator(chunk_size=200):
            total += 1
            for problem in problems_of(game):
                bad += 1
                self.stdout.write(f"game {game.pk}: {problem}")
        if connection.vendor == "postgresql" and not _trigger_installed():
            bad += 1
            self.stdout.write("the append-only trigger on games_gameevent is missing")
        self.stdout.write(f"{total} games verified, {bad} problems")
        if bad:
            raise SystemExit(1)


def _trigger_installed() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_trigger WHERE tgname = 'games_gameevent_append_only'")
        return cursor.fetchone() is not None
