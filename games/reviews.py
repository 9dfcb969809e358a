"""The computer's review of a finished game (engine/review.py), stored as a projection of its
log: ``GameReview`` with the per-seat summary and one ``TurnReview`` per turn. Written by the
Celery task queued when a game ends, rebuilt by ``manage.py review_game``; read by the history
page and the end screen, and only ever for a finished game, since during play it would tell a
player what the search thinks of his opponent's chances."""

from __future__ import annotations

import random
import time
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy

from core.dbclock import db_ago, db_now
from engine import AnyEvent, Event, Play, State, apply_events, decide
from engine import events as ev
from engine.cards import CARD_TYPE
from engine.review import TurnReview as EngineTurn
from engine.review import review_log, summarize
from engine.search import Budget
from games import event_log, history
from games.models import Game, GameReview, ReviewClaim, TurnReview
from games.play_links import play_label

# A review takes a minute or two of a worker's CPU: a claim older than this belongs to a worker
# that died mid-review, and the next delivery or sweep takes it over.
CLAIM_TIMEOUT = timedelta(minutes=10)


def game_review_build(*, game: Game, iterations: int | None = None) -> GameReview | None:
    """Review ``game`` and replace its review rows, all at once: running it again (a task
    delivered twice, the command) rebuilds the same rows. None, and nothing written, for a
    game that is not finished. The search is seeded by the game's id, so the same game gets
    the same review; the CPU it took is stored beside it."""
    if game.status != Game.Status.FINISHED:
        return None
    budget = Budget(iterations=iterations or settings.REVIEW_ITERATIONS)
    log = event_log.read_log(game)
    began = time.process_time()
    turns = review_log(log, seed=game.pk, budget=budget)
    cpu = time.process_time() - began
    summary = {seat: asdict(s) for seat, s in summarize(turns).items()}
    with transaction.atomic():
        TurnReview.objects.filter(game=game).delete()
        TurnReview.objects.bulk_create([_row(game, turn) for turn in turns])
        review, _ = GameReview.objects.update_or_create(
            game=game,
            defaults={
                "summary": summary,
                "iterations": budget.iterations,
                "cpu_seconds": round(cpu, 3),
                "reviewed_at": timezone.now(),
            },
        )
    return review


def game_review_once(*, game: Game) -> GameReview | None:
    """Review ``game`` unless it is reviewed already or another worker is reviewing it: the
    task delivered twice, a sweep that queued it again or two beats' sweeps compute it
    once. None if nothing was computed. A review that fails gives its claim
    back, for the next delivery or sweep to try at once."""
    if game.status != Game.Status.FINISHED or GameReview.objects.filter(game=game).exists():
        return None
    if not review_claim(game.pk):
        return None
    try:
        return game_review_build(game=game)
    except BaseException:
        ReviewClaim.objects.filter(game_id=game.pk).delete()
        raise


def review_claim(game_id: str) -> bool:
    """Take a game's review for computing; False if another worker holds a fresh claim. Times
    are the database's, so a worker whose clock runs fast does not take a fresh claim for a
    stale one. The claim stays once the review is written, so that a worker that found no
    review a moment before it was written cannot claim and compute it again."""
    try:
        with transaction.atomic():
            ReviewClaim.objects.create(game_id=game_id, claimed_at=db_now())
        return True
    except IntegrityError:
        stale = ReviewClaim.objects.filter(game_id=game_id, claimed_at__lt=db_ago(CLAIM_TIMEOUT))
        return bool(stale.update(claimed_at=db_now()))


def game_review_build_by_id(*, game_id: str) -> bool:
    """The task's entry: False if the game is gone, not finished, reviewed or being reviewed."""
    game = Game.objects.filter(pk=game_id).first()
    return game is not None and game_review_once(game=game) is not None


def _row(game: Game, turn: EngineTurn) -> TurnReview:
    return TurnReview(
        game=game,
        number=turn.number,
        seat=turn.seat,
        played_cards=list(turn.played.cards),
        played_choice=turn.played.choice or "",
        best_cards=list(turn.best.cards),
        best_choice=turn.best.choice or "",
        best_chance=turn.best_chance,
        played_chance=turn.played_chance,
        choices=turn.choices,
        loss=turn.loss,
        mark=turn.mark or "",
    )


def unreviewed_games(*, finished_before: datetime, finished_after: datetime, limit: int) -> list[str]:
    """Ids of finished games without a review (their task was lost), for the beat sweep."""
    claimed = ReviewClaim.objects.filter(claimed_at__gte=db_ago(CLAIM_TIMEOUT)).values("game_id")
    games = Game.objects.filter(
        status=Game.Status.FINISHED,
        finished_at__lt=finished_before,
        finished_at__gt=finished_after,
        review__isnull=True,
    ).exclude(pk__in=claimed)  # being reviewed now
    return list(games.values_list("pk", flat=True)[:limit])


# --- what the pages show (only for a finished game) -------------------------------------------

MARK_LABELS = {
    TurnReview.Mark.INACCURACY: gettext_lazy("Inaccuracy"),
    TurnReview.Mark.MISTAKE: gettext_lazy("Mistake"),
    TurnReview.Mark.BLUNDER: gettext_lazy("Blunder"),
}


def turn_reviews(game: Game) -> dict[int, TurnReview]:
    """A finished game's reviewed turns by number: one query, and none during play (empty)."""
    if game.status != Game.Status.FINISHED:
        return {}
    return {row.number: row for row in TurnReview.objects.filter(game=game)}


def mark_badge(row: TurnReview | None) -> dict[str, Any] | None:
    """The badge of a marked turn: its mark, its words and the chance lost, in whole percent."""
    if row is None or not row.mark:
        return None
    return {"mark": row.mark, "label": MARK_LABELS[TurnReview.Mark(row.mark)], "loss": round(row.loss)}


def turn_note(
    row: TurnReview | None, faces: dict[str, dict[str, Any]], values: dict[str, int]
) -> dict[str, Any] | None:
    """What the history says of one turn: its badge, each play's chance to win and, for a
    marked turn, the better play's cards. None for a turn that offered no choice."""
    if row is None or row.best_chance is None or row.played_chance is None:
        return None
    best = [faces[c] for c in row.best_cards]
    return {
        "badge": mark_badge(row),
        "played_chance": round(row.played_chance * 100),
        "best_chance": round(row.best_chance * 100),
        "best_cards": best,
        "best_label": play_label(row.best_cards, row.best_choice or None, values),
        "agrees": _same_cards(row, values),
    }


def _same_cards(row: TurnReview, values: dict[str, int]) -> bool:
    """Whether the play made is the computer's own (other cards of the same type and value
    play exactly alike)."""

    def key(cards: list[str], choice: str) -> tuple[list[tuple[str, int]], str]:
        return sorted((CARD_TYPE[c], values[c]) for c in cards), choice

    return key(row.played_cards, row.played_choice) == key(row.best_cards, row.best_choice)


def better_position(log: list[Event], opener: int, row: TurnReview) -> tuple[State, list[AnyEvent]]:
    """The position after the better play of a reviewed turn instead of the play made, and the
    events it would have caused, from the state before the turn's play (``log[opener]``). Only
    for a finished game, whose every card is shown anyway; the draws are the real piles', and
    the card put back on losing the dragon comes from a generator seeded by the game."""
    state = history.state_at(log, opener)
    events = decide(state, Play(tuple(row.best_cards), row.best_choice or None), random.Random(row.game_id))
    apply_events(state, events)
    return state, events


def end_summary(game: Game, names: dict[str, str]) -> dict[str, Any] | None:
    """The end screen's review: per player the average chance lost per turn and the count of
    each mark, and the first marked turn to open the history at; ``pending`` until the task
    has written it. None during play."""
    if game.status != Game.Status.FINISHED or game.end_reason == ev.ABORTED:
        return None  # an aborted game had no turn to review
    review = GameReview.objects.filter(game=game).first()
    if review is None:
        return {"pending": True}
    if not any(review.summary[seat]["turns"] for seat in ("a", "b")):
        return None  # no turn offered a choice: nothing to say
    first = TurnReview.objects.filter(game=game).exclude(mark="").order_by("number").first()
    return {
        "pending": False,
        "seats": [{"seat": seat, "name": names[seat], **review.summary[seat]} for seat in ("a", "b")],
        "first_marked": first.number if first is not None else None,
    }
