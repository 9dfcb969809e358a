"""One test per rule of RULES.md 1.1–1.11 (and the engine notes of 1.13) that the worked
scenarios do not already show. Names say the behaviour; the rule number is in the section
comment above each group."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from engine import events as ev
from engine.cards import CAPACITY, CARD_TYPE, CARD_VALUES, DECKS, SEATS, TYPES, Seat
from engine.errors import IllegalMove
from engine.options import resolve_options
from engine.replay import apply_events, state_from_start
from engine.rules import (
    CHESTS,
    PRINCESSES,
    STONES,
    TROLLS,
    Abort,
    Play,
    Resign,
    Timeout,
    decide,
    legal_plays,
    start_game,
    winner_of,
)
from engine.state import State
from tests.engine.builders import kinds, names, of_kind, play, play_quietly, run, scenario

STANDARD = CARD_VALUES["standard"]


class FixedIndex:
    """A random source whose every ``randrange`` answers ``index``; it records the calls."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.calls: list[int] = []

    def randrange(self, stop: int) -> int:
        self.calls.append(stop)
        return self.index

    def shuffle(self, x: list[str]) -> None:
        raise AssertionError("no shuffling during play")


def only(events: list[ev.Event], kind: str) -> ev.Event:
    found = of_kind(events, kind)
    assert len(found) == 1, kinds(events)
    return found[0]


# --- R1.2 deck composition and section 4 card ids ----------------------------------------------

DECK_TABLE = {
    "chest": [1, 1, 2, 2, 3, 3, 4],
    "fire_dragon": [2, 3, 3, 4],
    "stone_dragon": [2, 2, 2, 2, 2],
    "princess": [1, 1, 2, 2],
    "troll": [1, 2, 3],
    "dwarf": [1, 1, 1, 1, 1, 1, 2, 2, 2, 3],
    "hero": [1, 1, 1, 1, 2],
    "huntress": [1, 1, 1, 1, 2, 2],
    "ship": [0, 0, 0, 0, 0, 0],
}


@pytest.mark.parametrize("seat", SEATS)
def test_each_deck_has_the_cards_and_values_of_the_deck_table(seat: Seat) -> None:
    deck = DECKS[seat]
    assert len(deck) == len(set(deck)) == 50
    by_type = {kind: sorted(STANDARD[c] for c in deck if CARD_TYPE[c] == kind) for kind in TYPES}
    assert by_type == DECK_TABLE
    assert sum(STANDARD[c] for c in deck) == 79


def test_card_ids_are_the_seat_letter_and_the_canonical_index() -> None:
    expected = [kind for kind, values in DECK_TABLE.items() for _ in values]
    for seat in SEATS:
        assert list(DECKS[seat]) == [f"{seat}{i:02d}" for i in range(50)]
        assert [CARD_TYPE[c] for c in DECKS[seat]] == expected
        assert [STANDARD[c] for c in DECKS[seat]] == [v for values in DECK_TABLE.values() for v in values]
    assert (CARD_TYPE["a23"], STANDARD["a23"], CARD_TYPE["b49"]) == ("dwarf", 1, "ship")


def test_both_decks_hold_158_points_together() -> None:
    assert sum(STANDARD.values()) == 158


def test_the_dwarf_profile_makes_index_32_a_two_point_dwarf_and_totals_78() -> None:
    profile = CARD_VALUES["dwarf_6x1_4x2"]
    assert STANDARD["a32"] == 3
    assert profile["a32"] == profile["b32"] == 2
    assert {c: v for c, v in profile.items() if c[1:] != "32"} == {
        c: v for c, v in STANDARD.items() if c[1:] != "32"
    }
    assert sum(profile[c] for c in DECKS["a"]) == sum(profile[c] for c in DECKS["b"]) == 78


def test_a_game_with_the_dwarf_profile_scores_index_32_as_two() -> None:
    state = scenario(
        hand_a=["a32"], board={"dwarf": ["DW1", "DW1", "DW1"]}, options={"deck_profile": "dwarf_6x1_4x2"}
    )
    after, _ = play(state, "a32")
    assert after.points["a"] == 5
    assert after.scores()["a"] == 5


def test_the_spaces_that_fire_when_full_have_capacities_two_to_four() -> None:
    assert CAPACITY == {"huntress": 3, "hero": 2, "dwarf": 4, "ship": 3}


# --- R1.3 setup ---------------------------------------------------------------------------------


def test_the_top_five_cards_are_the_hand_and_the_other_45_the_pile() -> None:
    start = start_game(random.Random(3), resolve_options({"first_player": "b"}))
    state = state_from_start(start)
    for seat in SEATS:
        assert state.hands[seat] == start["decks"][seat][:5]
        assert state.piles[seat] == start["decks"][seat][5:]
        assert len(state.piles[seat]) == 45


@pytest.mark.parametrize("seat", SEATS)
def test_the_first_player_option_fixes_who_begins(seat: str) -> None:
    for seed in range(5):
        start = start_game(random.Random(seed), resolve_options({"first_player": seat}))
        assert start["first"] == seat
        assert state_from_start(start).to_move == seat


def test_a_random_first_player_is_drawn_from_the_seeded_rng_after_both_shuffles() -> None:
    for seed in range(10):
        start = start_game(random.Random(seed), resolve_options({}))
        rng = random.Random(seed)
        decks = {seat: list(DECKS[seat]) for seat in SEATS}
        rng.shuffle(decks["a"])
        rng.shuffle(decks["b"])
        assert start["decks"] == decks
        assert start["first"] == SEATS[rng.randrange(2)]


def test_a_fixed_first_player_draws_no_number_from_the_rng() -> None:
    rng = random.Random(4)
    start_game(rng, resolve_options({"first_player": "b"}))
    twin = random.Random(4)
    twin.shuffle(list(DECKS["a"]))
    twin.shuffle(list(DECKS["b"]))
    assert rng.getstate() == twin.getstate()


def test_a_random_first_player_can_be_either_seat_and_repeats_with_the_seed() -> None:
    firsts = [start_game(random.Random(seed))["first"] for seed in range(30)]
    assert set(firsts) == {"a", "b"}
    assert firsts == [start_game(random.Random(seed))["first"] for seed in range(30)]


def test_injected_decks_are_dealt_as_given() -> None:
    decks = {seat: list(reversed(DECKS[seat])) for seat in SEATS}
    state = state_from_start(start_game(None, resolve_options({"first_player": "a"}), decks=decks))
    assert state.hands["a"] == ["a49", "a48", "a47", "a46", "a45"]
    assert state.piles["b"][0] == "b44"


def test_the_bsw_preset_changes_only_the_deck_end_mode() -> None:
    bsw = resolve_options({"preset": "bsw"})
    assert bsw.deck_end_mode == "bsw_next_turn"
    assert bsw == resolve_options({"deck_end_mode": "bsw_next_turn"})
    assert resolve_options({"preset": "bsw", "deck_end_mode": "short_refill"}).deck_end_mode == "short_refill"


def test_the_defaults_are_the_official_rules() -> None:
    official = resolve_options({"preset": "official"})
    assert official == resolve_options({}) == resolve_options(None)
    assert (official.first_player, official.deck_end_mode, official.dragon_loss_return) == (
        "random",
        "last_card_drawn",
        "excess",
    )
    assert (official.dragon_requires_stone, official.deck_profile) == (True, "standard")


def test_the_players_strictly_alternate() -> None:
    state = scenario()
    seats = []
    for _ in range(4):
        seats.append(state.to_move)
        state, _ = play_quietly(state)
    assert seats == ["a", "b", "a", "b"]
    assert (state.turn, state.to_move) == (14, "a")


# --- R1.4 / R1.6 spaces -------------------------------------------------------------------------


def test_the_chest_space_is_an_unlimited_stack() -> None:
    chests = ["CH1", "CH1", "CH2", "CH2", "CH3", "CH3", "CH4"] * 2
    state = scenario(hand_a=["a00", "a01"], board={"chest": chests[2:]})
    assert Play(("a00", "a01")) in legal_plays(state)
    after, _ = play(state, ["a00", "a01"])
    assert len(after.board["chest"]) == 14


@pytest.mark.parametrize(
    ("space", "pile", "hand"),
    [
        ("fire_dragon", ["FD2", "FD3", "FD3", "FD4", "FD2"], ["FD3", "FD3", "FD4"]),
        ("stone_dragon", ["PD2"] * 6, ["PD2"] * 4),
        ("troll", ["TR1", "TR2", "TR3"], ["TR1", "TR2", "TR3"]),
    ],
)
def test_stack_spaces_take_every_card_of_the_type_at_once(
    space: str, pile: list[str], hand: list[str]
) -> None:
    state = scenario(hand_a=hand, board={space: pile})
    after, _ = play(state, hand)
    assert len(after.board[space]) == len(pile) + len(hand)


def test_several_princesses_stack_onto_a_long_princess_pile() -> None:
    state = scenario(hand_a=["PR1", "PR1", "PR2", "PR2"], board={"princess": ["PR1", "PR2", "PR2"]})
    after, _ = play(state, ["PR1", "PR1", "PR2", "PR2"], CHESTS)
    assert len(after.board["princess"]) == 7


LIMITED = {"huntress": ["HU1", "HU1"], "hero": ["HE1"], "dwarf": ["DW1", "DW1", "DW1"], "ship": ["SH", "SH"]}
PREY = {
    "chest": ["CH1"],
    "fire_dragon": ["FD2"],
    "stone_dragon": ["PD2"],
    "princess": ["PR1"],
    "troll": ["TR1"],
}


@pytest.mark.parametrize(("card", "choice"), [("FD3", None), ("PR2", CHESTS), ("PR2", STONES), ("TR2", None)])
def test_captures_never_touch_the_limited_spaces(card: str, choice: str | None) -> None:
    state = scenario(hand_a=[card], board={**LIMITED, **PREY}, hold=["HE2"])
    after, events = play(state, card, choice)
    assert len(of_kind(events, ev.CARDS_CAPTURED)) == 1
    assert {k: after.board[k] for k in LIMITED} == {k: state.board[k] for k in LIMITED}
    assert after.hold == state.hold


def test_the_fourth_dwarf_captures_only_the_dwarves() -> None:
    state = scenario(hand_a=["DW2"], board={**PREY, "dwarf": ["DW1", "DW1", "DW1"], "hero": ["HE1"]})
    after, events = play(state, "DW2")
    assert only(events, ev.CARDS_CAPTURED)["space"] == "dwarf"
    assert {k: after.board[k] for k in PREY} == {k: state.board[k] for k in PREY}
    assert after.points["a"] == 5


def test_a_princess_choosing_an_empty_pile_captures_nothing() -> None:
    state = scenario(hand_a=["PR1"], board={"stone_dragon": ["PD2"]})
    after, events = play(state, "PR1", CHESTS)
    assert of_kind(events, ev.CARDS_CAPTURED) == []
    assert (after.points["a"], after.dragon) == (0, None)
    assert names(after.board["princess"]) == ["PR1"]


def test_a_filling_hero_choosing_an_empty_pile_still_goes_to_the_hold() -> None:
    state = scenario(hand_a=["HE2"], board={"hero": ["HE1"], "troll": ["TR1"]})
    after, events = play(state, "HE2", PRINCESSES)
    assert of_kind(events, ev.CARDS_CAPTURED) == []
    assert names(after.hold) == ["HE1", "HE2"]
    assert names(after.board["troll"]) == ["TR1"]


def test_the_huntresses_capture_fire_dragons_whoever_played_them() -> None:
    state = scenario(hand_a=["HU1"], board={"huntress": ["HU1", "HU2"], "fire_dragon": ["a07", "b10"]})
    after, _ = play(state, "HU1")
    assert sorted(after.captured["a"]) == ["a07", "b10"]
    assert after.points["a"] == 6


def test_captured_cards_join_the_earlier_ones_and_never_return() -> None:
    state = scenario(hand_a=["FD2"], board={"chest": ["CH3"]}, captured_a=["TR2", "PR1"])
    after, _ = play(state, "FD2")
    assert names(after.captured["a"]) == ["TR2", "PR1", "CH3"]
    assert after.points["a"] == 6
    assert not set(after.captured["a"]) & {c for cards in after.board.values() for c in cards}


def test_a_play_places_its_cards_in_the_order_it_lists_them() -> None:
    state = scenario(hand_a=["CH1", "CH4", "CH2"], board={"chest": ["CH3"]})
    after, events = play(state, ["CH4", "CH1", "CH2"])
    assert names(after.board["chest"]) == ["CH3", "CH4", "CH1", "CH2"]
    assert only(events, ev.CARDS_PLAYED)["cards"] == after.board["chest"][1:]


def test_a_partly_filled_limited_space_can_be_completed_by_either_player() -> None:
    state = scenario(hand_a=["HU1"], hand_b=["HU2"], board={"fire_dragon": ["FD3"]})
    after, _ = play(state, "HU1")
    after, _ = play(after, "HU2")
    assert names(after.board["huntress"]) == ["HU1", "HU2"]
    assert after.points == {"a": 0, "b": 0}


# --- R1.5 turn structure ------------------------------------------------------------------------


def test_the_refill_stops_when_the_pile_runs_dry() -> None:
    state = scenario(hand_a=["CH1", "CH2", "CH3"], pile_a_size=1)
    after, events = play(state, ["CH1", "CH2", "CH3"])
    assert len(only(events, ev.CARDS_DRAWN)["cards"]) == 1
    assert (len(after.hands["a"]), after.piles["a"]) == (3, [])


def test_the_refill_draws_from_the_top_of_the_own_pile_and_appends() -> None:
    state = scenario(hand_a=["CH1", "CH2"], pile_a_top=["TR1", "TR2", "TR3"])
    after, _ = play(state, ["CH1", "CH2"])
    assert after.hands["a"] == [*state.hands["a"][2:], *state.piles["a"][:2]]
    assert after.piles["a"] == state.piles["a"][2:]
    assert after.piles["b"] == state.piles["b"]


def test_an_empty_hand_passes_and_still_refills() -> None:
    state = scenario(hand_a_size=0)
    assert legal_plays(state) == [Play(())]
    after, events = play(state, [])
    assert kinds(events) == [ev.TURN_PASSED, ev.CARDS_DRAWN, ev.TURN_ENDED]
    assert after.hands["a"] == state.piles["a"][:5]
    assert (after.turn, after.to_move, after.over) == (11, "b", False)


def test_an_empty_hand_with_an_empty_pile_passes_drawing_nothing() -> None:
    state = scenario(hand_a_size=0, pile_a_size=0)
    after, events = play(state, [])
    assert kinds(events) == [ev.TURN_PASSED, ev.TURN_ENDED]
    assert (after.hands["a"], after.to_move, after.over) == ([], "b", False)


def test_a_pass_in_the_last_turn_ends_the_game() -> None:
    state = scenario(hand_a_size=0, pile_a_size=0, last_turn=11, points={"a": 4, "b": 2})
    after, events = play(state, [])
    assert only(events, ev.GAME_ENDED)["scores"] == {"a": 4, "b": 2}
    assert (after.over, after.winner, after.turn) == (True, "a", 11)


# --- R1.7 the Great Dragon ----------------------------------------------------------------------


def test_the_dragon_taken_from_the_board_costs_nobody_a_card() -> None:
    state = scenario(hand_a=["PR1"], board={"stone_dragon": ["PD2"]})
    after, events = play(state, "PR1", STONES, rng=FixedIndex(0))
    moved = only(events, ev.DRAGON_TRANSFERRED)
    assert (moved["from"], moved["to"], moved["returned"]) == (None, "a", None)
    assert (after.hands["b"], after.piles["b"]) == (state.hands["b"], state.piles["b"])


def taking_from_b(**kwargs: object) -> State:
    """A to move with a princess and a stone to take; B holds the dragon."""
    return scenario(hand_a=["PR1"], board={"stone_dragon": ["PD2", "PD2"]}, dragon="b", **kwargs)  # type: ignore[arg-type]


def test_taking_the_dragon_from_the_opponent_puts_his_card_on_top_of_his_pile() -> None:
    state = taking_from_b()
    card = state.hands["b"][2]
    after, events = play(state, "PR1", STONES, returned=card)
    moved = only(events, ev.DRAGON_TRANSFERRED)
    assert (moved["from"], moved["to"], moved["returned"]) == ("b", "a", card)
    assert after.hands["b"] == [c for c in state.hands["b"] if c != card]
    assert after.piles["b"] == [card, *state.piles["b"]]
    assert after.dragon == "a"


def test_the_loser_draws_the_returned_card_first_and_refills_to_five_only() -> None:
    state = taking_from_b()
    card = state.hands["b"][5]
    after, _ = play(state, "PR1", STONES, returned=card)
    after, events = play_quietly(after)
    assert only(events, ev.CARDS_DRAWN)["cards"] == [card]
    assert len(after.hands["b"]) == 5


def test_the_dragon_won_from_the_opponent_refills_the_winner_to_six() -> None:
    state = taking_from_b()
    after, events = play(state, "PR1", STONES, returned=state.hands["b"][0])
    assert len(only(events, ev.CARDS_DRAWN)["cards"]) == 2
    assert len(after.hands["a"]) == 6


def test_a_holder_taking_stones_again_keeps_the_dragon_and_nobody_returns_a_card() -> None:
    state = scenario(hand_a=["PR1"], board={"stone_dragon": ["PD2"]}, dragon="a")
    after, events = play(state, "PR1", STONES, rng=FixedIndex(0))
    assert of_kind(events, ev.DRAGON_TRANSFERRED) == []
    assert after.points["a"] == 2
    assert (after.dragon, len(after.hands["a"])) == ("a", 6)
    assert (after.hands["b"], after.piles["b"]) == (state.hands["b"], state.piles["b"])


def test_the_holder_refills_to_six_on_every_later_turn() -> None:
    state = scenario(hand_a=["CH1", "CH2"], dragon="a")
    after, events = play(state, ["CH1", "CH2"])
    assert len(only(events, ev.CARDS_DRAWN)["cards"]) == 2
    assert len(after.hands["a"]) == 6


def test_by_default_choosing_stones_with_none_leaves_the_dragon_on_the_board() -> None:
    state = scenario(hand_a=["PR1"], board={"chest": ["CH4"]})
    after, events = play(state, "PR1", STONES)
    assert of_kind(events, ev.DRAGON_TRANSFERRED) == []
    assert (after.dragon, len(after.hands["a"])) == (None, 5)


def test_without_dragon_requires_stone_choosing_stones_alone_wins_the_dragon() -> None:
    state = scenario(hand_a=["PR1"], options={"dragon_requires_stone": False})
    after, events = play(state, "PR1", STONES)
    assert only(events, ev.DRAGON_TRANSFERRED)["to"] == "a"
    assert of_kind(events, ev.CARDS_CAPTURED) == []
    assert (after.dragon, len(after.hands["a"])) == ("a", 6)


def test_without_dragon_requires_stone_choosing_chests_still_wins_nothing() -> None:
    state = scenario(
        hand_a=["PR1"], board={"stone_dragon": ["PD2"]}, options={"dragon_requires_stone": False}
    )
    after, _ = play(state, "PR1", CHESTS)
    assert after.dragon is None


def test_excess_return_puts_nothing_back_from_a_hand_of_five() -> None:
    state = taking_from_b(hand_b_size=5, pile_b_size=0)
    after, events = play(state, "PR1", STONES, rng=FixedIndex(0))
    assert only(events, ev.DRAGON_TRANSFERRED)["returned"] is None
    assert (after.hands["b"], after.piles["b"]) == (state.hands["b"], [])
    assert after.dragon == "a"


@pytest.mark.parametrize("size", [5, 3, 1])
def test_always_one_puts_a_card_back_from_a_short_hand(size: int) -> None:
    state = taking_from_b(hand_b_size=size, pile_b_size=0, options={"dragon_loss_return": "always_one"})
    after, events = play(state, "PR1", STONES, rng=FixedIndex(0))
    assert only(events, ev.DRAGON_TRANSFERRED)["returned"] == state.hands["b"][0]
    assert after.piles["b"] == [state.hands["b"][0]]
    assert len(after.hands["b"]) == size - 1


@pytest.mark.parametrize("rule", ["excess", "always_one"])
def test_both_return_rules_put_exactly_one_card_back_from_a_full_hand(rule: str) -> None:
    state = taking_from_b(options={"dragon_loss_return": rule})
    after, _ = play(state, "PR1", STONES, rng=FixedIndex(3))
    assert after.piles["b"] == [state.hands["b"][3], *state.piles["b"]]
    assert len(after.hands["b"]) == 5


def test_always_one_puts_nothing_back_from_an_empty_hand() -> None:
    state = taking_from_b(hand_b_size=0, pile_b_size=0, options={"dragon_loss_return": "always_one"})
    after, events = play(state, "PR1", STONES, rng=FixedIndex(0))
    assert only(events, ev.DRAGON_TRANSFERRED)["returned"] is None
    assert (after.piles["b"], after.dragon) == ([], "a")


def test_the_returned_card_is_drawn_from_the_rng_when_not_named() -> None:
    state = taking_from_b()
    rng = FixedIndex(4)
    _, events = play(state, "PR1", STONES, rng=rng)
    assert rng.calls == [6]
    assert only(events, ev.DRAGON_TRANSFERRED)["returned"] == state.hands["b"][4]


def test_the_returned_card_can_be_any_card_of_the_losers_hand() -> None:
    state = taking_from_b()
    returned = {play(state, "PR1", STONES, rng=random.Random(seed))[0].piles["b"][0] for seed in range(200)}
    assert returned == set(state.hands["b"])


def test_a_named_returned_card_is_used_instead_of_the_rng() -> None:
    state = taking_from_b()
    card = state.hands["b"][1]
    after, _ = play(state, "PR1", STONES, returned=card, rng=FixedIndex(0))
    assert after.piles["b"][0] == card


def test_the_dragon_holder_scores_three_more() -> None:
    state = scenario(captured_a=["CH4", "TR3"], captured_b=["DW2"], dragon="b")
    assert state.points == {"a": 7, "b": 2}
    assert state.scores() == {"a": 7, "b": 5}


# --- R1.8 voyages -------------------------------------------------------------------------------


def test_the_third_voyage_gives_the_opponent_exactly_one_more_turn() -> None:
    state = scenario(hand_a=["SH"], board={"ship": ["SH", "SH"]}, voyages=2)
    after, events = play(state, "SH")
    scheduled = only(events, ev.LAST_TURN_SCHEDULED)
    assert (scheduled["turn"], scheduled["reason"], scheduled["seat"]) == (12, "third_voyage", "a")
    assert len(only(events, ev.CARDS_DRAWN)["cards"]) == 1
    assert (after.voyages, after.over, after.to_move) == (3, False, "b")
    final, events = play_quietly(after)
    assert (final.over, only(events, ev.GAME_ENDED)["reason"]) == (True, "third_voyage")


def test_a_fourth_voyage_in_the_last_turn_is_legal_and_counted() -> None:
    state = scenario(
        hand_a=["SH"],
        board={"ship": ["SH", "SH"]},
        voyages=3,
        turn=11,
        last_turn=12,
        last_turn_reason="third_voyage",
    )
    after, events = play(state, "SH")
    assert only(events, ev.VOYAGE_COMPLETED)["voyages"] == 4
    assert of_kind(events, ev.LAST_TURN_SCHEDULED) == []
    assert (after.voyages, after.over, after.end_reason) == (4, True, "third_voyage")


def test_a_voyage_event_names_the_sailor_the_ships_and_the_new_count() -> None:
    state = scenario(hand_a=["SH"], board={"ship": ["SH", "SH"]}, voyages=1)
    _, events = play(state, "SH")
    voyage = only(events, ev.VOYAGE_COMPLETED)
    assert (voyage["seat"], voyage["voyages"]) == ("a", 2)
    assert voyage["ships"] == [*state.board["ship"], state.hands["a"][0]]


# --- R1.9 end of the game -----------------------------------------------------------------------


def running_out(mode: str, *, pile: int = 1, **kwargs: object) -> State:
    """A to move in turn 11 with three chests and ``pile`` cards left to draw."""
    return scenario(
        hand_a=["CH1", "CH2", "CH3"],
        pile_a_size=pile,
        options={"deck_end_mode": mode},
        **kwargs,  # type: ignore[arg-type]
    )


def test_last_card_drawn_gives_the_opponent_one_final_turn() -> None:
    after, events = play(running_out("last_card_drawn"), "CH1")
    scheduled = only(events, ev.LAST_TURN_SCHEDULED)
    assert (scheduled["turn"], scheduled["reason"], scheduled["seat"]) == (12, "deck_exhausted", "a")
    assert (after.last_turn, after.over) == (12, False)
    final, events = play_quietly(after)
    assert (final.over, final.to_move, only(events, ev.GAME_ENDED)["reason"]) == (
        True,
        None,
        "deck_exhausted",
    )


def test_last_card_drawn_triggers_when_the_last_card_comes_in_a_short_refill() -> None:
    after, events = play(running_out("last_card_drawn"), ["CH1", "CH2"])
    assert only(events, ev.LAST_TURN_SCHEDULED)["turn"] == 12
    assert (len(after.hands["a"]), after.piles["a"]) == (4, [])


def test_last_card_drawn_needs_a_card_drawn_to_trigger() -> None:
    after, events = play(running_out("last_card_drawn", pile=0), "CH1")
    assert of_kind(events, ev.LAST_TURN_SCHEDULED) == []
    assert after.last_turn is None


def test_last_card_drawn_does_not_trigger_while_cards_remain() -> None:
    after, events = play(running_out("last_card_drawn", pile=2), "CH1")
    assert of_kind(events, ev.LAST_TURN_SCHEDULED) == []
    assert len(after.piles["a"]) == 1


def test_bsw_next_turn_lets_the_player_who_ran_out_play_once_more() -> None:
    state, events = play(running_out("bsw_next_turn"), "CH1")
    assert only(events, ev.LAST_TURN_SCHEDULED)["turn"] == 14
    state, _ = play_quietly(state)
    state, events = play(state, "CH2")
    assert kinds(events) == [ev.CARDS_PLAYED, ev.TURN_ENDED]
    assert (len(state.hands["a"]), state.over, state.to_move) == (4, False, "b")
    state, events = play_quietly(state)
    assert (state.over, state.turn, only(events, ev.GAME_ENDED)["reason"]) == (True, 14, "deck_exhausted")


def test_short_refill_ignores_a_complete_refill_that_empties_the_pile() -> None:
    state, events = play(running_out("short_refill"), "CH1")
    assert of_kind(events, ev.LAST_TURN_SCHEDULED) == []
    state, _ = play_quietly(state)
    state, events = play(state, "CH2")
    assert only(events, ev.LAST_TURN_SCHEDULED)["turn"] == 14
    state, _ = play_quietly(state)
    assert (state.over, state.turn) == (True, 14)


def test_short_refill_triggers_on_an_already_empty_pile() -> None:
    after, events = play(running_out("short_refill", pile=0), "CH1")
    scheduled = only(events, ev.LAST_TURN_SCHEDULED)
    assert (scheduled["turn"], scheduled["reason"], scheduled["seat"]) == (12, "deck_exhausted", "a")
    assert after.last_turn == 12


def test_short_refill_triggers_when_the_refill_comes_up_short() -> None:
    after, events = play(running_out("short_refill", pile=1), ["CH1", "CH2"])
    assert only(events, ev.LAST_TURN_SCHEDULED)["turn"] == 12
    assert len(after.hands["a"]) == 4


def test_the_game_is_over_only_once_the_last_turn_is_complete() -> None:
    state = scenario(last_turn=12)
    state, events = play_quietly(state)
    assert of_kind(events, ev.GAME_ENDED) == []
    assert state.over is False
    state, events = play_quietly(state)
    assert state.over is True


def test_an_earlier_trigger_brings_the_end_forward() -> None:
    state = scenario(hand_a=["SH"], board={"ship": ["SH", "SH"]}, voyages=2, last_turn=13)
    after, events = play(state, "SH")
    assert only(events, ev.LAST_TURN_SCHEDULED)["turn"] == 12
    assert (after.last_turn, after.last_turn_reason) == (12, "third_voyage")


def test_a_later_trigger_never_pushes_the_end_back() -> None:
    state = running_out("bsw_next_turn", last_turn=12, last_turn_reason="third_voyage")
    after, events = play(state, "CH1")
    assert of_kind(events, ev.LAST_TURN_SCHEDULED) == []
    assert (after.last_turn, after.last_turn_reason) == (12, "third_voyage")


def test_a_trigger_in_the_last_turn_does_not_extend_the_game() -> None:
    state = running_out("last_card_drawn", last_turn=11)
    after, events = play(state, "CH1")
    assert of_kind(events, ev.LAST_TURN_SCHEDULED) == []
    assert after.over is True


def test_two_triggers_in_one_turn_keep_the_earlier_end() -> None:
    state = scenario(
        hand_a=["SH"], board={"ship": ["SH", "SH"]}, voyages=2, pile_a_size=1, options={"preset": "bsw"}
    )
    after, events = play(state, "SH")
    assert [e["turn"] for e in of_kind(events, ev.LAST_TURN_SCHEDULED)] == [12]
    assert (after.last_turn, after.last_turn_reason) == (12, "third_voyage")


def test_a_card_put_back_on_an_exhausted_pile_does_not_cancel_the_end() -> None:
    state = taking_from_b(pile_b_size=0, last_turn=13, options={"preset": "bsw"})
    state, _ = play(state, "PR1", STONES, returned=state.hands["b"][0])
    assert (len(state.piles["b"]), state.last_turn) == (1, 13)
    state, events = play_quietly(state)
    assert len(only(events, ev.CARDS_DRAWN)["cards"]) == 1
    assert (state.last_turn, state.over) == (13, False)
    state, _ = play_quietly(state)
    assert (state.over, state.turn) == (True, 13)


def test_emptying_both_hands_and_piles_does_not_end_the_game_by_itself() -> None:
    state = scenario(hand_a_size=0, hand_b_size=0, pile_a_size=0, pile_b_size=0)
    state, _ = play(state, [])
    state, _ = play(state, [])
    assert (state.over, state.turn, state.to_move) == (False, 12, "a")


# --- R1.10 scoring and winner -------------------------------------------------------------------


def test_the_higher_score_wins() -> None:
    assert winner_of({"a": 40, "b": 39}, None) == "a"
    assert winner_of({"a": 30, "b": 39}, "a") == "b"


def test_equal_scores_go_to_the_dragon_holder() -> None:
    assert winner_of({"a": 41, "b": 41}, "b") == "b"
    assert winner_of({"a": 41, "b": 41}, "a") == "a"


def test_equal_scores_with_the_dragon_on_the_board_are_a_draw() -> None:
    assert winner_of({"a": 41, "b": 41}, None) is None


def test_a_tie_at_the_end_goes_to_the_dragon_holder() -> None:
    state = scenario(hand_a=["CH1"], dragon="b", points={"a": 43, "b": 40}, last_turn=11)
    after, events = play(state, "CH1")
    assert only(events, ev.GAME_ENDED)["scores"] == {"a": 43, "b": 43}
    assert after.winner == "b"


def test_cards_left_at_the_end_score_nothing() -> None:
    state = scenario(
        hand_a=["CH4"],
        board={"chest": ["CH3"], "dwarf": ["DW3", "DW2"], "princess": ["PR2"]},
        hold=["HE2", "HU2"],
        captured_a=["TR3"],
        captured_b=["FD4"],
        last_turn=11,
    )
    after, events = play(state, "CH4")
    ended = only(events, ev.GAME_ENDED)
    assert (ended["scores"], ended["winner"], ended["seat"]) == ({"a": 3, "b": 4}, "b", None)
    assert after.to_json()["scores"] == {"a": 3, "b": 4}


def test_the_final_turns_captures_count_in_the_final_score() -> None:
    state = scenario(hand_a=["FD2"], board={"chest": ["CH4", "CH3"]}, points={"a": 10, "b": 15}, last_turn=11)
    after, events = play(state, "FD2")
    assert only(events, ev.GAME_ENDED)["scores"] == {"a": 17, "b": 15}
    assert (after.winner, after.end_reason) == ("a", "deck_exhausted")


def test_the_dragon_won_in_the_final_turn_counts_for_bonus_and_tie() -> None:
    state = taking_from_b(points={"a": 0, "b": 4}, last_turn=11)
    after, events = play(state, "PR1", STONES, returned=state.hands["b"][0])
    assert only(events, ev.GAME_ENDED)["scores"] == {"a": 7, "b": 4}
    assert after.winner == "a"


# --- resigning, timeouts and aborted games -------------------------------------------------------


@pytest.mark.parametrize("seat", SEATS)
def test_a_player_may_resign_at_any_time_and_the_opponent_wins(seat: str) -> None:
    state = scenario(points={"a": 5, "b": 9}, dragon="a")
    after, events = run(state, Resign(seat))
    assert events == [
        {"kind": "game_ended", "v": 1, "reason": "resigned", "scores": {"a": 8, "b": 9},
         "winner": "b" if seat == "a" else "a", "seat": seat}
    ]  # fmt: skip
    assert (after.over, after.to_move, after.end_reason, after.end_seat) == (True, None, "resigned", seat)


def test_the_player_to_move_who_runs_out_of_time_loses() -> None:
    state = scenario(to_move="b", turn=11, points={"a": 2, "b": 20})
    after, events = run(state, Timeout("b"))
    ended = only(events, ev.GAME_ENDED)
    assert (ended["reason"], ended["winner"], ended["seat"]) == ("timeout", "a", "b")
    assert (after.over, after.winner) == (True, "a")


def test_a_game_can_be_aborted_before_the_first_move_without_a_result() -> None:
    state = state_from_start(start_game(random.Random(5), resolve_options({"first_player": "a"})))
    after, events = run(state, Abort("b"))
    ended = only(events, ev.GAME_ENDED)
    assert (ended["reason"], ended["winner"], ended["seat"]) == ("aborted", None, "b")
    assert (after.over, after.winner, after.to_move) == (True, None, None)


# --- events -------------------------------------------------------------------------------------


def test_a_plain_turn_is_played_drawn_and_ended() -> None:
    state = scenario(hand_a=["CH2"])
    _, events = play(state, "CH2")
    assert events == [
        {
            "kind": "cards_played",
            "v": 1,
            "seat": "a",
            "cards": [state.hands["a"][0]],
            "space": "chest",
            "choice": None,
        },
        {"kind": "cards_drawn", "v": 1, "seat": "a", "cards": state.piles["a"][:1]},
        {"kind": "turn_ended", "v": 1, "seat": "a", "turn": 11},
    ]


def test_a_choice_and_a_capture_are_recorded() -> None:
    state = scenario(hand_a=["PR2"], board={"chest": ["CH1", "CH3"]})
    _, events = play(state, "PR2", CHESTS)
    assert only(events, ev.CARDS_PLAYED)["choice"] == "chests"
    captured = only(events, ev.CARDS_CAPTURED)
    assert (captured["seat"], captured["space"], captured["cards"]) == ("a", "chest", state.board["chest"])


def test_turn_ended_counts_completed_turns_for_either_seat() -> None:
    state = scenario(to_move="b", turn=7)
    after, events = play_quietly(state)
    assert events[-1] == {"kind": "turn_ended", "v": 1, "seat": "b", "turn": 8}
    assert (after.turn, after.to_move) == (8, "a")


def test_the_game_ended_event_follows_the_last_turn_ended() -> None:
    state = scenario(last_turn=11, points={"a": 1, "b": 0})
    _, events = play_quietly(state)
    assert kinds(events)[-2:] == [ev.TURN_ENDED, ev.GAME_ENDED]
    assert events[-1] == {
        "kind": "game_ended",
        "v": 1,
        "reason": "deck_exhausted",
        "scores": {"a": 1, "b": 0},
        "winner": "a",
        "seat": None,
    }


def test_a_replayed_turn_reaches_the_same_state_as_the_decided_one() -> None:
    state = scenario(hand_a=["HU2"], board={"huntress": ["HU1", "HU1"], "fire_dragon": ["FD2"]})
    after, events = play(state, "HU2")
    again = state.copy()
    apply_events(again, events)
    assert again.to_json() == after.to_json()


# --- R1.13 legal plays --------------------------------------------------------------------------

CHOICES = (None, CHESTS, STONES, PRINCESSES, TROLLS)


def play_key(state: State, cards: tuple[str, ...], choice: str | None) -> tuple[object, ...]:
    """What makes two plays different: the type, the multiset of values, the choice."""
    return CARD_TYPE[cards[0]], tuple(sorted(state.values[c] for c in cards)), choice


def accepted_by_decide(state: State) -> set[tuple[object, ...]]:
    hand = state.hands[state.to_move]  # type: ignore[index]
    found = set()
    for k in range(1, len(hand) + 1):
        for cards in combinations(hand, k):
            for choice in CHOICES:
                try:
                    decide(state, Play(cards, choice), random.Random(0))
                except IllegalMove:
                    continue
                found.add(play_key(state, cards, choice))
    return found


def assert_legal_plays_match_brute_force(state: State) -> None:
    plays = legal_plays(state)
    keys = [play_key(state, p.cards, p.choice) for p in plays]
    assert len(keys) == len(set(keys))
    assert set(keys) == accepted_by_decide(state)
    for candidate in plays:
        decide(state, candidate, random.Random(0))


def test_legal_plays_list_each_distinct_multiset_of_values_once() -> None:
    state = scenario(hand_a=["DW1", "DW1", "DW2", "CH3", "SH"])
    keys = sorted((CARD_TYPE[p.cards[0]], names(p.cards)) for p in legal_plays(state))
    assert keys == [
        ("chest", ["CH3"]),
        ("dwarf", ["DW1"]),
        ("dwarf", ["DW1", "DW1"]),
        ("dwarf", ["DW1", "DW1", "DW2"]),
        ("dwarf", ["DW1", "DW2"]),
        ("dwarf", ["DW2"]),
        ("ship", ["SH"]),
    ]


def test_legal_plays_stop_at_the_free_slots() -> None:
    state = scenario(
        hand_a=["DW1", "DW1", "DW2", "SH", "SH"], board={"dwarf": ["DW1", "DW1"], "ship": ["SH"]}
    )
    keys = sorted((CARD_TYPE[p.cards[0]], names(p.cards)) for p in legal_plays(state))
    assert keys == [
        ("dwarf", ["DW1"]),
        ("dwarf", ["DW1", "DW1"]),
        ("dwarf", ["DW1", "DW2"]),
        ("dwarf", ["DW2"]),
        ("ship", ["SH"]),
        ("ship", ["SH", "SH"]),
    ]


def test_every_princess_play_comes_with_both_choices() -> None:
    state = scenario(hand_a=["PR1", "PR2", "x", "x", "x"])
    princess = sorted(
        (names(p.cards), p.choice) for p in legal_plays(state) if CARD_TYPE[p.cards[0]] == "princess"
    )
    assert princess == [
        (["PR1"], "chests"), (["PR1"], "stones"), (["PR1", "PR2"], "chests"),
        (["PR1", "PR2"], "stones"), (["PR2"], "chests"), (["PR2"], "stones"),
    ]  # fmt: skip


def test_hero_choices_apply_only_to_plays_that_fill_the_space() -> None:
    state = scenario(hand_a=["HE1", "HE1", "HE2", "x", "x"])
    heroes = sorted(
        (names(p.cards), p.choice or "") for p in legal_plays(state) if CARD_TYPE[p.cards[0]] == "hero"
    )
    assert heroes == [
        (["HE1"], ""), (["HE1", "HE1"], "princesses"), (["HE1", "HE1"], "trolls"),
        (["HE1", "HE2"], "princesses"), (["HE1", "HE2"], "trolls"), (["HE2"], ""),
    ]  # fmt: skip


def test_a_single_hero_filling_the_space_takes_a_choice() -> None:
    state = scenario(hand_a=["HE1", "HE2", "x", "x", "x"], board={"hero": ["HE1"]})
    heroes = sorted((names(p.cards), p.choice) for p in legal_plays(state) if CARD_TYPE[p.cards[0]] == "hero")
    assert heroes == [
        (["HE1"], "princesses"),
        (["HE1"], "trolls"),
        (["HE2"], "princesses"),
        (["HE2"], "trolls"),
    ]


def test_a_finished_game_has_no_legal_plays() -> None:
    state, _ = play_quietly(scenario(last_turn=11))
    assert state.over is True
    assert legal_plays(state) == []


BRUTE_FORCE_SCENARIOS = {
    "mixed hand": {"hand_a": ["PR1", "PR2", "HE1", "HE1", "DW3"], "board": {"hero": [], "dwarf": ["DW1"]}},
    "hero one slot": {"hand_a": ["HE1", "HE2", "HE1", "PR2", "PR2"], "board": {"hero": ["HE1"]}},
    "full limits": {
        "hand_a": ["HU1", "HU2", "SH", "SH", "DW1", "DW1"],
        "board": {"huntress": ["HU1", "HU1"], "ship": ["SH"], "dwarf": ["DW2", "DW2", "DW2"]},
        "dragon": "a",
    },
    "dragon with b": {
        "hand_a": ["PR1", "PR1", "TR1", "FD2", "FD3"],
        "board": {"stone_dragon": ["PD2"]},
        "dragon": "b",
    },
}


@pytest.mark.parametrize("name", BRUTE_FORCE_SCENARIOS)
def test_legal_plays_are_exactly_what_decide_accepts_in_scenarios(name: str) -> None:
    assert_legal_plays_match_brute_force(scenario(**BRUTE_FORCE_SCENARIOS[name]))  # type: ignore[arg-type]


REAL_GAME_OPTIONS: list[dict[str, object]] = [
    {},
    {"preset": "bsw", "dragon_loss_return": "always_one"},
    {"dragon_requires_stone": False, "deck_end_mode": "short_refill"},
    {"deck_profile": "dwarf_6x1_4x2"},
]


@pytest.mark.parametrize("seed", range(len(REAL_GAME_OPTIONS)))
def test_legal_plays_are_exactly_what_decide_accepts_in_real_games(seed: int) -> None:
    rng = random.Random(seed)
    state = state_from_start(start_game(rng, resolve_options(REAL_GAME_OPTIONS[seed])))
    checked = 0
    while not state.over:
        if state.turn % 3 == 0:
            assert_legal_plays_match_brute_force(state)
            checked += 1
        plays = legal_plays(state)
        apply_events(state, decide(state, plays[rng.randrange(len(plays))], rng))
    assert checked >= 5
