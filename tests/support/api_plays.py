"""Playing games through the API in tests, and looking for cards that must stay hidden."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from engine import Play, decide, legal_plays
from engine.cards import as_seat
from engine.visibility import view_state
from games import event_log
from games.models import Game, GameEvent

# A card id standing as a word (not inside a random token such as the CSRF one, nor a digest).
# Found in one pass over the text: a search per id, each starting with a lookbehind that the
# regular expression engine must try at every position, cost seconds on a long page.
CARD_WORD = re.compile(r"(?<![\w-])[ab]\d\d(?![\w-])")


def shown_ids(text: str, ids: set[str]) -> set[str]:
    """Which of ``ids`` stand as words in a page, an email or a picture."""
    return set(CARD_WORD.findall(text)) & ids


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
    viewer = as_seat(viewer_seat) if viewer_seat is not None else None
    assert view_state(state, viewer)["over"] is False
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


def ordinary_play(game_id: str) -> dict[str, Any]:
    """The body of the first legal play that neither ends the game nor brings its end in sight
    (tried on a copy of the server's own state; failing that, one that does not end it), for
    tests that need a long game still running: some deals would otherwise end within 40 plays."""
    state = event_log.load_state(Game.objects.get(pk=game_id))
    ranked: list[tuple[int, Any]] = []
    for play in legal_plays(state):
        kinds = {e["kind"] for e in decide(state.copy(), Play(play.cards, play.choice), random.Random(0))}
        if "game_ended" not in kinds:
            ranked.append((int("last_turn_scheduled" in kinds), play))
    if not ranked:
        raise AssertionError("every legal play ends this game")
    play = min(ranked, key=lambda pair: pair[0])[1]
    return {"cards": list(play.cards), "choice": play.choice, "expected_version": state.version}


def play_without_ending(client: Any, game_id: str) -> Any:
    return client.post(f"/api/games/{game_id}/plays/", ordinary_play(game_id), format="json")


def advance(api: dict[str, Any], game_id: str, plays: int, *, keep_running: bool = False) -> int:
    """Play up to ``plays`` turns of alice's game with bob, each by whoever is to move, and
    stop at the game's end; with ``keep_running``, only plays that do not end it. Returns the
    number of plays made."""
    play = play_without_ending if keep_running else play_first_legal
    for made in range(plays):
        view = api["alice"].get(f"/api/games/{game_id}/").json()
        if view["status"] != "active":
            return made
        mover = "alice" if view["to_move"] == "a" else "bob"
        assert play(api[mover], game_id).status_code == 201
    return plays
