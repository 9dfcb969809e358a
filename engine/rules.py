"""The decide step: validate a command against a state and return the events it causes.

All guard clauses live here, in the order a player would ask them (is the game over? is it my
turn? are these my cards? do they fit?). ``decide`` never mutates the state, so a refused
command leaves no trace. Randomness comes only from the injected source and is written into the
events it produces.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from engine import events as ev
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
    describe,
    is_seat,
    other,
)
from engine.errors import IllegalMove
from engine.events import AnyEvent, EndReason, GameEnded, GameStarted
from engine.options import DEFAULT, Options
from engine.state import State

CHESTS, STONES, PRINCESSES, TROLLS = "chests", "stones", "princesses", "trolls"
PRINCESS_CHOICES = (CHESTS, STONES)
HERO_CHOICES = (PRINCESSES, TROLLS)
# What a voyage captures from (cards_captured.space): the hold, not a space of the board.
HOLD = "hold"

# Stable error codes (clients switch on them; never rename one).
GAME_OVER = "game_over"
NOT_YOUR_TURN = "not_your_turn"
NO_CARDS = "no_cards"
UNKNOWN_CARD = "unknown_card"
DUPLICATE_CARD = "duplicate_card"
CARD_NOT_IN_HAND = "card_not_in_hand"
MIXED_TYPES = "mixed_types"
TOO_MANY_CARDS = "too_many_cards"
CHOICE_REQUIRED = "choice_required"
CHOICE_NOT_ALLOWED = "choice_not_allowed"
INVALID_CHOICE = "invalid_choice"
RETURNED_MISSING = "returned_missing"
RETURNED_UNEXPECTED = "returned_unexpected"
RETURNED_NOT_IN_HAND = "returned_not_in_hand"
UNKNOWN_SEAT = "unknown_seat"
TOO_LATE_TO_ABORT = "too_late_to_abort"

_NAMES = {
    CHEST: "treasure chest",
    FIRE_DRAGON: "fire dragon",
    STONE_DRAGON: "petrified dragon",
    PRINCESS: "princess",
    TROLL: "troll",
    DWARF: "dwarf",
    HERO: "hero",
    HUNTRESS: "dragon huntress",
    SHIP: "ship",
}


class RandomSource(Protocol):
    """What the engine draws from; ``random.Random`` fits. Call order: deck a is shuffled,
    then deck b, then (if ``first_player`` is random) ``randrange(2)`` picks a (0) or b (1);
    during play ``randrange(len(hand))`` picks the card put back on losing the dragon."""

    def shuffle(self, x: list[str]) -> None: ...

    def randrange(self, stop: int, /) -> int: ...


class Play(NamedTuple):
    """Put down ``cards`` (ids, all of one type). ``seat`` and ``returned`` are optional
    assertions a game record may carry; when ``returned`` is absent, the card put back on
    losing the dragon is drawn from the random source. (A NamedTuple rather than a frozen
    dataclass: legal-play enumeration builds thousands per game and this is 5x cheaper.)"""

    cards: tuple[str, ...]
    choice: str | None = None
    # As the record claims it, unchecked: any other seat than the one to move is refused.
    seat: str | None = None
    returned: str | None = None


@dataclass(frozen=True, slots=True)
class Resign:
    seat: str


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat to move let its clock run out: it loses."""

    seat: str


@dataclass(frozen=True, slots=True)
class Abort:
    """The first move never came: the game ends without a result."""

    seat: str


# A command's seat is as sent (a str, not a Seat): decide refuses one that is not a seat.
Command = Play | Resign | Timeout | Abort


def start_game(
    rng: RandomSource | None = None,
    options: Options = DEFAULT,
    *,
    first: Seat | None = None,
    decks: Mapping[Seat, Sequence[str]] | None = None,
) -> GameStarted:
    """The ``game_started`` event of a new game: shuffled decks (or the given ones) and the
    first seat (given, fixed by the options, or drawn)."""
    if decks is None:
        if rng is None:
            raise ValueError("a random source is needed to shuffle the decks")
        shuffled: dict[Seat, list[str]] = {}
        for seat in SEATS:
            deck = list(DECKS[seat])
            rng.shuffle(deck)
            shuffled[seat] = deck
    else:
        shuffled = {seat: list(decks[seat]) for seat in SEATS}
    if first is None:
        if is_seat(options.first_player):
            first = options.first_player
        else:
            if rng is None:
                raise ValueError("a random source is needed to pick the first seat")
            first = SEATS[rng.randrange(2)]
    return ev.game_started(shuffled, first, options.to_json())


def new_game(seed: int, options: Options = DEFAULT) -> GameStarted:
    return start_game(random.Random(seed), options)


def decide(state: State, command: Command, rng: RandomSource | None = None) -> list[AnyEvent]:
    if isinstance(command, Play):
        return _decide_play(state, command, rng)
    if state.over:
        raise IllegalMove(GAME_OVER, "The game is already over.")
    seat = command.seat
    if not is_seat(seat):
        raise IllegalMove(UNKNOWN_SEAT, f"There is no seat {seat!r}; seats are 'a' and 'b'.")
    if isinstance(command, Resign):
        return [ev.game_ended(ev.RESIGNED, state.scores(), other(seat), seat)]
    if isinstance(command, Timeout):
        if seat != state.to_move:
            raise IllegalMove(NOT_YOUR_TURN, "Only the player to move can run out of time.")
        return [ev.game_ended(ev.TIMEOUT, state.scores(), other(seat), seat)]
    if state.turn > 0:
        raise IllegalMove(TOO_LATE_TO_ABORT, "The game has begun: it can no longer be aborted.")
    return [ev.game_ended(ev.ABORTED, state.scores(), None, seat)]


def winner_of(scores: dict[Seat, int], dragon: Seat | None) -> Seat | None:
    """Higher score wins; on equal scores the dragon holder; otherwise a draw (R1.10.2)."""
    if scores["a"] != scores["b"]:
        return "a" if scores["a"] > scores["b"] else "b"
    return dragon


def _validate_cards(state: State, seat: Seat, cards: tuple[str, ...]) -> str:
    """Check the cards themselves and return their common type."""
    hand = state.hands[seat]
    seen: set[str] = set()
    kind = None
    for card in cards:
        card_kind = CARD_TYPE.get(card) if isinstance(card, str) else None
        if card_kind is None:
            raise IllegalMove(UNKNOWN_CARD, f"There is no card {card!r}.")
        if card in seen:
            raise IllegalMove(DUPLICATE_CARD, f"Card {card} is named twice.")
        seen.add(card)
        if card not in hand:
            raise IllegalMove(
                CARD_NOT_IN_HAND, f"Card {card} ({describe(card, state.values)}) is not in your hand."
            )
        if kind is None:
            kind = card_kind
        elif card_kind != kind:
            raise IllegalMove(MIXED_TYPES, "All cards put down in one turn must be of the same type.")
    assert kind is not None
    return kind


def _validate_choice(kind: str, fills: bool, choice: str | None) -> None:
    if kind == PRINCESS:
        allowed: tuple[str, ...] | None = PRINCESS_CHOICES
        what = "A princess takes either all treasure chests or all petrified dragons"
    elif kind == HERO and fills:
        allowed = HERO_CHOICES
        what = "A hero that fills the hero space takes either all princesses or all trolls"
    else:
        allowed = None
    if allowed is None:
        if choice is not None:
            when = " unless it fills the hero space" if kind == HERO else ""
            raise IllegalMove(CHOICE_NOT_ALLOWED, f"A {_NAMES[kind]} play takes no choice{when}.")
        return
    if choice is None:
        raise IllegalMove(CHOICE_REQUIRED, f"{what}: choose {allowed[0]!r} or {allowed[1]!r}.")
    if choice not in allowed:
        raise IllegalMove(INVALID_CHOICE, f"{what}: {choice!r} is not one of {allowed[0]!r}, {allowed[1]!r}.")


def _decide_play(state: State, play: Play, rng: RandomSource | None) -> list[AnyEvent]:
    """A play, step by step: the guards, the cards put down, what they capture, the dragon or
    the full space they leave behind, then the end of the turn."""
    if state.over:
        raise IllegalMove(GAME_OVER, "The game is over: no more plays.")
    seat = state.to_move
    assert seat is not None
    if play.seat is not None and play.seat != seat:
        raise IllegalMove(NOT_YOUR_TURN, f"It is seat {seat}'s turn, not seat {play.seat}'s.")
    if not play.cards:
        return _empty_turn(state, seat, play)
    kind, fills = _validate_play(state, seat, play)
    played = list(play.cards)
    out: list[AnyEvent] = [ev.cards_played(seat, played, kind, play.choice)]
    source = _capture_source(kind, fills, play.choice)
    gained = _capture(state, seat, kind, source, played, out) if source else 0
    dragon = state.dragon
    if kind == PRINCESS:
        dragon = _princess_dragon(state, seat, play, rng, out)
    elif play.returned is not None:
        raise IllegalMove(
            RETURNED_UNEXPECTED, "No card is put back: this play does not take the dragon from the opponent."
        )
    elif fills:
        _full_space(state, seat, kind, played, out)
    hand_size = len(state.hands[seat]) - len(played)
    return _finish_turn(state, seat, out, hand_size, gained, dragon, source == HOLD)


def _empty_turn(state: State, seat: Seat, play: Play) -> list[AnyEvent]:
    """A turn with an empty hand (the pile has run out): nothing is put down."""
    if state.hands[seat]:
        raise IllegalMove(NO_CARDS, "Put down at least one card: passing is not allowed.")
    if play.choice is not None:
        raise IllegalMove(CHOICE_NOT_ALLOWED, "An empty turn takes no choice.")
    if play.returned is not None:
        raise IllegalMove(RETURNED_UNEXPECTED, "No card is put back: the dragon did not change hands.")
    return _finish_turn(state, seat, [ev.turn_passed(seat)], 0, 0, state.dragon, False)


def _validate_play(state: State, seat: Seat, play: Play) -> tuple[str, bool]:
    """Check the cards, the room on their space and the choice; return the cards' type and
    whether they fill a limited space."""
    kind = _validate_cards(state, seat, play.cards)
    fills = False
    capacity = CAPACITY.get(kind)
    if capacity is not None:
        n = len(play.cards)
        free = capacity - len(state.board[kind])
        if n > free:
            raise IllegalMove(
                TOO_MANY_CARDS,
                f"The {_NAMES[kind]} space has {free} free slot{'s' if free != 1 else ''}: "
                f"you cannot put down {n}.",
            )
        fills = n == free
    choice = play.choice
    if choice is not None or kind == PRINCESS or (fills and kind == HERO):
        _validate_choice(kind, fills, choice)
    return kind, fills


def _capture_source(kind: str, fills: bool, choice: str | None) -> str:
    """The space the play captures from (effects of R1.6): a type key, HOLD for a voyage, or
    "" when it captures nothing."""
    if kind == FIRE_DRAGON:
        return CHEST
    if kind == PRINCESS:
        return CHEST if choice == CHESTS else STONE_DRAGON
    if kind == TROLL:
        return PRINCESS
    if not fills:
        return ""
    if kind == HUNTRESS:
        return FIRE_DRAGON
    if kind == HERO:
        return PRINCESS if choice == PRINCESSES else TROLL
    if kind == DWARF:
        return DWARF
    return HOLD


def _capture(state: State, seat: Seat, kind: str, source: str, played: list[str], out: list[AnyEvent]) -> int:
    """Record what the play takes from ``source`` and return the points it is worth. Dwarfs
    that fill their space take themselves and the dwarfs already there."""
    if source == HOLD:
        taken = state.hold
    elif kind == DWARF:
        taken = state.board[DWARF] + played
    else:
        taken = state.board[source]
    if not taken:
        return 0
    out.append(ev.cards_captured(seat, source, list(taken)))
    values = state.values
    return sum([values[c] for c in taken])


def _princess_dragon(
    state: State, seat: Seat, play: Play, rng: RandomSource | None, out: list[AnyEvent]
) -> Seat | None:
    """Who holds the dragon after a princess play: one that takes the petrified dragons wins
    it (R1.7), and its loser puts a card back. Returns the new holder."""
    dragon = state.dragon
    returned = None
    wins = play.choice == STONES and (
        bool(state.board[STONE_DRAGON]) or not state.options.dragon_requires_stone
    )
    if wins and dragon != seat:
        returned = _card_put_back(state, dragon, play.returned, rng)
        out.append(ev.dragon_transferred(dragon, seat, returned))
        dragon = seat
    if play.returned is not None and returned is None:
        raise IllegalMove(
            RETURNED_UNEXPECTED, "No card is put back: this play does not take the dragon from the opponent."
        )
    return dragon


def _full_space(state: State, seat: Seat, kind: str, played: list[str], out: list[AnyEvent]) -> None:
    """A filled hero or huntress space goes to the hold; a filled ship space sails a voyage."""
    if kind in (HUNTRESS, HERO):
        out.append(ev.cards_moved_to_hold(kind, state.board[kind] + played))
    elif kind == SHIP:
        out.append(ev.voyage_completed(seat, state.board[SHIP] + played, state.voyages + 1))


def _card_put_back(
    state: State, loser: Seat | None, named: str | None, rng: RandomSource | None
) -> str | None:
    """The card the dragon's loser puts on top of his own pile (R1.7.4–R1.7.5), or None."""
    if loser is None:
        return None
    hand = state.hands[loser]
    due = len(hand) > 5 if state.options.dragon_loss_return == "excess" else len(hand) > 0
    if not due:
        return None
    if named is not None:
        if named not in hand:
            raise IllegalMove(
                RETURNED_NOT_IN_HAND, f"The card put back, {named!r}, is not in seat {loser}'s hand."
            )
        return named
    if rng is None:
        raise IllegalMove(
            RETURNED_MISSING, f"This play takes the dragon: name the card seat {loser} puts back."
        )
    return hand[rng.randrange(len(hand))]


def _finish_turn(
    state: State,
    seat: Seat,
    out: list[AnyEvent],
    hand_size: int,
    gained: int,
    dragon: Seat | None,
    sailed: bool,
) -> list[AnyEvent]:
    """The end triggers (R1.9) around the refill, then the end of the turn and maybe the game."""
    turn = state.turn + 1
    last_turn = state.last_turn
    reason = state.last_turn_reason
    if sailed and state.voyages + 1 >= 3 and (last_turn is None or turn + 1 < last_turn):
        last_turn, reason = turn + 1, ev.THIRD_VOYAGE
        out.append(ev.last_turn_scheduled(last_turn, reason, seat))
    candidate = _draw(state, seat, turn, hand_size, dragon, out)
    if candidate is not None and (last_turn is None or candidate < last_turn):
        last_turn, reason = candidate, ev.DECK_EXHAUSTED
        out.append(ev.last_turn_scheduled(last_turn, reason, seat))
    out.append(ev.turn_ended(seat, turn))
    if last_turn is not None and turn >= last_turn:
        assert reason is not None
        out.append(_game_end(state, seat, reason, gained, dragon))
    return out


def _draw(
    state: State, seat: Seat, turn: int, hand_size: int, dragon: Seat | None, out: list[AnyEvent]
) -> int | None:
    """Refill the hand to five, six for the dragon's holder (R1.8). Returns the last turn that
    the pile running out calls for under the deck-end option, or None."""
    pile = state.piles[seat]
    want = (6 if dragon == seat else 5) - hand_size
    if want > 0 and pile:
        drawn = pile[:want]
        out.append(ev.cards_drawn(seat, drawn))
    else:
        drawn = []
    mode = state.options.deck_end_mode
    if mode == "short_refill":
        return turn + 1 if want > len(pile) else None
    if drawn and len(drawn) == len(pile):
        return turn + 3 if mode == "bsw_next_turn" else turn + 1
    return None


def _game_end(state: State, seat: Seat, reason: EndReason, gained: int, dragon: Seat | None) -> GameEnded:
    """The final scores: the points so far and this turn's, plus 3 for the dragon (R1.10)."""
    points = dict(state.points)
    points[seat] += gained
    scores = {s: points[s] + (3 if dragon == s else 0) for s in SEATS}
    return ev.game_ended(reason, scores, winner_of(scores, dragon))


def legal_plays(state: State) -> list[Play]:
    """Every complete legal move of the seat to move: for each type in hand and each count up
    to the free slots, each distinct multiset of values (the earliest such cards in hand
    order), times the choices that apply (RULES.md 1.13)."""
    if state.over:
        return []
    seat = state.to_move
    assert seat is not None
    hand = state.hands[seat]
    if not hand:
        return [Play(())]
    by_type: dict[str, list[str]] = {}
    for card in hand:
        if (group := by_type.get(CARD_TYPE[card])) is None:
            by_type[CARD_TYPE[card]] = [card]
        else:
            group.append(card)
    board = state.board
    profile = state.options.deck_profile
    plays: list[Play] = []
    for kind, ids in by_type.items():
        capacity = CAPACITY.get(kind)
        limit = capacity - len(board[kind]) if capacity is not None else 0
        key = (tuple(ids), limit, profile)
        cached = _GROUP_PLAYS.get(key)
        if cached is None:
            cached = _group_plays(kind, ids, limit, state.values)
            if len(_GROUP_PLAYS) > 100_000:  # bound the memo; hands repeat often enough
                _GROUP_PLAYS.clear()
            _GROUP_PLAYS[key] = cached
        plays.extend(cached)
    return plays


# The plays for one type's cards in hand depend only on those cards (in hand order), the free
# slots and the deck profile, and the same small groups recur all game long: memoising them
# makes enumeration about four times cheaper, which is what search bots live on.
_GROUP_PLAYS: dict[tuple[tuple[str, ...], int, str], tuple[Play, ...]] = {}


def _group_plays(kind: str, ids: list[str], limit: int, values: dict[str, int]) -> tuple[Play, ...]:
    """Plays of the cards ``ids`` (one type, hand order); ``limit`` is the free slots of a
    limited space, 0 for a stack."""
    buckets: dict[int, list[str]] = {}
    for card in ids:
        buckets.setdefault(values[card], []).append(card)
    # Distinct value multisets, bucket by bucket: the first j cards of each value. No two
    # results share a multiset, so nothing needs de-duplicating.
    combos: list[tuple[str, ...]] = [()]
    for value in sorted(buckets):
        same = buckets[value]
        combos = [c + tuple(same[:j]) for c in combos for j in range(len(same) + 1)]
    combos.sort(key=len)
    plays: list[Play] = []
    for combo in combos[1:]:
        n = len(combo)
        if limit and n > limit:
            break
        if kind == PRINCESS:
            plays += [Play(combo, CHESTS), Play(combo, STONES)]
        elif kind == HERO and n == limit:
            plays += [Play(combo, PRINCESSES), Play(combo, TROLLS)]
        else:
            plays.append(Play(combo))
    return tuple(plays)
