"""The bots: legal, reproducible, greedy where they should be, and blind to hidden cards."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from engine.bots import make_bot
from engine.cards import SEATS, Seat, other, owner
from engine.options import Options, resolve_options
from engine.replay import apply_events, fold, state_from_start
from engine.rules import Play, decide, legal_plays, start_game
from engine.selfplay import play_game
from engine.state import State
from engine.visibility import seat_view
from tests.engine.sample_games import deck

BOTS = ["random", "greedy"]
OPTION_SPECS: list[dict[str, object]] = [
    {},
    {"preset": "bsw"},
    {"deck_end_mode": "short_refill", "dragon_loss_return": "always_one"},
    {"dragon_requires_stone": False, "deck_profile": "dwarf_6x1_4x2"},
]


def situation(hand: list[str], board: dict[str, list[str]], dragon: Seat | None = None) -> State:
    """Seat a to move with ``hand``; b holds b00–b04; the board cards come from the piles."""
    state = State.new({"a": deck("a", *hand), "b": deck("b")}, "a", Options())
    for kind, cards in board.items():
        for card in cards:
            state.piles[owner(card)].remove(card)
        state.board[kind] = list(cards)
    state.dragon = dragon
    return state


def greedy_choice(state: State) -> Play:
    assert state.to_move is not None
    return make_bot("greedy", random.Random(0)).choose(seat_view(state, state.to_move))


def lead_gained(state: State, play: Play) -> int:
    """How much the play changes the mover's lead, dragon bonus included, by the engine's rules."""
    seat = state.to_move
    assert seat is not None
    after = state.copy()
    apply_events(after, decide(state, play, random.Random(0)))

    def lead(s: State) -> int:
        scores = s.scores()
        return scores[seat] - scores["b" if seat == "a" else "a"]

    return lead(after) - lead(state)


def midgame_states(games: int) -> Iterator[State]:
    """Every position of some random games with varied options, seat to move and all."""
    for i in range(games):
        options = resolve_options(OPTION_SPECS[i % len(OPTION_SPECS)])
        _, log = play_game({"a": "random", "b": "random"}, f"positions:{i}", SEATS[i % 2], options)
        state = state_from_start(log[0])
        yield state.copy()
        for event in log[1:]:
            apply_events(state, [event])
            if event["kind"] == "turn_ended" and not state.over:
                yield state.copy()


def with_hidden_cards_rearranged(state: State, rng: random.Random) -> State:
    """The same public position with the opponent's hand dealt anew from his unseen cards and
    both piles shuffled: everything the seat to move cannot know is different."""
    seat = state.to_move
    assert seat is not None
    opponent = other(seat)
    variant = state.copy()
    unseen = variant.hands[opponent] + variant.piles[opponent]
    rng.shuffle(unseen)
    size = len(variant.hands[opponent])
    variant.hands[opponent], variant.piles[opponent] = unseen[:size], unseen[size:]
    rng.shuffle(variant.piles[seat])
    return variant


# --- legal and reproducible ----------------------------------------------------------------------


@pytest.mark.parametrize("name", BOTS)
@pytest.mark.parametrize("spec", OPTION_SPECS)
def test_a_bot_only_picks_legal_plays(name: str, spec: dict[str, object]) -> None:
    for seed in range(3):
        table = random.Random(seed)
        bots = {seat: make_bot(name, random.Random(f"{seed}{seat}")) for seat in SEATS}
        state = state_from_start(start_game(table, resolve_options(spec)))
        while not state.over:
            assert state.to_move is not None
            play = bots[state.to_move].choose(seat_view(state, state.to_move))
            assert play in legal_plays(state)
            apply_events(state, decide(state, play, table))


@pytest.mark.parametrize("bots", [("greedy", "random"), ("random", "greedy"), ("greedy", "greedy")])
def test_the_same_seed_plays_the_same_game(bots: tuple[str, str]) -> None:
    seats: dict[Seat, str] = {"a": bots[0], "b": bots[1]}
    assert play_game(seats, "same", "a")[1] == play_game(seats, "same", "a")[1]


def test_another_seed_plays_another_game() -> None:
    seats: dict[Seat, str] = {"a": "greedy", "b": "random"}
    assert play_game(seats, "one", "a")[1] != play_game(seats, "two", "a")[1]


def test_a_self_played_game_folds_to_its_final_state() -> None:
    state, log = play_game({"a": "greedy", "b": "random"}, "fold", "b")
    assert state.over
    assert fold(log).to_json() == state.to_json()


def test_an_unknown_bot_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("clever", random.Random(0))


# --- greedy ----------------------------------------------------------------------------------------


def test_greedy_takes_the_chests_with_a_fire_dragon() -> None:
    state = situation(["a07", "a23", "a44", "a33", "a38"], {"chest": ["b05", "b06"]})
    assert greedy_choice(state) == Play(("a07",))


def test_greedy_completes_the_dwarves_rather_than_take_fewer_princesses() -> None:
    # Four points of princesses for the troll, or 3 + 3 points of dwarves.
    state = situation(
        ["a20", "a32", "a44", "a33", "a38"], {"princess": ["b18", "b19"], "dwarf": ["b23", "b24", "b25"]}
    )
    assert greedy_choice(state) == Play(("a32",))


def test_greedy_takes_the_stones_when_the_dragon_on_the_board_makes_them_worth_more() -> None:
    # chests 3 against stones 2 + the dragon's 3.
    state = situation(["a16", "a23", "a44", "a33", "a38"], {"chest": ["b05"], "stone_dragon": ["b11"]})
    assert greedy_choice(state) == Play(("a16",), "stones")


def test_greedy_takes_the_chests_when_it_already_holds_the_dragon() -> None:
    state = situation(
        ["a16", "a23", "a44", "a33", "a38"], {"chest": ["b05"], "stone_dragon": ["b11"]}, dragon="a"
    )
    assert greedy_choice(state) == Play(("a16",), "chests")


def test_greedy_counts_the_dragon_taken_from_the_opponent_twice() -> None:
    # chests 7 against stones 2 + 3 won + 3 the opponent loses.
    board = {"chest": ["b05", "b06"], "stone_dragon": ["b11"]}
    assert greedy_choice(situation(["a16", "a23", "a44", "a33", "a38"], board, dragon="b")) == Play(
        ("a16",), "stones"
    )
    assert greedy_choice(situation(["a16", "a23", "a44", "a33", "a38"], board)) == Play(("a16",), "chests")


def test_greedy_always_gains_the_most_the_position_offers() -> None:
    for state in midgame_states(8):
        best = max(lead_gained(state, play) for play in legal_plays(state))
        assert lead_gained(state, greedy_choice(state)) == best


def test_greedy_beats_random_in_most_games() -> None:
    wins = 0
    for i in range(100):
        state, _ = play_game({"a": "greedy", "b": "random"}, f"duel:{i}", SEATS[i % 2])
        wins += state.winner == "a"
    assert wins >= 80


# --- hidden information ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", BOTS)
def test_a_bots_choice_does_not_depend_on_cards_it_cannot_see(name: str) -> None:
    rng = random.Random(5)
    positions = changed = 0
    for state in midgame_states(6):
        variant = with_hidden_cards_rearranged(state, rng)
        positions += 1
        changed += variant.to_json() != state.to_json()
        seat = state.to_move
        assert seat is not None
        chosen = make_bot(name, random.Random(9)).choose(seat_view(state, seat))
        assert make_bot(name, random.Random(9)).choose(seat_view(variant, seat)) == chosen
    assert changed > positions * 0.9


def test_a_seat_view_names_no_card_the_seat_cannot_see() -> None:
    for state in midgame_states(3):
        seat = state.to_move
        assert seat is not None
        opponent = other(seat)
        hidden = set(state.hands[opponent]) | set(state.piles["a"]) | set(state.piles["b"])
        # The table of printed values names every card of both decks; that is no secret.
        view = seat_view(state, seat)._replace(values={})
        assert not hidden & set(re.findall(r"[ab]\d\d", repr(view)))
