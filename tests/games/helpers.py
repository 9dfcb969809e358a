"""Playing games through the API in tests, and looking for cards that must stay hidden."""

from __future__ import annotations

import json
from typing import Any

from engine.visibility import view_state
from games import event_log
from games.models import Game, GameEvent


def hidden_ids(game_id: str, viewer_seat: str | None) -> set[str]:
    """Card ids ``viewer_seat`` must not see now: the opponent's hand and every draw pile
    (for a spectator, both hands). Taken from the server's own state, not from any response."""
    game = Game.objects.get(pk=game_id)
    state = event_log.load_state(game)
    hidden = set(state.piles["a"]) | set(state.piles["b"])
    for seat in ("a", "b"):
        if seat != viewer_seat:
            hidden |= set(state.hands[seat])
    # A player who lost the dragon saw the card he put back on his own pile: he may see it.
    put_back = GameEvent.objects.filter(game=game, kind="dragon_transferred", payload__from=viewer_seat)
    hidden -= {row.payload["returned"] for row in put_back if viewer_seat is not None}
    assert view_state(state, viewer_seat)["over"] is False
    return hidden


def leaked(response_body: Any, ids: set[str]) -> set[str]:
    """Which of ``ids`` appear anywhere in a response, as whole JSON strings."""
    text = json.dumps(response_body)
    return {card for card in ids if f'"{card}"' in text}


def play_first_legal(client: Any, game_id: str, prefer_choice: str | None = None) -> Any:
    view = client.get(f"/api/games/{game_id}/").json()
    plays = view["legal_plays"]
    chosen = next((p for p in plays if prefer_choice and p["choice"] == prefer_choice), plays[0])
    return client.post(
        f"/api/games/{game_id}/plays/", {**chosen, "expected_version": view["version"]}, format="json"
    )


def advance(api: dict[str, Any], game_id: str, plays: int) -> int:
    """Play up to ``plays`` turns of alice's game with bob, each by whoever is to move; stops
    at the game's end. Returns the number of plays made."""
    for made in range(plays):
        view = api["alice"].get(f"/api/games/{game_id}/").json()
        if view["status"] != "active":
            return made
        mover = "alice" if view["to_move"] == "a" else "bob"
        assert play_first_legal(api[mover], game_id).status_code == 201
    return plays
