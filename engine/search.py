"""The search bots ``strong`` and ``medium``: determinized two-ply search (docs/bots.md).

The bot sees a ``SeatView`` only. The cards it has not seen are known exactly: its own deck
minus what it has seen is its own draw pile, the opponent's deck minus what it has seen is the
opponent's hand plus his pile. Each *determinization* deals those cards at random (hand and pile
sizes as the view counts them) into a full ``State``, and on it every legal play is tried with
the engine's own ``decide`` and ``apply_events``, then each reply of the opponent, whose hand
is now known; the opponent picks the reply that is worst for us. A leaf is scored by the point
margin (dragon bonus included) plus a share of the best capture our next hand can make, and
turned into a win chance; finished games count as won, drawn or lost. The play with the best
mean win chance over all determinizations wins, the mean margin breaking near-ties.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import NamedTuple

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
    SEATS,
    SHIP,
    STONE_DRAGON,
    TROLL,
    Seat,
    other,
)
from engine.replay import apply_events
from engine.rules import Play, decide, legal_plays
from engine.state import State
from engine.visibility import SeatView


@dataclass(frozen=True, slots=True)
class Budget:
    """How much to think per move: ``iterations`` determinizations, stopped early once
    ``ms`` milliseconds have passed (``None``: no such limit). With a time limit that is
    reached, the play depends on the machine's speed; with iterations alone it depends on the
    seed only."""

    iterations: int | None = None
    ms: float | None = None
    # Determinizations tried even when the clock has run out: a play is never a blind guess.
    min_iterations: int = 2


@dataclass(frozen=True, slots=True)
class Tuning:
    # Share of our best next capture counted at a leaf that is not the end of the game.
    next_capture: float = 0.6
    # Margin to win-chance scale: sigmoid(margin / (base + per_card * sqrt(cards left))).
    scale_base: float = 1.0
    scale_per_card: float = 0.6
    # Weight of the mean margin beside the mean win chance (a tie-breaker).
    margin_weight: float = 0.001
    draw_value: float = 0.5


LEVELS: dict[str, Budget] = {
    "strong": Budget(iterations=40, ms=400.0),
    "medium": Budget(iterations=6, ms=50.0),
}


def unseen_cards(view: SeatView) -> dict[Seat, list[str]]:
    """Per deck, the cards the seat has not seen, in canonical order."""
    seen = set(view.hand) | set(view.hold) | set(view.sailed)
    for cards in view.board.values():
        seen.update(cards)
    for cards in view.captured.values():
        seen.update(cards)
    return {seat: [c for c in DECKS[seat] if c not in seen] for seat in SEATS}


def public_state(view: SeatView) -> State:
    """A ``State`` holding the view's public facts and its own hand; hands and piles of what
    the seat cannot see are left empty for ``deal`` to fill."""
    me = view.seat
    s = State.new({seat: [] for seat in SEATS}, me, view.options)
    s.turn = view.turn
    s.hands[me] = list(view.hand)
    s.board = {kind: list(cards) for kind, cards in view.board.items()}
    s.hold = list(view.hold)
    s.voyages = view.voyages
    s.voyage_ships = [list(view.sailed[i : i + 3]) for i in range(0, len(view.sailed), 3)]
    s.dragon = view.dragon
    s.captured = {seat: list(view.captured[seat]) for seat in SEATS}
    s.points = {seat: sum([view.values[c] for c in view.captured[seat]]) for seat in SEATS}
    s.last_turn = view.last_turn
    # Only game_ended events read the reason; a scheduled end always has one.
    s.last_turn_reason = None if view.last_turn is None else "deck_exhausted"
    return s


def deal(base: State, view: SeatView, unseen: dict[Seat, list[str]], rng: random.Random) -> State:
    """One determinization: the unseen cards dealt at random, consistent with the view's
    hand and pile sizes (in a real game they add up exactly) and with the card the seat knows
    is on top of its own pile."""
    me = view.seat
    opp = other(me)
    world = base.copy()
    top = list(view.pile_top)
    own = [card for card in unseen[me] if card not in top]
    rng.shuffle(own)
    world.piles[me] = (top + own)[: view.pile_sizes[me]]
    theirs = list(unseen[opp])
    rng.shuffle(theirs)
    held = view.hand_sizes[opp]
    world.hands[opp] = theirs[:held]
    world.piles[opp] = theirs[held : held + view.pile_sizes[opp]]
    return world


def margin(s: State, seat: Seat) -> int:
    """Our points minus theirs, the dragon's bonus included."""
    opp = other(seat)
    lead = s.points[seat] - s.points[opp]
    if s.dragon == seat:
        return lead + 3
    if s.dragon == opp:
        return lead - 3
    return lead


def best_capture(s: State, seat: Seat) -> int:
    """The most ``seat``'s hand can add to its margin with one play on this board."""
    board = s.board
    values = s.values
    have: dict[str, int] = {}
    dwarves: list[int] = []
    for card in s.hands[seat]:
        kind = CARD_TYPE[card]
        have[kind] = have.get(kind, 0) + 1
        if kind == DWARF:
            dwarves.append(values[card])

    def pile(kind: str) -> int:
        return sum([values[c] for c in board[kind]])

    best = 0
    if FIRE_DRAGON in have:
        best = pile(CHEST)
    if PRINCESS in have:
        best = max(best, pile(CHEST))
        stones = board[STONE_DRAGON]
        gain = pile(STONE_DRAGON)
        if (stones or not s.options.dragon_requires_stone) and s.dragon != seat:
            gain += 3 if s.dragon is None else 6
        best = max(best, gain)
    if TROLL in have:
        best = max(best, pile(PRINCESS))
    if have.get(HERO, 0) >= CAPACITY[HERO] - len(board[HERO]):
        best = max(best, pile(PRINCESS), pile(TROLL))
    if have.get(HUNTRESS, 0) >= CAPACITY[HUNTRESS] - len(board[HUNTRESS]):
        best = max(best, pile(FIRE_DRAGON))
    needed = CAPACITY[DWARF] - len(board[DWARF])
    if len(dwarves) >= needed:
        dwarves.sort(reverse=True)
        best = max(best, pile(DWARF) + sum(dwarves[:needed]))
    if have.get(SHIP, 0) >= CAPACITY[SHIP] - len(board[SHIP]):
        best = max(best, sum([values[c] for c in s.hold]))
    return best


def _after(s: State, play: Play, rng: random.Random) -> State:
    nxt = s.copy()
    apply_events(nxt, decide(nxt, play, rng))
    return nxt


class Evaluation(NamedTuple):
    play: Play
    chance: float  # mean win chance over the determinizations, 0 to 1
    margin: float  # mean point margin, the tie-breaker


class SearchBot:
    def __init__(self, rng: random.Random, budget: Budget, tuning: Tuning | None = None) -> None:
        if budget.iterations is None and budget.ms is None:
            raise ValueError("a budget needs iterations, milliseconds or both")
        self.rng = rng
        self.budget = budget
        self.tuning = tuning or Tuning()
        self.iterations_done = 0  # determinizations of the last choice, for tests and tuning

    def choose(self, view: SeatView) -> Play:
        plays = view.legal
        if len(plays) == 1:
            return plays[0]
        wins, margins = self._search(view)
        keys = [self._key(outcome) for outcome in zip(wins, margins, strict=True)]
        return plays[max(range(len(plays)), key=keys.__getitem__)]

    def evaluate(self, view: SeatView) -> list[Evaluation]:
        """Every legal play with its mean win chance and margin over the determinizations, in
        ``view.legal``'s order. Unlike ``choose``, a lone legal play is searched too."""
        wins, margins = self._search(view)
        done = max(self.iterations_done, 1)
        return [
            Evaluation(play, win / done, lead / done)
            for play, win, lead in zip(view.legal, wins, margins, strict=True)
        ]

    def preferred(self, evaluations: list[Evaluation]) -> Evaluation:
        """The evaluation of the play the search prefers: the best mean win chance, the mean
        margin breaking near-ties, as ``choose`` ranks them."""
        return max(evaluations, key=lambda e: self._key((e.chance, e.margin)))

    def _search(self, view: SeatView) -> tuple[list[float], list[float]]:
        """Sums of win chances and margins per legal play over the budget's determinizations
        (their number in ``iterations_done``): the one loop both ``choose`` and ``evaluate``
        run, so the review judges a play exactly as the bot would."""
        plays = view.legal
        began = time.perf_counter()
        budget = self.budget
        deadline = None if budget.ms is None else began + budget.ms / 1000
        unseen = unseen_cards(view)
        base = public_state(view)
        cards_left = sum(view.hand_sizes.values()) + sum(view.pile_sizes.values())
        t = self.tuning
        scale = t.scale_base + t.scale_per_card * math.sqrt(cards_left)
        wins = [0.0] * len(plays)
        margins = [0.0] * len(plays)
        done = 0
        while budget.iterations is None or done < budget.iterations:
            if deadline is not None and done >= budget.min_iterations and time.perf_counter() > deadline:
                break
            world = self._deal(base, view, unseen)
            for i, play in enumerate(plays):
                win, lead = self._value(world, play, view.seat, scale)
                wins[i] += win
                margins[i] += lead
            done += 1
        self.iterations_done = done
        return wins, margins

    def _deal(self, base: State, view: SeatView, unseen: dict[Seat, list[str]]) -> State:
        return deal(base, view, unseen, self.rng)

    def _value(self, world: State, play: Play, me: Seat, scale: float) -> tuple[float, float]:
        """(win chance, margin) of ``play`` in one determinization: the opponent's reply is the
        one worst for us."""
        after = _after(world, play, self.rng)
        if after.over:
            return self._final(after, me)
        leaves = [self._leaf(_after(after, reply, self.rng), me, scale) for reply in legal_plays(after)]
        return min(leaves, key=self._key)

    def _leaf(self, s: State, me: Seat, scale: float) -> tuple[float, float]:
        if s.over:
            return self._final(s, me)
        if s.last_turn is not None and s.turn + 1 >= s.last_turn:
            # Our play is the game's last: try each one exactly (rare, so affordable).
            endings = [self._final(_after(s, play, self.rng), me) for play in legal_plays(s)]
            return max(endings, key=self._key)
        estimate = margin(s, me) + self.tuning.next_capture * best_capture(s, me)
        return (1.0 / (1.0 + math.exp(-estimate / scale)), estimate)

    def _key(self, outcome: tuple[float, float]) -> float:
        return outcome[0] + self.tuning.margin_weight * outcome[1]

    def _final(self, s: State, me: Seat) -> tuple[float, float]:
        lead = margin(s, me)
        if s.winner == me:
            return (1.0, float(lead))
        if s.winner is None:
            return (self.tuning.draw_value, float(lead))
        return (0.0, float(lead))


def make_search_bot(level: str, rng: random.Random) -> SearchBot:
    return SearchBot(rng, LEVELS[level])
