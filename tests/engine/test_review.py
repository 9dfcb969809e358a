"""The computer's review: blind to what the reviewed player could not see, reproducible, and
marking the plays that cost the chance to win by the thresholds."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from engine import events as ev
from engine.bots import RandomBot
from engine.cards import Seat, other
from engine.events import AnyEvent, LogEvent
from engine.replay import apply_events, state_from_start
from engine.review import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    TurnReview,
    mark_of,
    review_log,
    review_turn,
    summarize,
)
from engine.rules import Play, decide, legal_plays, start_game
from engine.search import Budget, SearchBot, public_state, unseen_cards
from engine.selfplay import play_game
from engine.state import State
from engine.visibility import SeatView, seat_view
from tests.engine.builders import scenario
from tests.engine.test_strong import positions

QUICK = Budget(iterations=4)
OPENERS = (ev.CARDS_PLAYED, ev.TURN_PASSED)


def random_game(seed: str) -> list[AnyEvent]:
    _, log = play_game({"a": "random", "b": "random"}, seed, "a")
    return log


# --- SearchBot.evaluate shares choose's search ---------------------------------------------------


class ChooseAsBefore(SearchBot):
    """``SearchBot.choose`` as it was written before ``evaluate`` shared its loop, kept here to
    prove that sharing it changed no choice."""

    def choose(self, view: SeatView) -> Play:
        plays = view.legal
        if len(plays) == 1:
            return plays[0]
        unseen = unseen_cards(view)
        base = public_state(view)
        cards_left = sum(view.hand_sizes.values()) + sum(view.pile_sizes.values())
        scale = self.tuning.scale_base + self.tuning.scale_per_card * math.sqrt(cards_left)
        wins = [0.0] * len(plays)
        margins = [0.0] * len(plays)
        done = 0
        while self.budget.iterations is None or done < self.budget.iterations:
            world = self._deal(base, view, unseen)
            for i, play in enumerate(plays):
                win, lead = self._value(world, play, view.seat, scale)
                wins[i] += win
                margins[i] += lead
            done += 1
        keys = [self._key(outcome) for outcome in zip(wins, margins, strict=True)]
        return plays[max(range(len(plays)), key=keys.__getitem__)]


def test_choose_makes_the_same_plays_as_before_evaluate_shared_its_search() -> None:
    compared = 0
    for i, state in enumerate(positions(6, 2)):
        seat = state.to_move
        assert seat is not None
        view = seat_view(state, seat)
        now = SearchBot(random.Random(i), QUICK).choose(view)
        before = ChooseAsBefore(random.Random(i), QUICK).choose(view)
        assert now == before
        compared += len(view.legal) > 1
    assert compared >= 50


def test_the_play_evaluate_prefers_is_the_one_choose_makes() -> None:
    for i, state in enumerate(positions(4, 3)):
        seat = state.to_move
        assert seat is not None
        view = seat_view(state, seat)
        if len(view.legal) == 1:
            continue
        bot = SearchBot(random.Random(i), QUICK)
        assert bot.preferred(bot.evaluate(view)).play == SearchBot(random.Random(i), QUICK).choose(view)


def test_evaluate_gives_every_legal_play_a_chance_between_nought_and_one() -> None:
    state = next(iter(positions(1, 5)))
    assert state.to_move is not None
    view = seat_view(state, state.to_move)
    evaluations = SearchBot(random.Random(1), QUICK).evaluate(view)
    assert [e.play for e in evaluations] == list(view.legal)
    assert all(0.0 <= e.chance <= 1.0 for e in evaluations)


# --- marks --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("loss", "mark"),
    [
        (0.0, None),
        (9.9, None),
        (10.0, INACCURACY),
        (19.9, INACCURACY),
        (20.0, MISTAKE),
        (34.9, MISTAKE),
        (35.0, BLUNDER),
        (100.0, BLUNDER),
    ],
)
def test_a_loss_gets_the_mark_of_the_highest_threshold_it_reaches(loss: float, mark: str | None) -> None:
    assert mark_of(loss) == mark


def test_the_loss_is_the_chance_the_play_made_gave_away_in_points() -> None:
    reviews = review_log(random_game("loss"), "loss", QUICK)
    for r in reviews:
        if r.best_chance is None or r.played_chance is None:
            continue
        assert r.loss == round(max(0.0, r.best_chance - r.played_chance) * 100, 1)
        assert r.mark == mark_of(r.loss)


def test_a_turn_with_a_single_legal_play_gets_no_mark() -> None:
    state = scenario(hand_a=["DW3"])
    state.hands["a"] = state.hands["a"][:1]  # one dwarf: the one play there is
    assert len(legal_plays(state)) == 1
    opener = ev.cards_played("a", list(state.hands["a"]), "dwarf", None)
    turn = review_turn(state, [], opener, 1, "forced", QUICK)
    assert (turn.mark, turn.loss, turn.best_chance, turn.choices) == (None, 0.0, None, 1)


def test_the_summary_averages_the_turns_with_a_choice_and_counts_each_mark() -> None:
    def turn(seat: Any, loss: float, choices: int = 3) -> TurnReview:
        return TurnReview(1, seat, Play(()), Play(()), 0.5, 0.5, choices, loss, mark_of(loss))

    summary = summarize(
        [turn("a", 0.0), turn("a", 12.0), turn("a", 36.0), turn("a", 0.0, choices=1), turn("b", 21.0)]
    )
    assert summary["a"].turns == 3
    assert summary["a"].average_loss == 16.0
    assert (summary["a"].inaccuracies, summary["a"].mistakes, summary["a"].blunders) == (1, 0, 1)
    assert (summary["b"].average_loss, summary["b"].mistakes) == (21.0, 1)


# --- reproducible, finished only ------------------------------------------------------------------


def test_the_same_game_gets_the_same_review_twice() -> None:
    log = random_game("twice")
    assert review_log(log, "twice", QUICK) == review_log(log, "twice", QUICK)


def test_the_review_is_seeded_by_the_game_not_by_chance() -> None:
    log = random_game("seeded")
    chances = {
        seed: [r.best_chance for r in review_log(log, seed, Budget(iterations=2))] for seed in ("x", "y")
    }
    assert chances["x"] != chances["y"]


def test_every_turn_of_the_game_is_reviewed_in_order() -> None:
    log = random_game("every")
    openers: list[LogEvent] = [e for e in log if e["kind"] in OPENERS]
    reviews = review_log(log, "every", QUICK)
    assert [r.number for r in reviews] == list(range(1, len(openers) + 1))
    assert [r.seat for r in reviews] == [e["seat"] for e in openers]


def test_a_game_that_is_not_over_is_not_reviewed() -> None:
    log = random_game("running")
    with pytest.raises(ValueError, match="finished"):
        review_log(log[: len(log) // 2], "running", QUICK)


# --- hidden information ---------------------------------------------------------------------------


def opener_indices(log: list[AnyEvent]) -> list[int]:
    return [i for i, e in enumerate(log) if e["kind"] in OPENERS]


def seat_of(opener: LogEvent) -> Seat:
    """Who played a turn's opener (cards played or a pass: both carry the seat)."""
    seat: Seat = opener["seat"]
    return seat


def state_before(log: list[AnyEvent], index: int) -> State:
    state = state_from_start(log[0])
    apply_events(state, log[1:index])
    return state


def with_unseen_cards_moved(log: list[AnyEvent], number: int, rng: random.Random) -> list[AnyEvent]:
    """Another game: the same plays up to turn ``number`` and including it, from a deal where
    every card its player had not seen by then lies elsewhere (the opponent's hand and pile
    mixed, the own pile reordered); then random plays to the end. Cards put back on losing the
    dragon stay where they were, so each play before the turn is still legal."""
    index = opener_indices(log)[number - 1]
    seat = seat_of(log[index])
    opponent = other(seat)
    before = state_before(log, index)
    returned = {e["returned"] for e in log[:index] if e["kind"] == ev.DRAGON_TRANSFERRED}
    movable = {
        opponent: (set(before.hands[opponent]) | set(before.piles[opponent])) - returned,
        seat: set(before.piles[seat]) - returned,
    }
    deal: LogEvent = log[0]
    decks = {s: list(cards) for s, cards in deal["decks"].items()}
    for s, cards in movable.items():
        places = [i for i, card in enumerate(decks[s]) if card in cards]
        shuffled = [decks[s][i] for i in places]
        rng.shuffle(shuffled)
        for place, card in zip(places, shuffled, strict=True):
            decks[s][place] = card
    start = start_game(decks=decks, first=deal["first"], options=state_from_start(log[0]).options)
    variant: list[AnyEvent] = [start]
    state = state_from_start(start)
    table = random.Random(f"variant:{number}")
    plays = [_play_of(log, i) for i in opener_indices(log)[:number]]
    while not state.over:
        seat_to_move = state.to_move
        assert seat_to_move is not None
        play = plays.pop(0) if plays else RandomBot(table).choose(seat_view(state, seat_to_move, variant))
        produced = decide(state, play, table)
        apply_events(state, produced)
        variant.extend(produced)
    return variant


def _play_of(log: list[AnyEvent], index: int) -> Play:
    opener: LogEvent = log[index]
    if opener["kind"] == ev.TURN_PASSED:
        return Play(())
    chain = log[index : index + 8]
    returned = next((e["returned"] for e in chain if e["kind"] == ev.DRAGON_TRANSFERRED), None)
    return Play(tuple(opener["cards"]), opener["choice"], returned=returned)


@pytest.mark.parametrize("number", [9, 20, 31])
def test_the_review_of_a_turn_is_the_same_whatever_the_cards_its_player_could_not_see(number: int) -> None:
    log = random_game(f"hidden:{number}")
    variant = with_unseen_cards_moved(log, number, random.Random(number))
    index = opener_indices(log)[number - 1]
    seat = seat_of(log[index])
    ours, theirs = state_before(log, index), state_before(variant, index)
    # The two games differ in what the player could not see, and only there.
    assert ours.hands[other(seat)] != theirs.hands[other(seat)]
    assert seat_view(ours, seat, log[:index]) == seat_view(theirs, seat, variant[:index])
    reviews = {r.number: r for r in review_log(log, "one game id", QUICK)}
    variant_reviews = {r.number: r for r in review_log(variant, "one game id", QUICK)}
    for n in range(1, number + 1):
        if reviews[n].seat == seat:
            assert variant_reviews[n] == reviews[n], n


def test_a_review_that_read_the_hidden_cards_would_fail_that_test(monkeypatch: pytest.MonkeyPatch) -> None:
    # The variants differ enough that peeking shows: a review whose search is dealt the real
    # hidden cards judges the same turns differently.
    from engine import review as review_module

    class Peeking(SearchBot):
        state: State

        def _deal(self, base: State, view: SeatView, unseen: dict[Seat, list[str]]) -> State:
            world = base.copy()
            world.hands[other(view.seat)] = list(self.state.hands[other(view.seat)])
            world.piles = {s: list(cards) for s, cards in self.state.piles.items()}
            return world

    real_review_turn = review_module.review_turn

    def peeking_turn(state: State, *args: Any) -> TurnReview:
        def make(rng: random.Random, budget: Budget) -> SearchBot:
            bot = Peeking(rng, budget)
            bot.state = state
            return bot

        monkeypatch.setattr(review_module, "SearchBot", make)
        return real_review_turn(state, *args)

    monkeypatch.setattr(review_module, "review_turn", peeking_turn)
    differ = 0
    for number in (9, 20, 31):
        log = random_game(f"hidden:{number}")
        variant = with_unseen_cards_moved(log, number, random.Random(number))
        ours = review_module.review_log(log, "one game id", QUICK)[number - 1]
        theirs = review_module.review_log(variant, "one game id", QUICK)[number - 1]
        differ += ours != theirs
    assert differ >= 2


# --- bounded --------------------------------------------------------------------------------------


def test_the_review_budget_counts_determinizations_not_milliseconds() -> None:
    from engine.review import REVIEW_BUDGET

    assert REVIEW_BUDGET.ms is None
    assert REVIEW_BUDGET.iterations
