"""Build a game state from the rule texts' notation and play on it.

``scenario(hand_a=["CH1", "CH3", "FD2"], board={"chest": ["CH2"]})`` gives the state RULES.md
section 3 describes: A to move, 5-card hands padded with filler cards of types the scenario does
not mention, 20-card draw piles, everything else empty, voyage counter 0, dragon on the board.
Notation like ``CH3`` or ``SH`` becomes a concrete unused card id: seat a's cards for A's hand and
pile, seat b's for B's, either deck for the board, the hold and the score piles (the deck of the
player *not* to move first, so the mover's own cards stay available). A concrete id (``"a23"``)
may be given anywhere; ``"x"`` asks for one filler card in a hand or a pile.

The state is built with ``State.new`` and then set field by field. It does not keep the
100-card invariant (cards nobody mentions are simply absent); real games check that elsewhere.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import pytest

from engine.cards import (
    CARD_TYPE,
    CARD_VALUES,
    CHEST,
    DECKS,
    DWARF,
    FIRE_DRAGON,
    HERO,
    HUNTRESS,
    PRINCESS,
    SEATS,
    SHIP,
    SHORT,
    STONE_DRAGON,
    TROLL,
    TYPES,
    Seat,
    describe,
    other,
)
from engine.errors import IllegalMove
from engine.events import AnyEvent, Event, LastTurnReason, LogEvent
from engine.options import Options, resolve_options
from engine.replay import apply_events
from engine.rules import Abort, Play, Resign, Timeout, decide, legal_plays
from engine.state import State

FILLER = "x"
KIND_OF = {short: kind for kind, short in SHORT.items()}
# Filler cards cycle through these types, skipping the types a scenario mentions.
FILLER_KINDS = (STONE_DRAGON, DWARF, SHIP, CHEST, HUNTRESS, TROLL, HERO, FIRE_DRAGON, PRINCESS)


def parse(notation: str) -> tuple[str, int]:
    """``"CH3"`` -> ``("chest", 3)``; ``"SH"`` -> ``("ship", 0)``."""
    kind = KIND_OF.get(notation[:2])
    if kind is None:
        raise ValueError(f"not a card notation: {notation!r}")
    if kind == SHIP:
        if notation != "SH":
            raise ValueError(f"ships carry no value: {notation!r}")
        return kind, 0
    return kind, int(notation[2:])


def _kind_of(item: str) -> str | None:
    if item == FILLER:
        return None
    if item in CARD_TYPE:
        return CARD_TYPE[item]
    return parse(item)[0]


class _Dealer:
    """Hands out unused card ids for notations, one id at most once."""

    def __init__(self, values: Mapping[str, int], avoid: set[str]) -> None:
        self.values = values
        self.avoid = avoid
        self.used: set[str] = set()
        self.turns = dict.fromkeys(SEATS, 0)

    def take(self, item: str, seats: Sequence[Seat]) -> str:
        if item in CARD_TYPE:
            return self._claim(item)
        kind, value = parse(item)
        for seat in seats:
            for card in DECKS[seat]:
                if card not in self.used and CARD_TYPE[card] == kind and self.values[card] == value:
                    return self._claim(card)
        raise ValueError(f"no unused {item} left in deck(s) {'/'.join(seats)}")

    def filler(self, seat: Seat) -> str:
        """The next filler of ``seat``: types the scenario does not mention, taken in turn so a
        hand of fillers is varied (and always has a quiet play); any unused card once those run
        out."""
        kinds = [kind for kind in FILLER_KINDS if kind not in self.avoid]
        for step in range(len(kinds)):
            kind = kinds[(self.turns[seat] + step) % len(kinds)]
            for card in DECKS[seat]:
                if card not in self.used and CARD_TYPE[card] == kind:
                    self.turns[seat] += step + 1
                    return self._claim(card)
        for card in DECKS[seat]:
            if card not in self.used:
                return self._claim(card)
        raise ValueError(f"deck {seat} is used up")

    def _claim(self, card: str) -> str:
        if card in self.used:
            raise ValueError(f"card {card} is placed twice")
        self.used.add(card)
        return card


def scenario(
    *,
    hand_a: Sequence[str] = (),
    hand_b: Sequence[str] = (),
    hand_a_size: int | None = None,
    hand_b_size: int | None = None,
    pile_a_top: Sequence[str] = (),
    pile_b_top: Sequence[str] = (),
    pile_a_size: int = 20,
    pile_b_size: int = 20,
    board: Mapping[str, Sequence[str]] | None = None,
    hold: Sequence[str] = (),
    captured_a: Sequence[str] = (),
    captured_b: Sequence[str] = (),
    points: Mapping[Seat, int] | None = None,
    voyages: int = 0,
    dragon: Seat | None = None,
    to_move: Seat = "a",
    turn: int = 10,
    last_turn: int | None = None,
    last_turn_reason: LastTurnReason | None = None,
    options: Options | Mapping[str, Any] | None = None,
) -> State:
    """A state in the middle of a game (``turn`` completed turns, so the mover plays turn
    ``turn + 1``). Hand sizes default to the hand limit: 5, or 6 for the dragon holder.
    ``points`` overrides the captured points (without the dragon bonus)."""
    opts = options if isinstance(options, Options) else resolve_options(dict(options or {}))
    values = CARD_VALUES[opts.deck_profile]
    spaces = {_space_key(key): list(cards) for key, cards in (board or {}).items()}
    hands: dict[Seat, list[str]] = {"a": list(hand_a), "b": list(hand_b)}
    tops: dict[Seat, list[str]] = {"a": list(pile_a_top), "b": list(pile_b_top)}
    mentioned = [*hands["a"], *hands["b"], *tops["a"], *tops["b"], *hold, *captured_a, *captured_b]
    mentioned += [card for cards in spaces.values() for card in cards]
    dealer = _Dealer(values, {kind for item in mentioned if (kind := _kind_of(item)) is not None})

    sizes: dict[Seat, int | None] = {"a": hand_a_size, "b": hand_b_size}
    for seat in SEATS:
        given = sizes[seat]
        size = given if given is not None else (6 if dragon == seat else 5)
        if len(hands[seat]) > size:
            raise ValueError(f"hand {seat} names {len(hands[seat])} cards but holds {size}")
        hands[seat] += [FILLER] * (size - len(hands[seat]))

    table_seats = (other(to_move), to_move)
    dealt_hands = {seat: _deal(dealer, hands[seat], (seat,)) for seat in SEATS}
    dealt_tops = {seat: _deal(dealer, tops[seat], (seat,)) for seat in SEATS}
    dealt_board = {kind: _deal(dealer, cards, table_seats) for kind, cards in spaces.items()}
    dealt_hold = _deal(dealer, hold, table_seats)
    dealt_captured: dict[Seat, list[str | None]] = {
        "a": _deal(dealer, captured_a, table_seats),
        "b": _deal(dealer, captured_b, table_seats),
    }
    hands_dealt = {
        seat: [card if card is not None else dealer.filler(seat) for card in dealt_hands[seat]]
        for seat in SEATS
    }
    piles: dict[Seat, list[str]] = {}
    pile_sizes: dict[Seat, int] = {"a": pile_a_size, "b": pile_b_size}
    for seat, size in pile_sizes.items():
        if len(dealt_tops[seat]) > size:
            raise ValueError(f"pile {seat} names more cards than it holds")
        piles[seat] = _fill(dealer, seat, dealt_tops[seat], size)

    first = to_move if turn % 2 == 0 else other(to_move)
    state = State.new({seat: [] for seat in SEATS}, first, opts)
    state.turn = turn
    state.to_move = to_move
    state.hands = hands_dealt
    state.piles = piles
    for kind in TYPES:
        state.board[kind] = _placed(dealt_board.get(kind, []))
    state.hold = _placed(dealt_hold)
    state.voyages = voyages
    state.dragon = dragon
    state.captured = {seat: _placed(dealt_captured[seat]) for seat in SEATS}
    state.points = {seat: sum(values[c] for c in state.captured[seat]) for seat in SEATS}
    if points is not None:
        state.points.update(points)
    state.last_turn = last_turn
    if last_turn is not None and last_turn_reason is None:
        last_turn_reason = "deck_exhausted"  # a scheduled end always has a reason
    state.last_turn_reason = last_turn_reason
    return state


def _space_key(key: str) -> str:
    if key in TYPES:
        return key
    if key in KIND_OF:
        return KIND_OF[key]
    raise ValueError(f"no board space {key!r}")


def _deal(dealer: _Dealer, items: Iterable[str], seats: Sequence[Seat]) -> list[str | None]:
    """Concrete ids for the notations; fillers stay None until every named card is placed."""
    return [None if item == FILLER else dealer.take(item, seats) for item in items]


def _placed(cards: list[str | None]) -> list[str]:
    """Named cards only (a filler is no card outside the hands and piles)."""
    assert None not in cards, "fillers are dealt into hands and piles only"
    return [card for card in cards if card is not None]


def _fill(dealer: _Dealer, seat: Seat, top: list[str | None], size: int) -> list[str]:
    cards = [card if card is not None else dealer.filler(seat) for card in top]
    while len(cards) < size:
        cards.append(dealer.filler(seat))
    return cards


# --- reading a state the way the rules write it -------------------------------------------


def names(cards: Iterable[str], state: State | None = None) -> list[str]:
    """Rule-text notation of card ids, in their order: ``["CH2", "SH"]``."""
    values = state.values if state is not None else CARD_VALUES["standard"]
    return [describe(card, values) for card in cards]


def snapshot(state: State) -> dict[str, Any]:
    """Every field of the state, deep-copied, for before/after comparisons."""
    return {slot: copy.deepcopy(getattr(state, slot)) for slot in State.__slots__} | {"json": state.to_json()}


def of_kind(events: Iterable[Event], kind: str) -> list[Event]:
    return [event for event in events if event["kind"] == kind]


def kinds(events: Iterable[LogEvent]) -> list[str]:
    return [event["kind"] for event in events]


# --- playing --------------------------------------------------------------------------------


def from_hand(state: State, cards: str | Sequence[str], seat: Seat | None = None) -> tuple[str, ...]:
    """Card ids from ``seat``'s hand (default: the mover's) for notations or ids, earliest
    matching cards first. Ids are passed through unchecked, so illegal ones reach the engine."""
    items = [cards] if isinstance(cards, str) else list(cards)
    hand = state.hands[seat or state.to_move or "a"]
    picked: list[str] = []
    for item in items:
        if item in CARD_TYPE or item[:2] not in KIND_OF:
            picked.append(item)
            continue
        kind, value = parse(item)
        match = [c for c in hand if c not in picked and CARD_TYPE[c] == kind and state.values[c] == value]
        if not match:
            raise LookupError(f"{item} is not in hand {names(hand, state)}")
        picked.append(match[0])
    return tuple(picked)


def make_play(
    state: State,
    cards: str | Sequence[str],
    choice: str | None = None,
    *,
    returned: str | None = None,
    seat: Seat | None = None,
) -> Play:
    if returned is not None and returned not in CARD_TYPE and state.dragon is not None:
        returned = from_hand(state, returned, state.dragon)[0]
    return Play(from_hand(state, cards), choice, seat, returned)


def play(
    state: State,
    cards: str | Sequence[str],
    choice: str | None = None,
    *,
    returned: str | None = None,
    seat: Seat | None = None,
    rng: Any = None,
) -> tuple[State, list[Event]]:
    """Decide the play on ``state`` and return (the state after it, its events). ``state`` itself
    is left as it was."""
    events = decide(state, make_play(state, cards, choice, returned=returned, seat=seat), rng)
    after = state.copy()
    apply_events(after, events)
    return after, loose(events)


def run(state: State, command: Play | Resign | Timeout | Abort, rng: Any = None) -> tuple[State, list[Event]]:
    """Like ``play`` for any ready-made command."""
    events = decide(state, command, rng)
    after = state.copy()
    apply_events(after, events)
    return after, loose(events)


def loose(events: list[AnyEvent]) -> list[Event]:
    # The tests read any key of any event, as the code outside the engine reads a log.
    return cast(list[Event], events)


QUIET = {"cards_played", "turn_passed", "cards_drawn", "last_turn_scheduled", "turn_ended", "game_ended"}


def play_quietly(state: State) -> tuple[State, list[Event]]:
    """Some legal play of the mover that captures nothing, fills no space and leaves the dragon
    where it is (to move time on in end-of-game scenarios)."""
    for candidate in legal_plays(state):
        events = decide(state, candidate)
        if set(kinds(events)) <= QUIET:
            return run(state, candidate)
    raise AssertionError(f"no quiet play in hand {names(state.hands[state.to_move or 'a'], state)}")


def refuse(
    state: State,
    cards: str | Sequence[str] | Play | Resign | Timeout | Abort,
    choice: str | None = None,
    *,
    returned: str | None = None,
    seat: Seat | None = None,
    rng: Any = None,
) -> IllegalMove:
    """The IllegalMove the engine raises for this command, after checking that the refusal
    left every field of ``state`` exactly as it was."""
    if isinstance(cards, Play | Resign | Timeout | Abort):
        command = cards
    else:
        command = make_play(state, cards, choice, returned=returned, seat=seat)
    before = snapshot(state)
    with pytest.raises(IllegalMove) as refused:
        decide(state, command, rng)
    assert snapshot(state) == before
    return refused.value
