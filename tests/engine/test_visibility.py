"""What a seat or a spectator may see (engine.visibility), case by case."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from engine.cards import SEATS, Seat
from engine.events import Event
from engine.record import parse_record, replay_record
from engine.replay import fold
from engine.state import State
from engine.visibility import seat_view, view_event, view_events, view_state
from tests.engine.builders import loose
from tests.engine.sample_games import SWAP_DECKS, SWAP_PLAYS, dragon_swap_record, finished_record, record

VIEWERS: list[Seat | None] = ["a", "b", None]


def replayed(doc: dict[str, Any]) -> tuple[State, list[Event]]:
    state, log, error = replay_record(parse_record(doc))
    assert error is None
    return state, loose(log)


def card_ids(document: Any) -> set[str]:
    return set(re.findall(r"[ab]\d\d", json.dumps(document)))


def swap_game() -> tuple[State, list[Event]]:
    """After play 4 of the dragon swap record: a took the dragon from b, b put b03 back."""
    return replayed(dragon_swap_record())


def the(kind: str, log: list[Event], nth: int = -1) -> Event:
    return [event for event in log if event["kind"] == kind][nth]


# --- the state -----------------------------------------------------------------------------------


def test_a_seat_sees_its_own_hand_and_not_the_opponents() -> None:
    state, _ = swap_game()
    assert view_state(state, "a")["hands"] == {"a": state.hands["a"], "b": None}
    assert view_state(state, "b")["hands"] == {"a": None, "b": state.hands["b"]}


def test_a_spectator_sees_no_hand() -> None:
    state, _ = swap_game()
    assert view_state(state, None)["hands"] == {"a": None, "b": None}


@pytest.mark.parametrize("viewer", VIEWERS)
def test_hands_and_piles_are_shown_only_as_counts(viewer: Seat | None) -> None:
    state, _ = swap_game()
    view = view_state(state, viewer)
    assert "piles" not in view
    assert view["hand_sizes"] == {"a": 6, "b": 5}
    assert view["pile_sizes"] == {"a": 41, "b": 43}  # b03 went back onto b's pile


@pytest.mark.parametrize("viewer", VIEWERS)
def test_a_view_names_no_card_of_a_pile_or_of_another_hand(viewer: Seat | None) -> None:
    state, _ = swap_game()
    hidden = set(state.piles["a"]) | set(state.piles["b"])
    hidden |= {card for seat in SEATS if seat != viewer for card in state.hands[seat]}
    assert not card_ids(view_state(state, viewer)) & hidden


@pytest.mark.parametrize("viewer", VIEWERS)
def test_the_table_is_public(viewer: Seat | None) -> None:
    state, _ = swap_game()
    view = view_state(state, viewer)
    assert view["board"] == state.board
    assert view["hold"] == state.hold
    assert view["dragon"] == "a"
    assert view["voyages"] == 0
    assert view["turn"] == 5
    assert view["to_move"] == "b"
    assert view["captured_counts"] == {"a": 1, "b": 1}


@pytest.mark.parametrize("viewer", VIEWERS)
def test_scores_are_hidden_while_the_game_runs(viewer: Seat | None) -> None:
    state, _ = swap_game()
    assert view_state(state, viewer)["scores"] is None


@pytest.mark.parametrize("viewer", VIEWERS)
def test_scores_are_shown_with_open_scores(viewer: Seat | None) -> None:
    state, _ = replayed(record(SWAP_PLAYS, options={"open_scores": True}))
    assert view_state(state, viewer)["scores"] == {"a": 5, "b": 2}


@pytest.mark.parametrize("viewer", VIEWERS)
def test_scores_are_shown_once_the_game_is_over(viewer: Seat | None) -> None:
    state, _ = replayed(finished_record())
    assert view_state(state, viewer)["scores"] == state.scores()


# --- events ----------------------------------------------------------------------------------------


def test_game_started_shows_a_seat_its_own_five_cards_only() -> None:
    _, log = swap_game()
    view = view_event(log[0], "a", False)
    assert "decks" not in view
    assert view["hands"] == {"a": SWAP_DECKS["a"][:5], "b": None}
    assert card_ids(view) == set(SWAP_DECKS["a"][:5])
    assert view["hand_sizes"] == {"a": 5, "b": 5}
    assert view["pile_sizes"] == {"a": 45, "b": 45}


def test_game_started_shows_a_spectator_no_card() -> None:
    _, log = swap_game()
    view = view_event(log[0], None, False)
    assert view["hands"] == {"a": None, "b": None}
    assert card_ids(view) == set()
    assert view["first"] == "a"


def test_a_seat_sees_the_cards_it_drew() -> None:
    _, log = swap_game()
    drawn = the("cards_drawn", log)  # a refills after taking the dragon
    assert drawn["seat"] == "a"
    assert view_event(drawn, "a", False)["cards"] == drawn["cards"] == ["a04", "a05"]


@pytest.mark.parametrize("viewer", ["b", None])
def test_another_seats_draw_shows_only_the_count(viewer: Seat | None) -> None:
    _, log = swap_game()
    drawn = the("cards_drawn", log)
    view = view_event(drawn, viewer, False)
    assert view["cards"] is None
    assert view["count"] == 2
    assert view["seat"] == "a"
    assert card_ids(view) == set()


def test_the_loser_sees_the_card_he_put_back() -> None:
    _, log = swap_game()
    swap = the("dragon_transferred", log)
    assert view_event(swap, "b", False)["returned"] == "b03"


@pytest.mark.parametrize("viewer", ["a", None])
def test_the_card_put_back_is_hidden_from_the_taker_and_spectators(viewer: Seat | None) -> None:
    _, log = swap_game()
    view = view_event(the("dragon_transferred", log), viewer, False)
    assert view["returned"] is None
    assert view["from"] == "b"
    assert view["to"] == "a"
    assert "b03" not in json.dumps(view)


def test_the_loser_s_bot_view_knows_the_card_on_top_of_its_pile() -> None:
    state, log = swap_game()
    assert state.piles["b"][0] == "b03"
    assert seat_view(state, "b", log).pile_top == ("b03",)


def test_the_card_put_back_is_not_in_the_takers_bot_view_nor_without_the_log() -> None:
    state, log = swap_game()
    assert seat_view(state, "a", log).pile_top == ()
    assert "b03" not in repr(seat_view(state, "a", log)._replace(values={}))
    assert seat_view(state, "b").pile_top == ()


def test_the_card_put_back_leaves_the_bot_view_once_drawn_again() -> None:
    state, log = replayed(record([*SWAP_PLAYS, {"cards": ["b01"]}]))
    assert "b03" in state.hands["b"]
    assert seat_view(state, "b", log).pile_top == ()


@pytest.mark.parametrize("viewer", VIEWERS)
def test_played_and_captured_cards_are_public(viewer: Seat | None) -> None:
    _, log = swap_game()
    for kind in ("cards_played", "cards_captured", "turn_ended"):
        event = the(kind, log)
        assert view_event(event, viewer, False) == event


@pytest.mark.parametrize("viewer", VIEWERS)
def test_the_whole_log_seen_by_a_viewer_names_no_card_still_hidden_from_him(viewer: Seat | None) -> None:
    state, log = swap_game()
    hidden = set(state.piles["a"]) | set(state.piles["b"])
    hidden |= {card for seat in SEATS if seat != viewer for card in state.hands[seat]}
    if viewer == "b":
        hidden.discard("b03")  # b put it on his own pile himself
    assert not card_ids(view_events(log, viewer, False)) & hidden


# --- after the end -------------------------------------------------------------------------------


@pytest.mark.parametrize("viewer", VIEWERS)
def test_everything_is_shown_once_the_game_is_over(viewer: Seat | None) -> None:
    state, _ = replayed(finished_record())
    view = view_state(state, viewer)
    assert view["hands"] == state.hands
    assert view["piles"] == state.piles
    assert view["captured"] == state.captured
    assert view["winner"] == state.winner
    assert view["over"] is True


@pytest.mark.parametrize("viewer", VIEWERS)
def test_every_event_is_shown_in_full_once_the_game_is_over(viewer: Seat | None) -> None:
    _, log = replayed(finished_record())
    assert view_events(log, viewer, True) == log
    assert view_event(log[0], viewer, True)["decks"] == log[0]["decks"]


def test_a_folded_prefix_of_the_log_hides_as_much_as_the_replayed_state() -> None:
    state, log = swap_game()
    assert view_state(fold(log), "a") == view_state(state, "a")
