"""The deal anyone can verify, as the service keeps it: the commitment made at the start
(services.game_start), shown from the first turn, and the check the game page makes once the
salt is out. The encoding and the check itself are engine.deal's."""

from __future__ import annotations

from typing import Any

from engine.deal import DealCheck, check, parse_deal
from engine.errors import MalformedRecord
from games import event_log
from games.models import Game


def deal_check(game: Game) -> DealCheck | None:
    """Whether the decks dealt (the log's ``game_started``) are the ones the game committed
    to; None while the salt is secret (game running) or in a game with no commitment."""
    revealed = game.revealed_deal()
    if revealed is None:
        return None
    try:
        deal = parse_deal(revealed)
    except MalformedRecord:  # a damaged column opens nothing
        return DealCheck("mismatch", game.deal_commitment)
    first = event_log.read_events(game, limit=1)  # game_started, with the decks as dealt
    if not first:
        return DealCheck("mismatch", game.deal_commitment)
    return check(first[0].as_engine_event()["decks"], deal)


def deal_context(game: Game) -> dict[str, Any] | None:
    """What the game page shows of the deal: None in a game with no commitment (no claim)."""
    public = game.public_deal()
    if public is None:
        return None
    result = deal_check(game)
    return {**public, "verdict": result.verdict if result is not None else None}
