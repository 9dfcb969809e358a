"""Laws that hold for every game: random seeds, every rule option, random legal plays."""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings

from engine.cards import (
    ALL_CARDS,
    CAPACITY,
    CARD_TYPE,
    CHEST,
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
from engine.events import DRAGON_TRANSFERRED, Event
from engine.record import events_from_record, parse_record, record_from_events, replay_record
from engine.replay import apply_event, evolve, fold, state_from_start
from engine.rules import decide, legal_plays
from engine.state import State
from engine.visibility import view_event, view_events, view_state
from tests.engine.strategies import MAX_TURNS, Game, Turn, games

GAMES = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

ALL_IDS = sorted(ALL_CARDS)
CARD_ID = re.compile(r"[ab]\d\d")


def snapshot(state: State) -> dict[str, Any]:
    """Every slot of a state, copied, so that two states compare field by field."""
    return {name: _copied(getattr(state, name)) for name in State.__slots__}


def _copied(value: Any) -> Any:
    # Cheaper than copy.deepcopy: a state holds only dicts, lists and immutable values.
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def cards_everywhere(state: State) -> list[str]:
    places = [
        *state.hands.values(),
        *state.piles.values(),
        *state.board.values(),
        state.hold,
        *state.captured.values(),
        *state.voyage_ships,
    ]
    return sorted(card for place in places for card in place)


def after_each_event(game: Game) -> Iterator[tuple[Event, State]]:
    """Replays the game's log in place, yielding each event with the state right after it."""
    state = state_from_start(game.start)
    yield game.start, state
    for event in game.log[1:]:
        apply_event(state, event)
        yield event, state


def between_turns(game: Game) -> list[State]:
    return [turn.before for turn in game.turns] + [game.final]


def turns_with_result(game: Game) -> Iterator[tuple[Turn, State]]:
    """Each turn with the state right after it."""
    return zip(game.turns, between_turns(game)[1:], strict=True)


def card_ids_in(document: Any) -> set[str]:
    return set(CARD_ID.findall(json.dumps(document)))


def deep_size(obj: Any, seen: set[int] | None = None) -> int:
    """A rough memory footprint: sys.getsizeof summed over everything reachable."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, list | tuple | set | frozenset):
        size += sum(deep_size(item, seen) for item in obj)
    elif hasattr(obj, "__slots__"):
        size += sum(deep_size(getattr(obj, name), seen) for name in obj.__slots__ if hasattr(obj, name))
    return size


# --- the cards -------------------------------------------------------------------------------


@GAMES
@given(games())
def test_every_card_is_in_exactly_one_place_after_every_event(game: Game) -> None:
    for _, state in after_each_event(game):
        assert cards_everywhere(state) == ALL_IDS


@GAMES
@given(games())
def test_limited_spaces_never_exceed_their_capacity(game: Game) -> None:
    for _, state in after_each_event(game):
        for kind, capacity in CAPACITY.items():
            assert len(state.board[kind]) <= capacity


@GAMES
@given(games())
def test_limited_spaces_have_a_free_slot_between_turns(game: Game) -> None:
    for state in between_turns(game):
        for kind, capacity in CAPACITY.items():
            assert len(state.board[kind]) < capacity


@GAMES
@given(games())
def test_hands_stay_within_their_limit_between_turns(game: Game) -> None:
    for state in between_turns(game):
        for seat in SEATS:
            assert len(state.hands[seat]) <= (6 if state.dragon == seat else 5)
            assert state.hand_limit(seat) == (6 if state.dragon == seat else 5)


@GAMES
@given(games())
def test_the_voyage_counter_never_decreases(game: Game) -> None:
    counts = [state.voyages for _, state in after_each_event(game)]
    assert counts == sorted(counts)
    assert counts[-1] <= 4


@GAMES
@given(games())
def test_a_turn_moves_cards_only_by_the_play_the_draw_from_the_top_and_the_card_put_back(game: Game) -> None:
    for turn, after in turns_with_result(game):
        seat = turn.before.to_move
        assert seat is not None
        drawn = [c for e in turn.events if e["kind"] == "cards_drawn" for c in e["cards"]]
        kept = [card for card in turn.before.hands[seat] if card not in turn.play.cards]
        assert after.hands[seat] == kept + drawn
        assert turn.before.piles[seat][: len(drawn)] == drawn
        assert after.piles[seat] == turn.before.piles[seat][len(drawn) :]
        opponent = other(seat)
        put_back = [e["returned"] for e in turn.events if e["kind"] == DRAGON_TRANSFERRED and e["returned"]]
        assert after.hands[opponent] == [card for card in turn.before.hands[opponent] if card not in put_back]
        assert after.piles[opponent] == put_back + turn.before.piles[opponent]


@GAMES
@given(games())
def test_scores_are_the_captured_values_plus_the_dragon_bonus(game: Game) -> None:
    for state in between_turns(game):
        for seat in SEATS:
            bonus = 3 if state.dragon == seat else 0
            assert state.scores()[seat] == sum(state.values[card] for card in state.captured[seat]) + bonus


@GAMES
@given(games())
def test_the_dragon_stays_on_the_board_until_a_princess_takes_stones(game: Game) -> None:
    stones_taken = False
    for event, state in after_each_event(game):
        stones_taken = stones_taken or (
            event["kind"] == "cards_captured" and event["space"] == "stone_dragon"
        )
        if event["kind"] == "turn_ended" and stones_taken:
            assert state.dragon is not None


@GAMES
@given(games())
def test_the_higher_score_wins_and_the_dragon_breaks_a_tie(game: Game) -> None:
    scores = game.final.scores()
    if scores["a"] != scores["b"]:
        assert game.final.winner == max(SEATS, key=scores.__getitem__)
    else:
        assert game.final.winner == game.final.dragon
    assert game.log[-1]["kind"] == "game_ended"
    assert game.log[-1]["scores"] == scores


def expected_resolution(turn: Turn) -> tuple[list[str], dict[str, list[str]], list[str], int]:
    """What R1.6 says a play does: (cards captured, board, hold, voyages) afterwards."""
    before, play = turn.before, turn.play
    board = {kind: list(cards) for kind, cards in before.board.items()}
    hold, voyages = list(before.hold), before.voyages
    if not play.cards:
        return [], board, hold, voyages
    kind = CARD_TYPE[play.cards[0]]
    board[kind] += play.cards
    full = kind in CAPACITY and len(board[kind]) == CAPACITY[kind]
    prey = {
        FIRE_DRAGON: CHEST,
        PRINCESS: CHEST if play.choice == "chests" else STONE_DRAGON,
        TROLL: PRINCESS,
        HUNTRESS: FIRE_DRAGON if full else None,
        HERO: (PRINCESS if play.choice == "princesses" else TROLL) if full else None,
        DWARF: DWARF if full else None,
    }.get(kind)
    captured = board[prey] if prey else []
    if prey:
        board[prey] = []
    if full and kind in (HUNTRESS, HERO):
        hold += board[kind]
    if full and kind == SHIP:
        captured, hold, voyages = hold, [], voyages + 1
    if full:
        board[kind] = []
    return captured, board, hold, voyages


@GAMES
@given(games())
def test_a_play_captures_and_moves_exactly_what_its_space_says(game: Game) -> None:
    for turn, after in turns_with_result(game):
        seat = turn.before.to_move
        assert seat is not None
        captured, board, hold, voyages = expected_resolution(turn)
        assert after.captured[seat] == turn.before.captured[seat] + captured
        assert after.captured[other(seat)] == turn.before.captured[other(seat)]
        assert after.board == board
        assert after.hold == hold
        assert after.voyages == voyages


@GAMES
@given(games())
def test_the_dragon_moves_only_to_a_princess_choosing_the_stones(game: Game) -> None:
    for turn, after in turns_with_result(game):
        before, play = turn.before, turn.play
        seat = before.to_move
        takes = play.choice == "stones" and (
            bool(before.board[STONE_DRAGON]) or not before.options.dragon_requires_stone
        )
        assert after.dragon == (seat if takes else before.dragon)
        loser = before.dragon if takes and before.dragon not in (None, seat) else None
        put_back = [e["returned"] for e in turn.events if e["kind"] == DRAGON_TRANSFERRED and e["returned"]]
        if loser is None:
            assert put_back == []
        elif before.options.dragon_loss_return == "excess":
            assert len(put_back) == (1 if len(before.hands[loser]) > 5 else 0)
        else:
            assert len(put_back) == (1 if before.hands[loser] else 0)


def expected_last_turn(turn: Turn, after: State) -> int | None:
    """R1.9: every trigger proposes a candidate turn and the earliest one stands."""
    before = turn.before
    seat = before.to_move
    assert seat is not None
    n = before.turn + 1
    candidates = [before.last_turn]
    if after.voyages >= 3 > before.voyages:
        candidates.append(n + 1)
    mode = before.options.deck_end_mode
    emptied = bool(before.piles[seat]) and not after.piles[seat]
    if mode == "last_card_drawn" and emptied:
        candidates.append(n + 1)
    if mode == "bsw_next_turn" and emptied:
        candidates.append(n + 3)
    if mode == "short_refill" and len(after.hands[seat]) < after.hand_limit(seat):
        candidates.append(n + 1)
    known = [c for c in candidates if c is not None]
    return min(known) if known else None


@GAMES
@given(games())
def test_the_end_is_scheduled_and_reached_as_the_end_rules_say(game: Game) -> None:
    for turn, after in turns_with_result(game):
        last_turn = expected_last_turn(turn, after)
        assert after.last_turn == last_turn
        assert after.over == (last_turn is not None and after.turn >= last_turn)


@GAMES
@given(games())
def test_every_game_ends_within_a_bounded_number_of_turns(game: Game) -> None:
    assert game.final.over
    assert game.final.to_move is None
    assert game.final.turn <= MAX_TURNS
    assert game.final.last_turn is not None
    assert game.final.turn >= game.final.last_turn


@GAMES
@given(games())
def test_every_legal_play_is_accepted_and_decide_never_mutates(game: Game) -> None:
    for turn in game.turns:
        state = turn.before.copy()
        before = snapshot(state)
        for play in legal_plays(state):
            assert decide(state, play, random.Random(0))
        assert snapshot(state) == before


# --- replay ----------------------------------------------------------------------------------


@GAMES
@given(games())
def test_folding_the_log_rebuilds_the_state_built_during_play(game: Game) -> None:
    assert snapshot(fold(game.log)) == snapshot(game.final)


@GAMES
@given(games())
def test_evolving_step_by_step_rebuilds_every_state_and_mutates_nothing(game: Game) -> None:
    state = evolve(None, game.start)
    boundaries = iter(between_turns(game))
    assert snapshot(state) == snapshot(next(boundaries))
    for turn in game.turns:
        for event in turn.events:
            previous = snapshot(state)
            new = evolve(state, event)
            assert snapshot(state) == previous
            state = new
        assert snapshot(state) == snapshot(next(boundaries))


@GAMES
@given(games())
def test_the_log_survives_a_json_round_trip_and_folds_to_the_same_state(game: Game) -> None:
    decoded = json.loads(json.dumps(game.log))
    assert decoded == game.log
    assert snapshot(fold(decoded)) == snapshot(game.final)


@GAMES
@given(games())
def test_a_record_round_trips_through_events_and_back(game: Game) -> None:
    record = json.loads(json.dumps(record_from_events(game.log)))
    log = events_from_record(parse_record(record))
    assert log == game.log
    assert record_from_events(log) == record


@GAMES
@given(games())
def test_replaying_the_record_reaches_the_final_state_and_checks_the_result(game: Game) -> None:
    record = record_from_events(game.log)
    state, _, error = replay_record(parse_record(record))
    assert error is None
    assert record["result"] == {"scores": game.final.scores(), "winner": game.final.winner}
    assert state.to_json() == game.final.to_json()


# --- visibility ------------------------------------------------------------------------------


def hidden_from(state: State, viewer: Seat | None, put_back: set[str]) -> set[str]:
    """Cards ``viewer`` may not know: the other hands and every draw pile, except a card the
    viewer himself put on top of his own pile when he lost the dragon."""
    hidden = set(state.piles["a"]) | set(state.piles["b"])
    for seat in SEATS:
        if seat != viewer:
            hidden |= set(state.hands[seat])
    return hidden - put_back


def assert_nothing_hidden_leaks(game: Game, viewer: Seat | None) -> None:
    seen: set[str] = set()
    put_back: set[str] = set()
    for event, state in after_each_event(game):
        if state.over:
            break
        seen |= card_ids_in(view_event(event, viewer, False))
        if event["kind"] == DRAGON_TRANSFERRED and event["from"] == viewer and event["returned"]:
            put_back.add(event["returned"])
        hidden = hidden_from(state, viewer, put_back)
        assert not seen & hidden
        assert not card_ids_in(view_state(state, viewer)) & hidden


@GAMES
@given(games())
def test_a_seat_never_sees_the_opponents_hand_or_any_pile_while_the_game_runs(game: Game) -> None:
    for seat in SEATS:
        assert_nothing_hidden_leaks(game, seat)


@GAMES
@given(games())
def test_a_spectator_never_sees_a_hand_or_a_pile_while_the_game_runs(game: Game) -> None:
    assert_nothing_hidden_leaks(game, None)


@GAMES
@given(games())
def test_a_seat_sees_its_own_hand_while_the_game_runs(game: Game) -> None:
    for state in between_turns(game)[:-1]:
        for seat in SEATS:
            view = view_state(state, seat)
            assert view["hands"][seat] == state.hands[seat]
            assert view["hands"][other(seat)] is None


@GAMES
@given(games())
def test_everything_is_revealed_once_the_game_is_over(game: Game) -> None:
    for viewer in ("a", "b", None):
        view = view_state(game.final, viewer)
        assert {k: view[k] for k in game.final.to_json()} == game.final.to_json()
        assert view_events(game.log, viewer, True) == game.log


# --- size ------------------------------------------------------------------------------------


@GAMES
@given(games())
def test_the_state_stays_small(game: Game) -> None:
    for state in between_turns(game):
        assert len(json.dumps(state.to_json())) < 50_000
        assert deep_size(state) < 64_000
