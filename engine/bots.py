"""Bots. Each decides from a ``SeatView``: its own hand and the public table, nothing else.

* ``random`` picks uniformly among the legal plays.
* ``greedy`` takes the most points now (the dragon counts as its 3-point bonus, doubled when
  it is taken from the opponent); among equal plays it leaves the opponent the least to take,
  then puts the fewest points on the board, then keeps its hand varied.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Callable, Protocol

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
)
from engine.rules import CHESTS, PRINCESSES, STONES, Play
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
    seen = set(view.hand) | set(view.hold)
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


def exposure(view: SeatView, board: dict[str, list[str]], unseen: Counter[str]) -> int:
    """The most the opponent could take next turn from this board with one type of card he
    may hold (ships already out of play are not counted as unseen, so this overestimates a
    little; good enough for a tie-break)."""
    values = view.values

    def pile(kind: str) -> int:
        return sum([values[c] for c in board[kind]])

    threats = [0]
    if unseen[FIRE_DRAGON] or unseen[PRINCESS]:
        threats.append(pile(CHEST))
    if unseen[PRINCESS]:
        dragon_swing = 6 if view.dragon == view.seat else 3 if view.dragon is None else 0
        threats.append(pile(STONE_DRAGON) + (dragon_swing if board[STONE_DRAGON] else 0))
    if unseen[TROLL] or (unseen[HERO] and len(board[HERO]) == 1):
        threats.append(pile(PRINCESS))
    if unseen[HERO] and len(board[HERO]) == 1:
        threats.append(pile(TROLL))
    if unseen[HUNTRESS] and len(board[HUNTRESS]) == 2:
        threats.append(pile(FIRE_DRAGON))
    if unseen[DWARF] and board[DWARF]:
        threats.append(pile(DWARF) + 1)
    if unseen[SHIP] and len(board[SHIP]) == 2:
        threats.append(sum([values[c] for c in board["hold"]]))
    return max(threats)


class GreedyBot:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView) -> Play:
        unseen = _unseen_types(view)
        kinds_in_hand = Counter(CARD_TYPE[c] for c in view.hand)

        def key(play: Play) -> tuple[int, int, int, int]:
            gain = immediate_gain(view, play)
            exposed = exposure(view, _board_after(view, play), unseen)
            on_board = _sum(view, play.cards) if gain == 0 else 0
            # Prefer emptying a type we hold many of: a varied hand has more answers.
            variety = -kinds_in_hand[CARD_TYPE[play.cards[0]]] if play.cards else 0
            return (-gain, exposed, on_board, variety)

        best = min(key(p) for p in view.legal)
        candidates = [p for p in view.legal if key(p) == best]
        return candidates[self.rng.randrange(len(candidates))]


BOTS: dict[str, Callable[[random.Random], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
}


def make_bot(name: str, rng: random.Random) -> Bot:
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose one of {sorted(BOTS)}") from None
    return factory(rng)
