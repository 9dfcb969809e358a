"""Match formats (RULES.md 1.11): `/match X`, `/sumof X` and who begins the next game."""

from __future__ import annotations

import random

import pytest

from engine.match import GameResult, next_first, standing
from engine.rules import STONES
from tests.engine.builders import of_kind, play, scenario


def won(seat: str | None, a: int = 40, b: int = 30, first: str = "a") -> GameResult:
    """A finished game: ``seat`` won (None: a draw) with the given final scores."""
    return GameResult({"a": a, "b": b}, seat, first)


A_WINS = won("a", 45, 30)
B_WINS = won("b", 30, 45)
DRAW = won(None, 41, 41)


# --- /match X -----------------------------------------------------------------------------------


def test_match_is_won_by_the_first_player_to_win_x_games() -> None:
    table = standing("match", 2, [A_WINS, B_WINS, A_WINS])
    assert (table.games, table.wins) == (3, {"a": 2, "b": 1})
    assert (table.over, table.winner) == (True, "a")


def test_match_goes_on_until_someone_has_x_wins() -> None:
    table = standing("match", 2, [A_WINS, B_WINS])
    assert (table.over, table.winner) == (False, None)


def test_match_draws_give_nobody_a_win() -> None:
    table = standing("match", 1, [DRAW, DRAW, DRAW])
    assert table.wins == {"a": 0, "b": 0}
    assert (table.games, table.over, table.winner) == (3, False, None)


def test_match_one_ends_with_the_first_won_game() -> None:
    table = standing("match", 1, [DRAW, B_WINS])
    assert (table.over, table.winner) == (True, "b")


# --- /sumof X -----------------------------------------------------------------------------------


def test_sumof_adds_up_the_scores_and_the_higher_total_wins() -> None:
    table = standing("sumof", 3, [won("a", 50, 20), won("b", 30, 40), won("b", 35, 36)])
    assert table.points == {"a": 115, "b": 96}
    assert table.wins == {"a": 1, "b": 2}
    assert (table.over, table.winner) == (True, "a")


def test_sumof_plays_exactly_x_games() -> None:
    assert standing("sumof", 3, [A_WINS, A_WINS]).over is False
    assert standing("sumof", 3, [A_WINS, A_WINS, DRAW]).over is True


def test_sumof_totals_include_the_dragon_bonus() -> None:
    state = scenario(hand_a=["PR1"], board={"stone_dragon": ["PD2"]}, points={"a": 30, "b": 34}, last_turn=11)
    _, events = play(state, "PR1", STONES)
    ended = of_kind(events, "game_ended")[0]
    table = standing("sumof", 1, [GameResult(ended["scores"], ended["winner"], "a")])
    assert table.points == {"a": 35, "b": 34}
    assert table.winner == "a"


def test_sumof_equal_totals_are_a_draw_by_default() -> None:
    table = standing("sumof", 2, [won("a", 50, 40), won("b", 40, 50)])
    assert table.points == {"a": 90, "b": 90}
    assert (table.over, table.winner) == (True, None)


def test_sumof_game_wins_tiebreak_breaks_equal_totals_by_games_won() -> None:
    results = [won("a", 30, 29), won("a", 30, 29), won("b", 20, 22)]
    assert standing("sumof", 3, results).winner is None
    assert standing("sumof", 3, results, "game_wins").winner == "a"


def test_sumof_game_wins_tiebreak_still_draws_on_equal_wins() -> None:
    results = [won("a", 50, 40), won("b", 40, 50), DRAW]
    table = standing("sumof", 3, results, "game_wins")
    assert (table.over, table.winner) == (True, None)


def test_sumof_does_not_name_a_winner_before_the_last_game() -> None:
    table = standing("sumof", 2, [won("a", 60, 10)])
    assert (table.over, table.winner, table.points) == (False, None, {"a": 60, "b": 10})


@pytest.mark.parametrize(("kind", "target"), [("best_of", 3), ("match", 0), ("sumof", -1)])
def test_a_series_needs_a_known_kind_and_a_positive_target(kind: str, target: int) -> None:
    with pytest.raises(ValueError, match="series"):
        standing(kind, target, [])


# --- who begins the next game -------------------------------------------------------------------


@pytest.mark.parametrize("first", ["a", "b"])
def test_alternate_lets_the_other_player_begin_the_next_game(first: str) -> None:
    other = "b" if first == "a" else "a"
    assert next_first([won("a", first=first)]) == other
    assert next_first([won("b", first=first)], "alternate") == other


def test_loser_starts_lets_the_loser_begin() -> None:
    assert next_first([won("a", first="a")], "loser_starts") == "b"
    assert next_first([won("b", first="a")], "loser_starts") == "a"
    assert next_first([won("b", first="b")], "loser_starts") == "a"


def test_loser_starts_after_a_draw_alternates() -> None:
    assert next_first([won(None, first="a")], "loser_starts") == "b"
    assert next_first([won(None, first="b")], "loser_starts") == "a"


def test_loser_starts_looks_only_at_the_last_game() -> None:
    assert next_first([won("b", first="a"), won("a", first="b")], "loser_starts") == "b"


def test_random_first_player_comes_from_the_seeded_rng() -> None:
    picks = [next_first([A_WINS], "random", random.Random(seed)) for seed in range(40)]
    assert set(picks) == {"a", "b"}
    assert picks == [next_first([A_WINS], "random", random.Random(seed)) for seed in range(40)]
    assert picks[:5] == [("a", "b")[random.Random(seed).randrange(2)] for seed in range(5)]


def test_the_first_game_of_a_match_has_no_next_first_rule() -> None:
    with pytest.raises(ValueError, match="first game"):
        next_first([], "alternate")


def test_an_unknown_next_first_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown"):
        next_first([A_WINS], "winner_starts")
