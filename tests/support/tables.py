"""Setting up games for the service tests: real services throughout, with a dealer that can
stack the deck when a test needs particular hands (the engine's RandomSource protocol)."""

from __future__ import annotations

from typing import Any

import pytest

from engine import legal_plays
from engine.cards import DECKS, Seat, owner
from games import challenges, event_log, services
from games.models import Game, GameEvent


class StackedDeck:
    """Deals the named cards first, in order, then the rest of each deck in canonical order;
    every other random choice (first seat, the card put back) takes the first option."""

    def __init__(self, a: list[str], b: list[str]) -> None:
        self.top: dict[Seat, list[str]] = {"a": a, "b": b}

    def shuffle(self, deck: list[str]) -> None:
        seat = owner(deck[0])
        top = self.top[seat]
        deck[:] = top + [card for card in DECKS[seat] if card not in top]

    def randrange(self, stop: int, /) -> int:
        return 0


def stack_the_deck(monkeypatch: pytest.MonkeyPatch, a: list[str], b: list[str]) -> None:
    monkeypatch.setattr(services, "_table_rng", StackedDeck(a, b))


def start(creator: Any, opponent: Any, rules: dict[str, Any] | None = None, **extra: Any) -> Game:
    """A challenge from ``creator`` that ``opponent`` has accepted: an active game."""
    game = challenges.game_create(creator=creator, opponent=opponent.username, rules=rules, **extra)
    challenges.game_accept(game=game, user=opponent)
    return Game.objects.select_related("player_a", "player_b").get(pk=game.pk)


def to_move(game: Game) -> Any:
    return game.player(game.to_move)


def waiting(game: Game) -> Any:
    return game.player("b" if game.to_move == "a" else "a")


def play(game: Game, cards: list[str], choice: str | None = None) -> None:
    """The seat to move plays ``cards``."""
    services.game_play(
        game=game, user=to_move(game), cards=cards, choice=choice, expected_version=game.version
    )


def play_first_legal(game: Game) -> None:
    first = legal_plays(event_log.load_state(game))[0]
    play(game, list(first.cards), first.choice)


def play_to_end(game: Game) -> None:
    while game.status == Game.Status.ACTIVE:
        play_first_legal(game)


def footprint(game: Game) -> tuple[int, int]:
    """What any write would change: the game's version and its number of events."""
    return Game.objects.get(pk=game.pk).version, GameEvent.objects.filter(game=game).count()


def snapshot(game: Game) -> dict[str, Any]:
    """The game's cached engine state (``Game.state``), which every dealt game has."""
    assert game.state is not None, "a challenge has no cards yet"
    state: dict[str, Any] = game.state
    return state
