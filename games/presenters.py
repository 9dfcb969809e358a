"""Games as a viewer may see them, JSON-ready. Everything goes through engine.visibility: this
module only adds names, card faces and links to what that function already allows."""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.cards import CARD_TYPE, CARD_VALUES, SEATS, TYPES
from engine.events import Event
from engine.rules import legal_plays
from engine.state import State
from engine.visibility import view_event, view_state
from games.models import Game, GameEvent


@cache
def faces(deck_profile: str) -> dict[str, dict[str, Any]]:
    """Each card as views show it ({id, type, value}), made once per deck profile: a long
    game's view shows about a hundred cards, and making their dicts afresh was a tenth of
    the CPU of opening it. The dicts are shared by every view: read them, never change them."""
    return {
        card_id: {"id": card_id, "type": CARD_TYPE[card_id], "value": value}
        for card_id, value in CARD_VALUES[deck_profile].items()
    }


def _cards(ids: list[str] | None, faces_by_id: dict[str, dict[str, Any]]) -> list[dict[str, Any]] | None:
    return None if ids is None else [faces_by_id[c] for c in ids]


def game_summary(game: Game, viewer: Any) -> dict[str, Any]:
    """What a list shows: no state, no cards."""
    seat = game.seat_of(viewer)
    return {
        "id": game.id,
        "status": game.status,
        "players": [
            {
                "seat": s,
                "username": game.player_name(s),
                "is_bot": game.seat_is_bot(s),
                "bot": (game.bot or None) if s == "b" else None,
            }
            for s in SEATS
        ],
        "your_seat": seat,
        "to_move": game.to_move or None,
        "your_turn": seat is not None and game.to_move == seat and game.status == Game.Status.ACTIVE,
        "version": game.version,
        "series": game.series_id,
        "number": game.number,
        "private": game.private,
        "rated": game.rated,
        "rating_min": game.rating_min,
        "rating_max": game.rating_max,
        "created_at": game.created_at,
        "turn_started_at": game.turn_started_at,
        "deadline": game.deadline,
        "result": result(game) if game.status == Game.Status.FINISHED else None,
    }


def result(game: Game) -> dict[str, Any]:
    return {
        "scores": game.scores,
        "winner": game.winner or None,
        "winner_username": game.player_name(game.winner) if game.winner else None,
        "winner_is_bot": game.seat_is_bot(game.winner) if game.winner else None,
        "reason": game.end_reason,
    }


def game_view(game: Game, state: State | None, viewer: Any) -> dict[str, Any]:
    """The requester's view of one game: public table, own hand, legal plays on their turn."""
    seat = game.seat_of(viewer)
    if state is None:  # a challenge not yet accepted: nothing dealt
        view = game_summary(game, viewer)
        view["options"] = game.options
        view.update(
            turn=0,
            board=None,
            hold=None,
            voyages=0,
            dragon=None,
            last_turn=None,
            hand=None,
            legal_plays=None,
            revealed=None,
            deal=None,
        )
        return view
    view = state_view(game, state, viewer, revealed=state.over)
    view["deal"] = game.public_deal()
    view["legal_plays"] = (
        [{"cards": list(p.cards), "choice": p.choice} for p in legal_plays(state)]
        if seat is not None and state.to_move == seat
        else None
    )
    return view


def state_view(game: Game, state: State, viewer: Any, *, revealed: bool) -> dict[str, Any]:
    """``state`` (the game now, or at a step of its history) as ``viewer`` may see it;
    ``revealed`` once the game is over, when everything is shown at every step."""
    seat = game.seat_of(viewer)
    view = game_summary(game, viewer)
    view["options"] = game.options
    shown = view_state(state, seat, revealed)
    deck = faces(state.options.deck_profile)
    for entry in view["players"]:
        s = entry["seat"]
        entry.update(
            hand_size=shown["hand_sizes"][s],
            pile_size=shown["pile_sizes"][s],
            captured_count=shown["captured_counts"][s],
            has_dragon=shown["dragon"] == s,
            score=shown["scores"][s] if shown["scores"] is not None else None,
        )
    mine = shown["hands"][seat] if seat is not None else None
    view.update(
        version=state.version,
        turn=shown["turn"],
        to_move=shown["to_move"],
        board={kind: _cards(shown["board"][kind], deck) for kind in TYPES},
        hold=_cards(shown["hold"], deck),
        voyages=shown["voyages"],
        dragon=shown["dragon"],
        last_turn=shown["last_turn"],
        hand=_cards(mine, deck),
        legal_plays=None,
        revealed={
            "hands": {s: _cards(shown["hands"][s], deck) for s in SEATS},
            "piles": {s: _cards(shown["piles"][s], deck) for s in SEATS},
            "captured": {s: _cards(shown["captured"][s], deck) for s in SEATS},
        }
        if revealed
        else None,
    )
    return view


def event_view(row: GameEvent, game: Game, viewer: Any) -> dict[str, Any]:
    event: Event = row.as_engine_event()
    shown = view_event(event, game.seat_of(viewer), game.status == Game.Status.FINISHED)
    return {"seq": row.seq, "created_at": row.created_at, **shown}


def hand_groups(hand: list[dict[str, Any]] | None) -> list[list[dict[str, Any]]]:
    """The hand sorted into groups of one type, in board order: a turn plays one type."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for card in hand or []:
        groups.setdefault(card["type"], []).append(card)
    return [groups[kind] for kind in TYPES if kind in groups]
