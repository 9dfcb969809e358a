"""The search bots: blind to hidden cards, reproducible, legal, and better than the others."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.__main__ import main
from engine.bots import make_bot
from engine.cards import ALL_CARDS, SEATS, Seat, other
from engine.options import resolve_options
from engine.replay import apply_events, state_from_start
from engine.rules import Play, decide, legal_plays, start_game
from engine.search import LEVELS, Budget, SearchBot, best_capture, deal, public_state, unseen_cards
from engine.selfplay import play_game, run_match
from engine.state import State
from engine.visibility import SeatView, seat_view
from tests.engine.builders import scenario
from tests.engine.test_bots import OPTION_SPECS, lead_gained, midgame_states, with_hidden_cards_rearranged
from tests.engine.test_visibility import swap_game

QUICK = Budget(iterations=3)


def quick_bot(seed: int = 0, budget: Budget = QUICK) -> SearchBot:
    return SearchBot(random.Random(seed), budget)


def choice(state: State, seed: int = 0, budget: Budget = QUICK) -> Play:
    assert state.to_move is not None
    return quick_bot(seed, budget).choose(seat_view(state, state.to_move))


class PeekingBot(SearchBot):
    """A search bot that cheats: it deals the real hidden cards instead of sampling them."""

    def __init__(self, rng: random.Random, budget: Budget, state: State) -> None:
        super().__init__(rng, budget)
        self.state = state

    def _deal(self, base: State, view: SeatView, unseen: dict[Seat, list[str]]) -> State:
        world = base.copy()
        opponent = other(view.seat)
        world.hands[opponent] = list(self.state.hands[opponent])
        world.piles = {seat: list(cards) for seat, cards in self.state.piles.items()}
        return world


def positions(games: int, step: int) -> list[State]:
    return [state for i, state in enumerate(midgame_states(games)) if i % step == 0]


# --- hidden information ----------------------------------------------------------------------------


def test_the_search_bot_plays_the_same_whatever_the_cards_it_cannot_see() -> None:
    rng = random.Random(11)
    for state in positions(4, 3):
        variant = with_hidden_cards_rearranged(state, rng)
        seat = state.to_move
        assert seat is not None
        assert seat_view(variant, seat) == seat_view(state, seat)
        assert choice(variant, seed=7) == choice(state, seed=7)


def test_a_bot_that_read_the_hidden_cards_would_fail_that_test() -> None:
    # The positions and their variants are different enough that peeking shows: a bot dealt
    # the real hidden cards chooses differently in many of them.
    rng = random.Random(11)
    differ = 0
    for state in positions(4, 3):
        variant = with_hidden_cards_rearranged(state, rng)
        seat = state.to_move
        assert seat is not None
        peeks = [PeekingBot(random.Random(7), QUICK, s).choose(seat_view(s, seat)) for s in (state, variant)]
        differ += peeks[0] != peeks[1]
    assert differ >= 5


def test_a_determinization_deals_exactly_the_unseen_cards_in_the_counted_sizes() -> None:
    rng = random.Random(3)
    for state in positions(2, 5):
        seat = state.to_move
        assert seat is not None
        opponent = other(seat)
        view = seat_view(state, seat)
        world = deal(public_state(view), view, unseen_cards(view), rng)
        assert Counter(world.hands[seat]) == Counter(state.hands[seat])
        assert sorted(world.piles[seat]) == sorted(state.piles[seat])  # our own pile: known cards
        assert sorted(world.hands[opponent] + world.piles[opponent]) == sorted(
            state.hands[opponent] + state.piles[opponent]
        )
        assert len(world.hands[opponent]) == len(state.hands[opponent])
        assert len(world.piles[opponent]) == len(state.piles[opponent])
        public = ("board", "hold", "voyages", "dragon", "captured", "points", "turn", "last_turn")
        assert all(getattr(world, name) == getattr(state, name) for name in public)
        everywhere = [
            c for s in (world.hands, world.piles, world.board, world.captured) for v in s.values() for c in v
        ]
        everywhere += world.hold + [c for ships in world.voyage_ships for c in ships]
        assert sorted(everywhere) == sorted(ALL_CARDS)


def test_a_determinization_keeps_the_card_put_back_on_top_of_the_own_pile() -> None:
    state, log = swap_game()  # b lost the dragon and put b03 back on its pile
    view = seat_view(state, "b", log)
    for seed in range(5):
        world = deal(public_state(view), view, unseen_cards(view), random.Random(seed))
        assert world.piles["b"][0] == "b03"
        assert sorted(world.piles["b"]) == sorted(state.piles["b"])


# --- legal, reproducible, within budget --------------------------------------------------------------


@pytest.mark.parametrize("spec", OPTION_SPECS)
def test_the_search_bot_only_picks_legal_plays(spec: dict[str, object]) -> None:
    table = random.Random(1)
    bot = quick_bot(seed=1, budget=Budget(iterations=1))
    state = state_from_start(start_game(table, resolve_options(spec)))
    while not state.over:
        assert state.to_move is not None
        play = bot.choose(seat_view(state, state.to_move))
        assert play in legal_plays(state)
        apply_events(state, decide(state, play, table))


def test_the_same_seed_makes_the_same_choices() -> None:
    for state in positions(2, 7):
        assert choice(state, seed=4) == choice(state, seed=4)


def test_the_same_seed_plays_the_same_game() -> None:
    seats: dict[Seat, str] = {"a": "medium", "b": "greedy"}
    budget = Budget(iterations=2)
    assert play_game(seats, "same", "a", budget=budget)[1] == play_game(seats, "same", "a", budget=budget)[1]


@pytest.mark.parametrize("iterations", [1, 4, 9])
def test_an_iteration_budget_is_spent_exactly(iterations: int) -> None:
    for state in positions(1, 10):
        assert state.to_move is not None
        bot = quick_bot(budget=Budget(iterations=iterations))
        bot.choose(seat_view(state, state.to_move))
        assert bot.iterations_done == (iterations if len(legal_plays(state)) > 1 else 0)


def test_a_time_budget_still_deals_its_minimum() -> None:
    state = next(iter(positions(1, 10)))
    assert state.to_move is not None
    bot = quick_bot(budget=Budget(ms=0.0, min_iterations=2))
    bot.choose(seat_view(state, state.to_move))
    assert bot.iterations_done == 2


def test_the_levels_are_registered_with_their_budgets() -> None:
    for name in ("strong", "medium"):
        bot = make_bot(name, random.Random(0))
        assert isinstance(bot, SearchBot)
        assert bot.budget == LEVELS[name]
    assert LEVELS["medium"].iterations < LEVELS["strong"].iterations  # type: ignore[operator]


def test_a_budget_needs_a_limit() -> None:
    with pytest.raises(ValueError, match="budget"):
        SearchBot(random.Random(0), Budget())


# --- plays well ---------------------------------------------------------------------------------------


def test_the_best_capture_is_what_the_best_play_gains() -> None:
    for state in positions(3, 2):
        seat = state.to_move
        assert seat is not None
        assert best_capture(state, seat) == max(lead_gained(state, play) for play in legal_plays(state))


def test_on_the_last_turn_it_takes_the_stones_and_the_dragon_that_win() -> None:
    # Four behind: the chests (3) would lose, the stones (2) with the dragon (3) win by one.
    state = scenario(
        hand_a=["PR1", "FD2", "DW1", "SH", "HE1"],
        board={"chest": ["CH3"], "stone_dragon": ["PD2"]},
        points={"a": 20, "b": 24},
        last_turn=11,
    )
    assert choice(state) == Play((state.hands["a"][0],), "stones")


def test_it_takes_the_stones_to_keep_the_dragon_rather_than_a_few_chests() -> None:
    # Holding the dragon: the chests gain 3, but a princess of the opponent would then take
    # the stone and the dragon (8 points of margin). Taking the stone keeps the dragon safe.
    state = scenario(
        hand_a=["PR1", "SH", "DW1", "HE1", "HU1"],
        board={"chest": ["CH3"], "stone_dragon": ["PD2"]},
        dragon="a",
    )
    assert choice(state, budget=Budget(iterations=20)) == Play((state.hands["a"][0],), "stones")


def test_medium_beats_random_clearly() -> None:
    wins = 0
    for i in range(12):
        state, _ = play_game({"a": "medium", "b": "random"}, f"strong-duel:{i}", SEATS[i % 2], budget=QUICK)
        wins += state.winner == "a"
    assert wins >= 11


# --- the selfplay command ---------------------------------------------------------------------------


def test_a_match_in_two_processes_plays_the_same_games_as_in_one() -> None:
    seats: dict[Seat, str] = {"a": "greedy", "b": "random"}
    one = run_match(seats, "jobs", 6, records=True)
    two = run_match(seats, "jobs", 6, jobs=2, records=True)
    assert two.records == one.records
    assert [s.wins for s in two.stats.values()] == [s.wins for s in one.stats.values()]
    assert [len(s.move_seconds) for s in two.stats.values()] == [
        len(s.move_seconds) for s in one.stats.values()
    ]


def test_selfplay_takes_a_search_budget_and_processes(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["selfplay", "--bots", "strong,random", "--games", "2", "--iterations", "1", "--jobs", "2"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "2 games, seed 0, preset official, first seat alternating, 2 processes, "
        "search budget 1 iterations / None ms"
    )
    assert lines[1].startswith("  seat a   strong: ")
