"""Bots. Each decides from a ``SeatView``: its own hand and the public table, nothing else.

* ``random`` picks uniformly among the legal plays.
* ``greedy`` takes the most points now (the dragon counts as its 3-point bonus, doubled when
  it is taken from the opponent); among equal plays it leaves the opponent the least to take,
  then puts the fewest points on the board, then keeps its hand varied.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from functools import partial
from math import comb
from typing import Protocol

from engine.cards import (
    CAPACITY,
    CARD_TYPE,
    CHEST,
    DECKS,
    DWARF,
    FIRE_DRAGON,
    HERO,
    HUNTRESS,
    PRINCESS,
    SHIP,
    STONE_DRAGON,
    TROLL,
    other,
)
from engine.rules import CHESTS, PRINCESSES, Play
from engine.search import LEVELS, Budget, SearchBot, make_search_bot
from engine.visibility import SeatView


class Bot(Protocol):
    def choose(self, view: SeatView) -> Play: ...


class RandomBot:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView) -> Play:
        return view.legal[self.rng.randrange(len(view.legal))]


def _sum(view: SeatView, cards: tuple[str, ...] | list[str]) -> int:
    values = view.values
    return sum([values[c] for c in cards])


def immediate_gain(view: SeatView, play: Play) -> int:
    """Points the play captures now, with the dragon's bonus (and the opponent's lost bonus)."""
    if not play.cards:
        return 0
    board = view.board
    kind = CARD_TYPE[play.cards[0]]
    if kind == FIRE_DRAGON:
        return _sum(view, board[CHEST])
    if kind == PRINCESS:
        if play.choice == CHESTS:
            return _sum(view, board[CHEST])
        stones = board[STONE_DRAGON]
        gain = _sum(view, stones)
        if (stones or not view.options.dragon_requires_stone) and view.dragon != view.seat:
            gain += 3 if view.dragon is None else 6
        return gain
    if kind == TROLL:
        return _sum(view, board[PRINCESS])
    capacity = CAPACITY.get(kind)
    if capacity is None or len(board[kind]) + len(play.cards) < capacity:
        return 0
    if kind == HUNTRESS:
        return _sum(view, board[FIRE_DRAGON])
    if kind == HERO:
        return _sum(view, board[PRINCESS] if play.choice == PRINCESSES else board[TROLL])
    if kind == DWARF:
        return _sum(view, board[DWARF]) + _sum(view, play.cards)
    return _sum(view, view.hold)  # a voyage


def _board_after(view: SeatView, play: Play) -> dict[str, list[str]]:
    """The board (and hold, under key "hold") once the play has resolved."""
    board = {kind: list(cards) for kind, cards in view.board.items()}
    board["hold"] = list(view.hold)
    if not play.cards:
        return board
    kind = CARD_TYPE[play.cards[0]]
    board[kind].extend(play.cards)
    capacity = CAPACITY.get(kind)
    fills = capacity is not None and len(board[kind]) == capacity
    if kind == FIRE_DRAGON:
        board[CHEST] = []
    elif kind == PRINCESS:
        board[CHEST if play.choice == CHESTS else STONE_DRAGON] = []
    elif kind == TROLL:
        board[PRINCESS] = []
    elif fills:
        if kind == HUNTRESS:
            board[FIRE_DRAGON] = []
        elif kind == HERO:
            board[PRINCESS if play.choice == PRINCESSES else TROLL] = []
        elif kind == SHIP:
            board["hold"] = []
        if kind in (HUNTRESS, HERO):
            board["hold"].extend(board[kind])
        board[kind] = []
    return board


def _unseen_types(view: SeatView) -> Counter[str]:
    """Types of the cards this seat has not seen: the opponent's hand and both piles."""
    seen = set(view.hand) | set(view.hold) | set(view.sailed)
    for cards in view.board.values():
        seen.update(cards)
    for cards in view.captured.values():
        seen.update(cards)
    unseen: Counter[str] = Counter()
    for deck in DECKS.values():
        for card in deck:
            if card not in seen:
                unseen[CARD_TYPE[card]] += 1
    return unseen


def _chance(unseen: Counter[str], kind: str, needed: int, hand_size: int) -> float:
    """Chance that a hand of ``hand_size`` cards drawn from the unseen cards holds at least
    ``needed`` of ``kind`` (hypergeometric tail)."""
    total = sum(unseen.values())
    have = unseen[kind]
    if needed > have or needed > hand_size or total == 0:
        return 0.0
    hand_size = min(hand_size, total)
    below = sum(comb(have, k) * comb(total - have, hand_size - k) for k in range(min(needed, hand_size + 1)))
    return 1.0 - below / comb(total, hand_size)


def exposure(view: SeatView, board: dict[str, list[str]], unseen: Counter[str]) -> float:
    """What the opponent can expect to take next turn from this board: the largest of each
    threat's points times the chance that his hand (a draw from the cards we have not seen,
    our own pile included, which we cannot tell apart) can make it."""
    values = view.values
    opponent = other(view.seat)
    hand = view.hand_sizes[opponent]

    def pile(kind: str) -> int:
        return sum([values[c] for c in board[kind]])

    def p(kind: str, needed: int = 1) -> float:
        return _chance(unseen, kind, needed, hand)

    threats = [0.0]
    chests = pile(CHEST)
    if chests:
        threats.append(chests * max(p(FIRE_DRAGON), p(PRINCESS)))
    if board[STONE_DRAGON]:
        swing = 6 if view.dragon == view.seat else 3 if view.dragon is None else 0
        threats.append((pile(STONE_DRAGON) + swing) * p(PRINCESS))
    heroes_needed = 2 - len(board[HERO])
    if board[PRINCESS]:
        threats.append(pile(PRINCESS) * max(p(TROLL), p(HERO, heroes_needed)))
    if board[TROLL]:
        threats.append(pile(TROLL) * p(HERO, heroes_needed))
    if board[FIRE_DRAGON]:
        threats.append(pile(FIRE_DRAGON) * p(HUNTRESS, 3 - len(board[HUNTRESS])))
    if board[DWARF]:
        threats.append((pile(DWARF) + 1) * p(DWARF, 4 - len(board[DWARF])))
    if board["hold"]:
        threats.append(sum([values[c] for c in board["hold"]]) * p(SHIP, 3 - len(board[SHIP])))
    return max(threats)


class GreedyBot:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView) -> Play:
        unseen = _unseen_types(view)
        kinds_in_hand = Counter(CARD_TYPE[c] for c in view.hand)

        def key(play: Play) -> tuple[int, float, int, int]:
            gain = immediate_gain(view, play)
            after = _board_after(view, play)
            exposed = round(exposure(view, after, unseen), 6)
            # Points of our own cards left lying on the board, as prey.
            played = set(play.cards)
            on_board = sum(_sum(view, [c for c in cards if c in played]) for cards in after.values())
            # Prefer emptying a type we hold many of: a varied hand has more answers.
            variety = -kinds_in_hand[CARD_TYPE[play.cards[0]]] if play.cards else 0
            return (-gain, exposed, on_board, variety)

        keys = [key(p) for p in view.legal]
        best = min(keys)
        candidates = [p for p, k in zip(view.legal, keys, strict=True) if k == best]
        return candidates[self.rng.randrange(len(candidates))]


BOTS: dict[str, Callable[[random.Random], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "medium": partial(make_search_bot, "medium"),
    "strong": partial(make_search_bot, "strong"),
}


def make_bot(name: str, rng: random.Random, budget: Budget | None = None) -> Bot:
    """The bot ``name`` playing with ``rng``; a search bot (``strong``, ``medium``) thinks
    within ``budget`` if one is given, else within its level's."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose one of {sorted(BOTS)}") from None
    if budget is not None and name in LEVELS:
        return SearchBot(rng, budget)
    return factory(rng)
