"""Every refusal: a stable code, a message a player can act on, and no trace in the state.

``refuse`` (tests/engine/builders.py) checks that every field of the state is exactly as it was
before the refused command, then hands back the IllegalMove.
"""

from __future__ import annotations

import random

from engine.errors import IllegalMove
from engine.options import resolve_options
from engine.replay import state_from_start
from engine.rules import (
    CARD_NOT_IN_HAND,
    CHESTS,
    CHOICE_NOT_ALLOWED,
    CHOICE_REQUIRED,
    DUPLICATE_CARD,
    GAME_OVER,
    INVALID_CHOICE,
    MIXED_TYPES,
    NO_CARDS,
    NOT_YOUR_TURN,
    PRINCESSES,
    RETURNED_MISSING,
    RETURNED_NOT_IN_HAND,
    RETURNED_UNEXPECTED,
    STONES,
    TOO_LATE_TO_ABORT,
    TOO_MANY_CARDS,
    TROLLS,
    UNKNOWN_CARD,
    UNKNOWN_SEAT,
    Abort,
    Play,
    Resign,
    Timeout,
    start_game,
)
from engine.state import State
from tests.engine.builders import play, play_quietly, refuse, scenario


def says(error: IllegalMove, *words: str) -> bool:
    """The message is a sentence for a player that mentions every one of ``words``."""
    text = error.message.lower()
    return str(error) == error.message and len(text) > 15 and all(w.lower() in text for w in words)


def mid_game() -> State:
    return scenario(hand_a=["DW1", "CH1", "PR1", "HE1", "SH"], board={"dwarf": ["DW1", "DW2", "DW3"]})


def fresh_game() -> State:
    return state_from_start(start_game(random.Random(8), resolve_options({"first_player": "a"})))


def finished() -> State:
    state, _ = play_quietly(scenario(last_turn=11))
    assert state.over
    return state


# --- plays --------------------------------------------------------------------------------------


def test_a_play_after_the_end_is_refused_as_game_over() -> None:
    state = finished()
    error = refuse(state, Play((state.hands["a"][0],)))
    assert error.code == GAME_OVER
    assert says(error, "over")


def test_a_play_for_the_seat_not_to_move_is_refused() -> None:
    state = mid_game()
    error = refuse(state, "CH1", seat="b")
    assert error.code == NOT_YOUR_TURN
    assert says(error, "turn", "seat a")


def test_a_play_naming_the_seat_to_move_is_accepted() -> None:
    after, _ = play(mid_game(), "CH1", seat="a")
    assert (after.turn, after.to_move) == (11, "b")


def test_an_empty_play_with_cards_in_hand_is_refused() -> None:
    error = refuse(mid_game(), [])
    assert error.code == NO_CARDS
    assert says(error, "at least one card", "passing")


def test_an_empty_play_is_refused_while_even_one_card_is_left() -> None:
    state = scenario(hand_a_size=1, pile_a_size=0)
    assert refuse(state, []).code == NO_CARDS


def test_a_card_id_that_does_not_exist_is_refused() -> None:
    state = mid_game()
    for bogus in ("a50", "c01", "CH1x", ""):
        error = refuse(state, Play((bogus,)))
        assert error.code == UNKNOWN_CARD
        assert says(error, repr(bogus))


def test_a_card_that_is_not_a_string_is_refused_as_unknown() -> None:
    error = refuse(mid_game(), Play((7,)))  # type: ignore[arg-type]
    assert error.code == UNKNOWN_CARD
    assert says(error, "no card", "7")


def test_a_card_named_twice_is_refused() -> None:
    state = mid_game()
    card = state.hands["a"][1]
    error = refuse(state, Play((card, card)))
    assert error.code == DUPLICATE_CARD
    assert says(error, card, "twice")


def test_a_card_not_in_the_hand_is_refused_with_its_name() -> None:
    state = mid_game()
    card = state.piles["a"][0]
    error = refuse(state, Play((card,)))
    assert error.code == CARD_NOT_IN_HAND
    assert says(error, card, "not in your hand")


def test_the_opponents_card_is_not_in_the_hand() -> None:
    state = mid_game()
    error = refuse(state, Play((state.hands["b"][0],)))
    assert error.code == CARD_NOT_IN_HAND
    assert says(error, state.hands["b"][0], "hand")


def test_cards_of_two_types_are_refused() -> None:
    error = refuse(mid_game(), ["CH1", "PR1"], CHESTS)
    assert error.code == MIXED_TYPES
    assert says(error, "same type")


def test_more_cards_than_free_slots_are_refused_with_the_count() -> None:
    state = scenario(hand_a=["DW1", "DW2"], board={"dwarf": ["DW1", "DW1", "DW2"]})
    error = refuse(state, ["DW1", "DW2"])
    assert error.code == TOO_MANY_CARDS
    assert says(error, "dwarf", "1 free slot", "2")


def test_a_princess_without_a_choice_is_refused_naming_both_choices() -> None:
    error = refuse(mid_game(), "PR1")
    assert error.code == CHOICE_REQUIRED
    assert says(error, "princess", "chests", "stones")


def test_a_filling_hero_without_a_choice_is_refused_naming_both_choices() -> None:
    state = scenario(hand_a=["HE1"], board={"hero": ["HE2"]})
    error = refuse(state, "HE1")
    assert error.code == CHOICE_REQUIRED
    assert says(error, "hero", "princesses", "trolls")


def test_a_choice_on_a_play_without_one_is_refused() -> None:
    state = mid_game()
    for cards, choice in (("CH1", CHESTS), ("DW1", STONES), ("SH", TROLLS), ("HE1", PRINCESSES)):
        error = refuse(state, cards, choice)
        assert error.code == CHOICE_NOT_ALLOWED
        assert says(error, "no choice")


def test_a_choice_on_an_empty_turn_is_refused() -> None:
    error = refuse(scenario(hand_a_size=0), [], CHESTS)
    assert error.code == CHOICE_NOT_ALLOWED
    assert says(error, "empty turn", "no choice")


def test_a_princess_choosing_a_hero_pile_is_refused() -> None:
    error = refuse(mid_game(), "PR1", TROLLS)
    assert error.code == INVALID_CHOICE
    assert says(error, "'trolls'", "chests", "stones")


def test_a_hero_choosing_a_princess_pile_is_refused() -> None:
    state = scenario(hand_a=["HE1"], board={"hero": ["HE2"]})
    for choice in (CHESTS, "Princesses", "both"):
        error = refuse(state, "HE1", choice)
        assert error.code == INVALID_CHOICE
        assert says(error, repr(choice), "princesses", "trolls")


# --- the card put back on losing the dragon -----------------------------------------------------


def taking_from_b(**kwargs: object) -> State:
    return scenario(hand_a=["PR1"], board={"stone_dragon": ["PD2"]}, dragon="b", **kwargs)  # type: ignore[arg-type]


def test_taking_the_dragon_without_a_random_source_needs_the_returned_card() -> None:
    error = refuse(taking_from_b(), "PR1", STONES)
    assert error.code == RETURNED_MISSING
    assert says(error, "dragon", "seat b", "put")


def test_a_returned_card_outside_the_losers_hand_is_refused() -> None:
    state = taking_from_b()
    for card in (state.hands["a"][1], state.piles["b"][0]):
        error = refuse(state, "PR1", STONES, returned=card)
        assert error.code == RETURNED_NOT_IN_HAND
        assert says(error, card, "not in seat b's hand")


def test_a_returned_card_on_a_play_that_does_not_take_the_dragon_is_refused() -> None:
    state = taking_from_b()
    error = refuse(state, "PR1", CHESTS, returned=state.hands["b"][0])
    assert error.code == RETURNED_UNEXPECTED
    assert says(error, "no card is put back")


def test_a_returned_card_when_the_dragon_comes_from_the_board_is_refused() -> None:
    state = scenario(hand_a=["PR1"], board={"stone_dragon": ["PD2"]})
    error = refuse(state, "PR1", STONES, returned=state.hands["b"][0])
    assert error.code == RETURNED_UNEXPECTED
    assert says(error, "put back")


def test_a_returned_card_when_the_loser_owes_none_is_refused() -> None:
    state = taking_from_b(hand_b_size=5, pile_b_size=0)
    error = refuse(state, "PR1", STONES, returned=state.hands["b"][0])
    assert error.code == RETURNED_UNEXPECTED
    assert says(error, "put back")


def test_a_returned_card_on_an_empty_turn_is_refused() -> None:
    state = scenario(hand_a_size=0, dragon="b")
    error = refuse(state, [], returned=state.hands["b"][0])
    assert error.code == RETURNED_UNEXPECTED
    assert says(error, "put back")


# --- resigning, timeouts and aborts -------------------------------------------------------------


def test_resigning_a_finished_game_is_refused() -> None:
    for command in (Resign("a"), Timeout("a"), Abort("a")):
        error = refuse(finished(), command)
        assert error.code == GAME_OVER
        assert says(error, "over")


def test_an_unknown_seat_cannot_resign_time_out_or_abort() -> None:
    state = fresh_game()
    for command in (Resign("c"), Timeout(""), Abort("A")):
        error = refuse(state, command)
        assert error.code == UNKNOWN_SEAT
        assert says(error, repr(command.seat), "seats are 'a' and 'b'")


def test_only_the_player_to_move_can_run_out_of_time() -> None:
    error = refuse(scenario(to_move="a"), Timeout("b"))
    assert error.code == NOT_YOUR_TURN
    assert says(error, "only the player to move")


def test_a_game_that_has_begun_cannot_be_aborted() -> None:
    state, _ = play_quietly(fresh_game())
    error = refuse(state, Abort("b"))
    assert error.code == TOO_LATE_TO_ABORT
    assert says(error, "begun", "abort")
