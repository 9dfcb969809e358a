"""Game records (RULES.md 4.1): what is malformed, what is an illegal play, and what replays."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import IllegalMove, MalformedRecord
from engine.options import Options
from engine.record import parse_record, replay_document, replay_record
from engine.rules import Play, decide
from engine.state import State
from tests.engine.sample_games import (
    B_HAND_AT_SWAP,
    B_PILE_TOP_AT_SWAP,
    SWAP_DECKS,
    SWAP_PLAYS,
    deck,
    dragon_swap_record,
    finished_record,
    record,
)


def replay(doc: dict[str, Any]) -> tuple[int | None, str] | None:
    """The (play index, code) of a record's first error, or None."""
    _, _, error = replay_record(parse_record(doc))
    return None if error is None else (error.play, error.code)


def with_play(index: int, play: dict[str, Any]) -> dict[str, Any]:
    """The dragon swap record up to ``index``, then ``play``."""
    return record([*SWAP_PLAYS[:index], play])


def a_deck_that_is(shape: str) -> Any:
    good = deck("a")
    return {
        "short": good[:49],
        "long": [*good, "a00"],
        "with_a_duplicate": [*good[:49], good[0]],
        "of_the_other_seat": deck("b"),
        "with_a_number": [*good[:49], 49],
        "with_a_list": [*good[:49], ["a49"]],
        "with_an_object": [*good[:49], {"id": "a49"}],
        "not_a_list": "".join(good),
        "missing": None,
    }[shape]


# --- malformed documents -----------------------------------------------------------------------

NOT_OBJECTS = [[], "record", 42, None, True]


@pytest.mark.parametrize("doc", NOT_OBJECTS)
def test_a_document_that_is_not_an_object_is_malformed(doc: Any) -> None:
    with pytest.raises(MalformedRecord):
        parse_record(doc)


@pytest.mark.parametrize("fmt", ["dragonheart-record/2", "", None, 1, ["dragonheart-record/1"]])
def test_a_wrong_format_is_malformed(fmt: Any) -> None:
    with pytest.raises(MalformedRecord):
        parse_record(record([], format=fmt))


def test_a_missing_format_is_malformed() -> None:
    doc = record([])
    del doc["format"]
    with pytest.raises(MalformedRecord):
        parse_record(doc)


BAD_OPTIONS = [
    {"no_such_option": True},
    {"preset": "bga"},
    {"preset": None},
    {"deck_end_mode": "sudden_death"},
    {"deck_end_mode": None},
    {"dragon_requires_stone": "true"},
    {"dragon_requires_stone": 1},
    {"dragon_loss_return": "all"},
    {"deck_profile": "dwarf_7x1"},
    {"preset": "bsw", "deck_end_mode": "never"},
    "bsw",
    ["bsw"],
]


@pytest.mark.parametrize("options", BAD_OPTIONS)
def test_an_unknown_option_name_or_value_is_malformed(options: Any) -> None:
    with pytest.raises(MalformedRecord):
        parse_record(record([], options=options))


@pytest.mark.parametrize("first", ["c", "A", "", 0, ["a"]])
def test_a_first_seat_other_than_a_or_b_is_malformed(first: Any) -> None:
    with pytest.raises(MalformedRecord):
        parse_record(record([], first=first))


def test_a_missing_first_seat_is_malformed() -> None:
    doc = record([])
    del doc["first"]
    with pytest.raises(MalformedRecord):
        parse_record(doc)


@pytest.mark.parametrize(
    "shape",
    [
        "short",
        "long",
        "with_a_duplicate",
        "of_the_other_seat",
        "with_a_number",
        "with_a_list",
        "with_an_object",
        "not_a_list",
        "missing",
    ],
)
def test_a_deck_that_is_not_a_permutation_of_the_seats_ids_is_malformed(shape: str) -> None:
    doc = record([])
    doc["decks"]["a"] = a_deck_that_is(shape)
    with pytest.raises(MalformedRecord):
        parse_record(doc)


@pytest.mark.parametrize("decks", [None, [], "a00", {"a": deck("a")}])
def test_decks_that_are_not_an_object_with_both_decks_are_malformed(decks: Any) -> None:
    doc = record([])
    doc["decks"] = decks
    with pytest.raises(MalformedRecord):
        parse_record(doc)


@pytest.mark.parametrize("plays", [None, {}, "a00", 3])
def test_plays_that_are_not_a_list_are_malformed(plays: Any) -> None:
    doc = record([])
    doc["plays"] = plays
    with pytest.raises(MalformedRecord):
        parse_record(doc)


def test_missing_plays_are_malformed() -> None:
    doc = record([])
    del doc["plays"]
    with pytest.raises(MalformedRecord):
        parse_record(doc)


@pytest.mark.parametrize("play", ["a11", ["a11"], None, 11])
def test_a_play_that_is_not_an_object_is_malformed(play: Any) -> None:
    with pytest.raises(MalformedRecord):
        parse_record(record([{"cards": ["a11"]}, play]))


@pytest.mark.parametrize("cards", ["a11", None, [11], [None], [["a11"]], {"a11": 1}])
def test_cards_that_are_not_a_list_of_strings_are_malformed(cards: Any) -> None:
    with pytest.raises(MalformedRecord):
        parse_record(record([{"cards": cards}]))


def test_a_play_without_cards_is_malformed() -> None:
    with pytest.raises(MalformedRecord):
        parse_record(record([{"choice": "stones"}]))


@pytest.mark.parametrize("key", ["choice", "seat", "returned"])
def test_a_choice_seat_or_returned_that_is_not_a_string_is_malformed(key: str) -> None:
    with pytest.raises(MalformedRecord):
        parse_record(record([{"cards": ["a11"], key: 1}]))


@pytest.mark.parametrize(
    "result",
    [
        "a",
        {"winner": "a"},
        {"scores": {"a": 1}, "winner": "a"},
        {"scores": {"a": 1, "b": "2"}, "winner": "a"},
        {"scores": {"a": 1, "b": 2}, "winner": "c"},
    ],
)
def test_a_result_of_the_wrong_shape_is_malformed(result: Any) -> None:
    with pytest.raises(MalformedRecord):
        parse_record(record([], result=result))


def test_a_malformed_document_replays_to_a_malformed_record_error_with_status_2() -> None:
    line, status = replay_document(record([], first="c"))
    assert status == 2
    assert line["error"]["code"] == "malformed_record"
    assert line["error"]["play"] is None
    assert line["error"]["message"]


# --- options ----------------------------------------------------------------------------------


def test_options_may_be_omitted() -> None:
    assert parse_record(record([])).options == Options()


def test_options_may_name_a_preset() -> None:
    assert parse_record(record([], options={"preset": "bsw"})).options == Options(
        deck_end_mode="bsw_next_turn"
    )


def test_single_options_override_the_preset() -> None:
    options = {"preset": "bsw", "deck_end_mode": "short_refill", "dragon_loss_return": "always_one"}
    parsed = parse_record(record([], options=options)).options
    assert parsed == Options(deck_end_mode="short_refill", dragon_loss_return="always_one")


def test_players_and_unknown_keys_are_accepted() -> None:
    doc = record(SWAP_PLAYS, players={"a": "alice", "b": "bob"}, event="club night")
    assert parse_record(doc).players == {"a": "alice", "b": "bob"}
    assert replay(doc) is None


# --- illegal plays ---------------------------------------------------------------------------

ILLEGAL_AT_PLAY_2 = [
    ({"cards": ["a49"]}, "card_not_in_hand"),
    ({"cards": ["a11"]}, "card_not_in_hand"),  # b captured it
    ({"cards": ["b01"]}, "card_not_in_hand"),  # the opponent's card
    ({"cards": ["x01"]}, "unknown_card"),
    ({"cards": ["a50"]}, "unknown_card"),
    ({"cards": ["a00", "a00"]}, "duplicate_card"),
    ({"cards": ["a12", "a00"]}, "mixed_types"),
    ({"cards": []}, "no_cards"),
    ({"cards": ["a16"]}, "choice_required"),
    ({"cards": ["a12"], "choice": "stones"}, "choice_not_allowed"),
    ({"cards": ["a16"], "choice": "trolls"}, "invalid_choice"),
    ({"cards": ["a16"], "choice": "STONES"}, "invalid_choice"),
]


@pytest.mark.parametrize(("play", "code"), ILLEGAL_AT_PLAY_2)
def test_an_illegal_play_is_an_error_with_its_index_and_the_engines_code(
    play: dict[str, Any], code: str
) -> None:
    assert replay(with_play(2, play)) == (2, code)


def test_replay_stops_before_the_illegal_play() -> None:
    state, log, _ = replay_record(parse_record(with_play(2, {"cards": ["a49"]})))
    assert state.turn == 2
    assert state.to_move == "a"
    assert log[-1]["kind"] == "turn_ended"


def test_an_illegal_play_replays_to_an_error_line_with_status_1() -> None:
    line, status = replay_document(with_play(2, {"cards": ["a49"]}))
    assert status == 1
    assert set(line) == {"error"}
    assert line["error"]["play"] == 2
    assert line["error"]["code"] == "card_not_in_hand"
    assert isinstance(line["error"]["message"], str)
    assert line["error"]["message"]


def test_putting_down_more_cards_than_free_slots_is_illegal() -> None:
    five_dwarves = {"a": deck("a", "a23", "a24", "a25", "a26", "a27"), "b": deck("b")}
    doc = record([{"cards": ["a23", "a24", "a25", "a26", "a27"]}], decks=five_dwarves)
    assert replay(doc) == (0, "too_many_cards")


def test_a_play_stating_the_wrong_seat_is_not_your_turn() -> None:
    assert replay(record([{"cards": ["a11"], "seat": "b"}])) == (0, "not_your_turn")
    assert replay(with_play(1, {"cards": ["b16"], "choice": "stones", "seat": "a"})) == (1, "not_your_turn")


def test_a_play_stating_the_right_seat_is_legal() -> None:
    plays = [{**play, "seat": "ab"[i % 2]} for i, play in enumerate(SWAP_PLAYS)]
    assert replay(record(plays)) is None


# --- the card put back on losing the dragon -----------------------------------------------------


def test_the_dragon_swap_record_replays_and_puts_the_named_card_back() -> None:
    state, log, error = replay_record(parse_record(dragon_swap_record()))
    assert error is None
    assert state.dragon == "a"
    assert state.hands["b"] == [card for card in B_HAND_AT_SWAP if card != "b03"]
    assert state.piles["b"][:2] == ["b03", B_PILE_TOP_AT_SWAP]
    assert [e["returned"] for e in log if e["kind"] == "dragon_transferred"] == [None, "b03"]


def test_a_missing_returned_card_is_an_error_when_one_is_due() -> None:
    assert replay(with_play(4, {"cards": ["a16"], "choice": "stones"})) == (4, "returned_missing")


def test_a_returned_card_is_unexpected_when_the_dragon_comes_from_the_board() -> None:
    play = {"cards": ["b16"], "choice": "stones", "returned": "a00"}
    assert replay(with_play(1, play)) == (1, "returned_unexpected")


def test_a_returned_card_is_unexpected_when_the_dragon_does_not_move() -> None:
    assert replay(with_play(0, {"cards": ["a11"], "returned": "b00"})) == (0, "returned_unexpected")
    assert replay(with_play(3, {"cards": ["b00"], "returned": "a00"})) == (3, "returned_unexpected")


def test_a_returned_card_is_unexpected_when_the_choice_takes_the_chests() -> None:
    play = {"cards": ["a16"], "choice": "chests", "returned": "b03"}
    assert replay(with_play(4, play)) == (4, "returned_unexpected")


def dry_dragon_holder(dragon_loss_return: str) -> State:
    """b holds the dragon with five cards and an empty pile; a has a princess, a stone lies out."""
    state = State.new(SWAP_DECKS, "a", Options(dragon_loss_return=dragon_loss_return))
    state.dragon = "b"
    state.captured["b"], state.piles["b"] = state.piles["b"], []
    state.hands["a"].remove("a11")
    state.board["stone_dragon"] = ["a11"]
    return state


def test_no_card_is_due_from_a_loser_without_an_excess_card() -> None:
    state = dry_dragon_holder("excess")
    [swap] = [e for e in decide(state, Play(("a16",), "stones")) if e["kind"] == "dragon_transferred"]
    assert swap["returned"] is None
    with pytest.raises(IllegalMove) as refused:
        decide(state, Play(("a16",), "stones", returned="b01"))
    assert refused.value.code == "returned_unexpected"


def test_a_card_is_due_from_a_loser_without_an_excess_card_under_always_one() -> None:
    state = dry_dragon_holder("always_one")
    with pytest.raises(IllegalMove) as refused:
        decide(state, Play(("a16",), "stones"))
    assert refused.value.code == "returned_missing"
    [swap] = [
        e
        for e in decide(state, Play(("a16",), "stones", returned="b01"))
        if e["kind"] == "dragon_transferred"
    ]
    assert swap["returned"] == "b01"


@pytest.mark.parametrize("card", [B_PILE_TOP_AT_SWAP, "b00", "a00", "b16"])
def test_a_returned_card_not_in_the_losers_hand_is_an_error(card: str) -> None:
    play = {"cards": ["a16"], "choice": "stones", "returned": card}
    assert replay(with_play(4, play)) == (4, "returned_not_in_hand")


@pytest.mark.parametrize("card", B_HAND_AT_SWAP)
def test_any_card_in_the_losers_hand_may_be_returned(card: str) -> None:
    play = {"cards": ["a16"], "choice": "stones", "returned": card}
    state, _, error = replay_record(parse_record(with_play(4, play)))
    assert error is None
    assert state.piles["b"][0] == card


# --- results and the end of the game -------------------------------------------------------------


def test_a_finished_record_replays_to_its_stated_result() -> None:
    doc = finished_record()
    state, _, error = replay_record(parse_record(doc))
    assert error is None
    assert state.over
    assert doc["result"] == {"scores": state.scores(), "winner": state.winner}


def test_a_result_with_other_scores_is_a_result_mismatch() -> None:
    doc = finished_record()
    doc["result"]["scores"]["a"] += 1
    assert replay(doc) == (None, "result_mismatch")


def test_a_result_with_another_winner_is_a_result_mismatch() -> None:
    doc = finished_record()
    doc["result"]["winner"] = "b" if doc["result"]["winner"] == "a" else "a"
    assert replay(doc) == (None, "result_mismatch")


def test_a_result_on_an_unfinished_game_is_a_result_mismatch() -> None:
    doc = record(SWAP_PLAYS, result={"scores": {"a": 7, "b": 2}, "winner": "a"})
    assert replay(doc) == (None, "result_mismatch")


def test_a_result_mismatch_replays_to_an_error_line_with_status_1() -> None:
    doc = finished_record()
    doc["result"]["scores"]["b"] += 5
    line, status = replay_document(doc)
    assert status == 1
    assert line["error"]["code"] == "result_mismatch"
    assert line["error"]["play"] is None


def test_a_play_after_the_end_is_game_over() -> None:
    doc = finished_record()
    count = len(doc["plays"])
    doc["plays"].append({"cards": ["a00"]})
    assert replay(doc) == (count, "game_over")


def test_a_finished_record_without_its_result_still_replays_to_the_end() -> None:
    doc = finished_record()
    del doc["result"]
    state, _, error = replay_record(parse_record(doc))
    assert error is None
    assert state.over
