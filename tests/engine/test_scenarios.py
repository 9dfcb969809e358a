"""The worked scenarios of RULES.md section 3, one test each, asserting what "Expect" says.

Unless a scenario says otherwise: A moves in turn n, hands hold 5 cards (fillers of other types),
draw piles 20, board, hold and score piles empty, voyages 0, dragon on the board.
"""

from __future__ import annotations

import random
from collections import Counter

from engine.cards import CARD_TYPE, CARD_VALUES, DECKS, SEATS, TYPES
from engine.events import CARDS_CAPTURED, CARDS_DRAWN, DRAGON_TRANSFERRED
from engine.match import GameResult, standing
from engine.options import resolve_options
from engine.replay import state_from_start
from engine.rules import (
    CARD_NOT_IN_HAND,
    CHESTS,
    CHOICE_NOT_ALLOWED,
    CHOICE_REQUIRED,
    INVALID_CHOICE,
    MIXED_TYPES,
    NO_CARDS,
    PRINCESSES,
    STONES,
    TOO_MANY_CARDS,
    TROLLS,
    Play,
    legal_plays,
    start_game,
    winner_of,
)
from tests.engine.builders import names, of_kind, play, refuse, scenario


def test_s01_a_new_game_starts_from_full_decks_and_an_empty_board() -> None:
    start = start_game(random.Random(1), resolve_options({"first_player": "a"}))
    state = state_from_start(start)
    values = CARD_VALUES["standard"]
    for seat in SEATS:
        deck = start["decks"][seat]
        assert sorted(deck) == list(DECKS[seat])
        assert sum(values[card] for card in deck) == 79
        assert Counter(CARD_TYPE[card] for card in deck)["ship"] == 6
        assert len(state.hands[seat]) == 5
        assert len(state.piles[seat]) == 45
        assert state.captured[seat] == []
    assert all(state.board[kind] == [] for kind in TYPES)
    assert (state.hold, state.voyages, state.dragon) == ([], 0, None)
    assert (state.to_move, state.over) == ("a", False)


def test_s02_chests_have_no_effect() -> None:
    state = scenario(
        hand_a=["CH1", "CH3", "FD2", "DW1", "SH"], board={"chest": ["CH2"]}, pile_a_top=["PR2", "TR1"]
    )
    after, events = play(state, ["CH1", "CH3"])
    assert names(after.board["chest"]) == ["CH2", "CH1", "CH3"]
    assert of_kind(events, CARDS_CAPTURED) == []
    assert names(after.hands["a"]) == ["FD2", "DW1", "SH", "PR2", "TR1"]
    assert len(after.piles["a"]) == 18
    assert (after.to_move, after.over) == ("b", False)


def test_s03_a_fire_dragon_takes_all_chests() -> None:
    state = scenario(hand_a=["FD3"], board={"chest": ["CH1", "CH4", "CH2"]})
    after, _ = play(state, "FD3")
    assert after.points["a"] == 7
    assert sorted(names(after.captured["a"])) == ["CH1", "CH2", "CH4"]
    assert (after.board["chest"], names(after.board["fire_dragon"])) == ([], ["FD3"])
    assert (len(after.hands["a"]), len(after.piles["a"])) == (5, 19)


def test_s04_two_fire_dragons_capture_once() -> None:
    state = scenario(hand_a=["FD3", "FD4"], board={"chest": ["CH3"], "fire_dragon": ["FD2"]})
    after, events = play(state, ["FD3", "FD4"])
    assert after.points["a"] == 3
    assert len(of_kind(events, CARDS_CAPTURED)) == 1
    assert after.board["chest"] == []
    assert names(after.board["fire_dragon"]) == ["FD2", "FD3", "FD4"]
    assert len(after.piles["a"]) == 18


def test_s05_a_fire_dragon_with_no_chests_captures_nothing() -> None:
    state = scenario(hand_a=["FD4"], board={"fire_dragon": ["FD2"]})
    after, events = play(state, "FD4")
    assert names(after.board["fire_dragon"]) == ["FD2", "FD4"]
    assert of_kind(events, CARDS_CAPTURED) == []
    assert after.points["a"] == 0
    assert len(after.piles["a"]) == 19


def test_s06_a_huntress_below_capacity_waits() -> None:
    state = scenario(hand_a=["HU2"], board={"huntress": ["HU1"], "fire_dragon": ["FD3"]})
    after, events = play(state, "HU2")
    assert names(after.board["huntress"]) == ["HU1", "HU2"]
    assert names(after.board["fire_dragon"]) == ["FD3"]
    assert after.hold == []
    assert of_kind(events, CARDS_CAPTURED) == []


def test_s07_the_third_huntress_takes_the_fire_dragons_and_goes_to_the_hold() -> None:
    state = scenario(hand_a=["HU2"], board={"huntress": ["HU1", "HU1"], "fire_dragon": ["FD2", "FD4"]})
    after, _ = play(state, "HU2")
    assert after.points["a"] == 6
    assert after.board["fire_dragon"] == after.board["huntress"] == []
    assert names(after.hold) == ["HU1", "HU1", "HU2"]
    assert len(after.piles["a"]) == 19


def test_s08_three_huntresses_at_once_with_nothing_to_hunt() -> None:
    state = scenario(hand_a=["HU1", "HU1", "HU2", "x", "x"], hold=["HE1", "HE1"])
    after, events = play(state, ["HU1", "HU1", "HU2"])
    assert of_kind(events, CARDS_CAPTURED) == []
    assert after.board["huntress"] == []
    assert names(after.hold) == ["HE1", "HE1", "HU1", "HU1", "HU2"]
    assert len(after.piles["a"]) == 17


def test_s09_more_huntresses_than_free_slots_are_rejected() -> None:
    state = scenario(hand_a=["HU1", "HU1", "x", "x", "x"], board={"huntress": ["HU1", "HU2"]})
    assert refuse(state, ["HU1", "HU1"]).code == TOO_MANY_CARDS
    assert state.to_move == "a"
    assert Play((state.hands["a"][0],)) in legal_plays(state)
    after, _ = play(state, "HU1")
    assert after.board["huntress"] == []


def test_s10_petrified_dragons_have_no_effect() -> None:
    state = scenario(hand_a=["PD2", "PD2"], board={"stone_dragon": ["PD2"]})
    after, events = play(state, ["PD2", "PD2"])
    assert names(after.board["stone_dragon"]) == ["PD2", "PD2", "PD2"]
    assert of_kind(events, CARDS_CAPTURED) == []
    assert after.dragon is None


def test_s11_a_princess_takes_the_chests() -> None:
    state = scenario(hand_a=["PR1"], board={"chest": ["CH1", "CH3"], "stone_dragon": ["PD2", "PD2"]})
    after, _ = play(state, "PR1", CHESTS)
    assert after.points["a"] == 4
    assert after.board["chest"] == []
    assert after.board["stone_dragon"] == state.board["stone_dragon"]
    assert names(after.board["princess"]) == ["PR1"]
    assert (after.dragon, len(after.hands["a"])) == (None, 5)


def test_s12_a_princess_takes_the_stones_and_the_dragon_and_refills_to_six() -> None:
    state = scenario(
        hand_a=["PR2", "DW1", "DW1", "SH", "TR1"],
        board={"chest": ["CH4"], "stone_dragon": ["PD2", "PD2"]},
        pile_a_top=["HE1", "CH2", "FD3"],
    )
    after, _ = play(state, "PR2", STONES)
    assert after.points["a"] == 4
    assert (after.board["stone_dragon"], names(after.board["chest"])) == ([], ["CH4"])
    assert names(after.board["princess"]) == ["PR2"]
    assert after.dragon == "a"
    assert names(after.hands["a"]) == ["DW1", "DW1", "SH", "TR1", "HE1", "CH2"]
    assert len(after.piles["a"]) == 18


def test_s13_several_princesses_still_take_one_pile() -> None:
    state = scenario(hand_a=["PR1", "PR2"], board={"chest": ["CH2", "CH2"], "stone_dragon": ["PD2"]})
    after, _ = play(state, ["PR1", "PR2"], CHESTS)
    assert after.points["a"] == 4
    assert (after.board["chest"], names(after.board["stone_dragon"])) == ([], ["PD2"])
    assert names(after.board["princess"]) == ["PR1", "PR2"]
    assert (after.dragon, len(after.piles["a"])) == (None, 18)


def test_s13_no_move_takes_both_piles() -> None:
    state = scenario(hand_a=["PR1", "PR2"], board={"chest": ["CH2", "CH2"], "stone_dragon": ["PD2"]})
    princess_plays = [p for p in legal_plays(state) if CARD_TYPE[p.cards[0]] == "princess"]
    assert {p.choice for p in princess_plays} == {CHESTS, STONES}
    for choice in ("both", None):
        assert refuse(state, ["PR1", "PR2"], choice).code in (INVALID_CHOICE, CHOICE_REQUIRED)
    for candidate in princess_plays:
        _, events = play(state, list(candidate.cards), candidate.choice)
        assert len(of_kind(events, CARDS_CAPTURED)) == 1


def test_s17_a_troll_takes_the_princesses() -> None:
    state = scenario(hand_a=["TR3"], board={"princess": ["PR1", "PR2", "PR2"]})
    after, _ = play(state, "TR3")
    assert after.points["a"] == 5
    assert after.board["princess"] == []
    assert names(after.board["troll"]) == ["TR3"]


def test_s18_a_troll_with_no_princesses_captures_nothing() -> None:
    state = scenario(hand_a=["TR2"], board={"troll": ["TR1"]})
    after, events = play(state, "TR2")
    assert names(after.board["troll"]) == ["TR1", "TR2"]
    assert of_kind(events, CARDS_CAPTURED) == []
    assert after.points["a"] == 0


def test_s19_the_first_hero_waits() -> None:
    state = scenario(hand_a=["HE1"], board={"princess": ["PR2"], "troll": ["TR1"]})
    after, events = play(state, "HE1")
    assert names(after.board["hero"]) == ["HE1"]
    assert of_kind(events, CARDS_CAPTURED) == []
    assert after.hold == []


def test_s20_the_second_hero_takes_the_princesses() -> None:
    state = scenario(
        hand_a=["HE2"],
        board={"hero": ["HE1"], "princess": ["PR2", "PR1"], "troll": ["TR3"]},
        hold=["HU1", "HU1", "HU2"],
    )
    after, _ = play(state, "HE2", PRINCESSES)
    assert after.points["a"] == 3
    assert (after.board["princess"], names(after.board["troll"])) == ([], ["TR3"])
    assert after.board["hero"] == []
    assert names(after.hold) == ["HU1", "HU1", "HU2", "HE1", "HE2"]


def test_s21_the_second_hero_takes_the_trolls() -> None:
    state = scenario(hand_a=["HE1"], board={"hero": ["HE1"], "troll": ["TR1", "TR3"], "princess": ["PR2"]})
    after, _ = play(state, "HE1", TROLLS)
    assert after.points["a"] == 4
    assert (after.board["troll"], names(after.board["princess"])) == ([], ["PR2"])
    assert after.board["hero"] == []
    assert names(after.hold) == ["HE1", "HE1"]


def test_s22_two_heroes_choosing_an_empty_pile_capture_nothing() -> None:
    state = scenario(hand_a=["HE1", "HE1"], board={"princess": ["PR1"]})
    after, events = play(state, ["HE1", "HE1"], TROLLS)
    assert of_kind(events, CARDS_CAPTURED) == []
    assert names(after.board["princess"]) == ["PR1"]
    assert (after.board["hero"], names(after.hold)) == ([], ["HE1", "HE1"])
    assert len(after.piles["a"]) == 18


def test_s23_more_heroes_than_free_slots_are_rejected() -> None:
    state = scenario(hand_a=["HE1", "HE2"], board={"hero": ["HE1"]})
    assert refuse(state, ["HE1", "HE2"], PRINCESSES).code == TOO_MANY_CARDS
    assert refuse(state, ["HE1", "HE2"]).code == TOO_MANY_CARDS


def test_s24_dwarves_below_capacity_wait() -> None:
    state = scenario(hand_a=["DW2"], board={"dwarf": ["DW1", "DW1"]})
    after, events = play(state, "DW2")
    assert names(after.board["dwarf"]) == ["DW1", "DW1", "DW2"]
    assert of_kind(events, CARDS_CAPTURED) == []


def test_s25_the_fourth_dwarf_collects_dwarves_the_opponent_played() -> None:
    state = scenario(hand_a=["DW3"], board={"dwarf": ["b23", "b24", "b29"]})
    assert names(state.board["dwarf"]) == ["DW1", "DW1", "DW2"]
    after, _ = play(state, "DW3")
    assert after.points["a"] == 7
    assert after.board["dwarf"] == []
    assert sorted(after.captured["a"]) == ["a32", "b23", "b24", "b29"]


def test_s26_more_dwarves_than_free_slots_are_rejected_one_is_fine() -> None:
    state = scenario(hand_a=["DW1", "DW2"], board={"dwarf": ["DW1", "DW1", "DW2"]})
    assert refuse(state, ["DW1", "DW2"]).code == TOO_MANY_CARDS
    assert play(state, "DW1")[0].points["a"] == 5
    assert play(state, "DW2")[0].points["a"] == 6


def test_s27_four_dwarves_at_once() -> None:
    state = scenario(hand_a=["DW1", "DW1", "DW2", "DW3", "SH"])
    after, events = play(state, ["DW1", "DW1", "DW2", "DW3"])
    assert after.points["a"] == 7
    assert after.board["dwarf"] == []
    assert after.hands["a"] == [state.hands["a"][4], *of_kind(events, CARDS_DRAWN)[0]["cards"]]
    assert names(after.hands["a"][:1]) == ["SH"]
    assert (len(after.hands["a"]), len(after.piles["a"])) == (5, 16)


def test_s28_a_ship_below_capacity_waits() -> None:
    state = scenario(hand_a=["SH"], board={"ship": ["SH"]})
    after, events = play(state, "SH")
    assert len(after.board["ship"]) == 2
    assert after.voyages == 0
    assert of_kind(events, CARDS_CAPTURED) == []


def test_s29_the_first_voyage_collects_the_hold() -> None:
    state = scenario(hand_a=["SH"], board={"ship": ["SH", "SH"]}, hold=["a38", "b38", "a42", "b33", "a37"])
    assert names(state.hold) == ["HU1", "HU1", "HU2", "HE1", "HE2"]
    after, _ = play(state, "SH")
    assert after.points["a"] == 7
    assert (after.hold, after.board["ship"], after.voyages) == ([], [], 1)
    ships = [*state.board["ship"], state.hands["a"][0]]
    assert after.voyage_ships == [ships]
    assert not set(ships) & set(after.captured["a"] + after.captured["b"])
    assert (after.over, after.to_move, after.last_turn) == (False, "b", None)


def test_s30_a_voyage_with_an_empty_hold_still_counts() -> None:
    state = scenario(hand_a=["SH"], board={"ship": ["SH", "SH"]}, voyages=1)
    after, events = play(state, "SH")
    assert after.voyages == 2
    assert of_kind(events, CARDS_CAPTURED) == []
    assert (after.over, after.last_turn) == (False, None)


def test_s31_three_ships_at_once() -> None:
    state = scenario(hand_a=["SH", "SH", "SH", "x", "x"], hold=["HU1", "HU1", "HU1"])
    after, _ = play(state, ["SH", "SH", "SH"])
    assert after.points["a"] == 3
    assert (after.voyages, after.hold) == (1, [])
    assert len(after.piles["a"]) == 17


def test_s32_more_ships_than_free_slots_are_rejected() -> None:
    state = scenario(hand_a=["SH", "SH"], board={"ship": ["SH", "SH"]})
    assert refuse(state, ["SH", "SH"]).code == TOO_MANY_CARDS


def test_s35_a_tie_without_the_dragon_is_a_draw() -> None:
    state = scenario(hand_a=["CH1"], points={"a": 41, "b": 41}, last_turn=11)
    after, events = play(state, "CH1")
    ended = events[-1]
    assert (ended["kind"], ended["scores"], ended["winner"]) == ("game_ended", {"a": 41, "b": 41}, None)
    assert (after.over, after.winner) == (True, None)
    result = GameResult(ended["scores"], ended["winner"], "a")
    assert standing("match", 1, [result]).wins == {"a": 0, "b": 0}
    sumof = standing("sumof", 1, [result])
    assert (sumof.points, sumof.over, sumof.winner) == ({"a": 41, "b": 41}, True, None)


def test_s36_the_dragon_bonus_decides() -> None:
    state = scenario(hand_a=["CH1"], dragon="a", points={"a": 38, "b": 40}, last_turn=11)
    after, events = play(state, "CH1")
    assert events[-1]["scores"] == {"a": 41, "b": 40}
    assert events[-1]["winner"] == after.winner == "a"
    assert winner_of({"a": 41, "b": 40}, "a") == "a"
    assert of_kind(events, DRAGON_TRANSFERRED) == []


def test_s44_an_empty_selection_is_rejected() -> None:
    state = scenario(hand_a=["DW1", "CH1", "PR1", "HE1"])
    assert refuse(state, []).code == NO_CARDS


def test_s44_mixed_types_are_rejected() -> None:
    state = scenario(hand_a=["DW1", "CH1", "PR1", "HE1"])
    assert refuse(state, ["DW1", "CH1"]).code == MIXED_TYPES


def test_s44_a_card_not_in_hand_is_rejected() -> None:
    state = scenario(hand_a=["DW1", "CH1", "PR1", "HE1"])
    elsewhere = state.hands["b"][0]
    assert refuse(state, [elsewhere]).code == CARD_NOT_IN_HAND
    assert refuse(state, [state.piles["a"][0]]).code == CARD_NOT_IN_HAND


def test_s44_a_princess_without_a_choice_is_rejected() -> None:
    state = scenario(hand_a=["DW1", "CH1", "PR1", "HE1"])
    assert refuse(state, "PR1").code == CHOICE_REQUIRED


def test_s44_a_hero_completing_the_space_without_a_choice_is_rejected() -> None:
    state = scenario(hand_a=["DW1", "CH1", "PR1", "HE1"], board={"hero": ["HE1"]})
    assert refuse(state, "HE1").code == CHOICE_REQUIRED


def test_s44_a_hero_onto_an_empty_space_with_a_choice_is_rejected() -> None:
    state = scenario(hand_a=["DW1", "CH1", "PR1", "HE1"])
    assert refuse(state, "HE1", PRINCESSES).code == CHOICE_NOT_ALLOWED
