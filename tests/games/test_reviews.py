"""The computer's review of a finished game: queued when the game ends, a projection rebuilt by
its command, the same for the same game, and nowhere to be seen while the game runs."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from games import reviews, services, tasks
from games.models import Game, GameReview, TurnReview
from tests.support.tables import play_first_legal, play_to_end, start


def _finished(alice: Any, bob: Any) -> Game:
    game = start(alice, bob)
    play_to_end(game)  # inside the test's transaction: no task runs on commit
    return game


def _rows(game: Game) -> list[tuple[Any, ...]]:
    return list(
        TurnReview.objects.filter(game=game)
        .order_by("number")
        .values_list(
            "number", "seat", "best_cards", "best_choice", "best_chance", "played_chance", "loss", "mark"
        )
    )


def _reviewed(alice: Any, bob: Any) -> Game:
    game = _finished(alice, bob)
    reviews.game_review_build(game=game)
    return game


def test_the_review_runs_when_a_game_ends_and_not_before(alice, bob, django_capture_on_commit_callbacks):
    game = start(alice, bob)
    for _ in range(8):
        with django_capture_on_commit_callbacks(execute=True):
            play_first_legal(game)
        assert not GameReview.objects.filter(game=game).exists()
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game=game, user=alice)
    review = GameReview.objects.get(game=game)
    assert TurnReview.objects.filter(game=game).count() == 8
    assert review.iterations == 2
    assert review.cpu_seconds >= 0


def test_the_review_is_queued_by_name_once_the_end_has_committed(
    alice, bob, monkeypatch, django_capture_on_commit_callbacks
):
    queued: list[str] = []
    monkeypatch.setattr(services, "_queue_review", queued.append)
    game = start(alice, bob)
    while game.status == Game.Status.ACTIVE:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            play_first_legal(game)
    assert queued == []  # nothing ran inside the play's transaction
    for callback in callbacks:
        callback()
    assert queued == [game.pk]


def test_the_end_screen_says_review_in_progress_until_the_worker_has_written_it(
    alice, bob, client, monkeypatch, django_capture_on_commit_callbacks
):
    """Its poll (an htmx request) only reads: the review is the worker's, queued at the end
    whoever is watching, and the poll shows it once written."""
    queued: list[str] = []
    monkeypatch.setattr(services, "_queue_review", queued.append)  # the worker's queue
    game = start(alice, bob)
    play_first_legal(game)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game=game, user=bob)
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/").content.decode()
    polled = client.get(f"/games/{game.pk}/", HTTP_HX_REQUEST="true").content.decode()

    assert queued == [game.pk]
    assert "Review in progress" in page
    assert "Review in progress" in polled
    assert not GameReview.objects.filter(game=game).exists()  # the poll wrote nothing
    assert tasks.review_game(game.pk) is True  # the worker
    written = client.get(f"/games/{game.pk}/", HTTP_HX_REQUEST="true").content.decode()
    assert "Review in progress" not in written
    assert tasks.review_game(game.pk) is False  # delivered twice, computed once
    assert GameReview.objects.filter(game=game).count() == 1


def test_a_running_game_is_not_reviewed(alice, bob):
    game = start(alice, bob)
    for _ in range(10):
        play_first_legal(game)
    assert reviews.game_review_build(game=game) is None
    assert tasks.review_game(game.pk) is False
    assert not GameReview.objects.exists()
    assert not TurnReview.objects.exists()


def test_the_same_game_gets_the_same_review_twice(alice, bob):
    game = _reviewed(alice, bob)
    first = _rows(game)
    reviews.game_review_build(game=game)
    assert _rows(game) == first
    assert first


def test_the_command_rebuilds_the_review_from_the_log(alice, bob, capsys):
    game = _reviewed(alice, bob)
    expected = _rows(game)
    TurnReview.objects.filter(game=game, number=3).update(loss=99.0, mark="blunder")
    TurnReview.objects.filter(game=game, number=5).delete()

    call_command("review_game", "--", game.pk)

    assert _rows(game) == expected
    assert f"game {game.pk}: reviewed in" in capsys.readouterr().out


def test_the_command_reviews_every_finished_game_with_all(alice, bob):
    games = [_finished(alice, bob), _finished(alice, bob)]
    running = start(alice, bob)
    call_command("review_game", "--all")
    assert set(GameReview.objects.values_list("game_id", flat=True)) == {g.pk for g in games}
    assert not TurnReview.objects.filter(game=running).exists()


def test_the_command_refuses_a_running_or_unknown_game(alice, bob):
    running = start(alice, bob)
    with pytest.raises(CommandError, match="not finished"):
        call_command("review_game", "--", running.pk, "nosuchgame")
    with pytest.raises(CommandError):
        call_command("review_game")


def test_a_game_against_the_computer_is_reviewed_like_any_other(alice, django_capture_on_commit_callbacks):
    from games import challenges

    game = challenges.game_create(creator=alice, opponent="bot:random", rules={"first_player": "a"})
    while game.status == Game.Status.ACTIVE:
        if game.to_move == "a":
            play_first_legal(game)
        else:
            services.bot_play_turn(game_id=game.pk)
        game.refresh_from_db()
    assert reviews.game_review_build(game=game) is not None
    assert set(TurnReview.objects.filter(game=game).values_list("seat", flat=True)) == {"a", "b"}


def test_the_sweep_reviews_finished_games_whose_task_was_lost(alice, bob, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    game = _finished(alice, bob)
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - timedelta(hours=1))
    assert tasks.sweep_reviews() == 1
    assert GameReview.objects.filter(game=game).exists()
    assert tasks.sweep_reviews() == 0


def test_the_summary_counts_the_marks_of_the_rows(alice, bob):
    game = _reviewed(alice, bob)
    summary = GameReview.objects.get(game=game).summary
    for seat in ("a", "b"):
        marks = list(TurnReview.objects.filter(game=game, seat=seat).values_list("mark", flat=True))
        assert summary[seat]["blunders"] == marks.count("blunder")
        assert summary[seat]["mistakes"] == marks.count("mistake")
        assert summary[seat]["inaccuracies"] == marks.count("inaccuracy")


# --- the pages -----------------------------------------------------------------------------------

REVIEW_MARKUP = re.compile(r"review-note|review-summary|badge-|Review in progress|show-better|better-play")


def test_during_play_the_pages_hold_no_review(client, alice, bob):
    game = start(alice, bob)
    for _ in range(12):
        play_first_legal(game)
    client.force_login(alice)
    for url in (
        f"/games/{game.pk}/",
        f"/games/{game.pk}/history/",
        f"/games/{game.pk}/history/?turn=5&better=1",
    ):
        body = client.get(url).content.decode()
        assert not REVIEW_MARKUP.search(body), url


def test_the_end_screen_says_the_review_is_in_progress_until_it_is_written(client, alice, bob):
    game = _finished(alice, bob)
    client.force_login(alice)
    assert "Review in progress" in client.get(f"/games/{game.pk}/").content.decode()
    reviews.game_review_build(game=game)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "Review in progress" not in page
    assert "The computer's review" in page
    assert "Chance lost per turn, on average" in page


def test_the_end_screen_shows_each_players_average_loss(client, alice, bob):
    game = _reviewed(alice, bob)
    summary = GameReview.objects.get(game=game).summary
    client.force_login(bob)
    page = client.get(f"/games/{game.pk}/").content.decode()
    for seat in ("a", "b"):
        assert f"{summary[seat]['average_loss']:.1f}%" in page


def _marked(game: Game) -> TurnReview:
    row = TurnReview.objects.filter(game=game).exclude(mark="").order_by("-loss").first()
    assert row is not None, "this game's review marked no turn: play another deal"
    return row


def test_the_history_marks_a_turn_and_shows_the_better_play(client, alice, bob):
    game = _reviewed(alice, bob)
    row = _marked(game)
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/history/?turn={row.number}").content.decode()
    assert f'data-mark="{row.mark}"' in page
    assert f"The play made cost {round(row.loss)}% of the chance to win." in page
    for card in row.best_cards:
        assert f'data-card="{card}"' in page.split('class="better-play"')[1].split("</div>")[0]
    assert page.count(f"badge badge-{row.mark}") >= 2  # the log's badge and the turn's


def test_the_better_play_is_shown_on_the_board_from_the_position_before_the_turn(client, alice, bob):
    game = _reviewed(alice, bob)
    row = _marked(game)
    client.force_login(alice)
    made = client.get(f"/games/{game.pk}/history/?turn={row.number}").content.decode()
    better = client.get(f"/games/{game.pk}/history/?turn={row.number}&better=1").content.decode()
    assert "the better play" in better
    assert 'id="show-played"' in better
    assert made != better
    fresh = set(re.findall(r'class="card card-\w+ fresh"[^>]*data-card="(\w+)"', better))
    assert fresh <= set(row.best_cards)
    assert fresh


def test_the_better_play_is_offered_only_for_a_marked_turn(client, alice, bob):
    game = _reviewed(alice, bob)
    unmarked = TurnReview.objects.filter(game=game, mark="", choices__gt=1).first()
    assert unmarked is not None
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/history/?turn={unmarked.number}&better=1").content.decode()
    assert "the better play" not in page
    assert "better-play" not in page
    assert "review-chances" in page


def test_an_aborted_game_shows_no_review(client, alice, bob, django_capture_on_commit_callbacks):
    game = start(alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_time_out(game=game)  # the first move never came: aborted
    game.refresh_from_db()
    assert game.end_reason == "aborted"
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "review-summary" not in page


# --- computed once: duplicate deliveries, two beats' sweeps, a worker that died -----------------


def _counting_searches(monkeypatch) -> list[str]:
    """Record every review search run (engine.review.review_log, as games.reviews calls it)."""
    searched: list[str] = []
    search = reviews.review_log  # type: ignore[attr-defined]  # the name games.reviews calls

    def counted(log: Any, **kwargs: Any) -> Any:
        searched.append(str(kwargs.get("seed")))
        return search(log, **kwargs)

    monkeypatch.setattr(reviews, "review_log", counted)
    return searched


def test_a_review_delivered_twice_while_it_runs_is_computed_once(alice, bob, monkeypatch):
    game = _finished(alice, bob)
    searched = _counting_searches(monkeypatch)
    search = reviews.review_log  # type: ignore[attr-defined]  # the name games.reviews calls
    second: list[bool] = []

    def with_a_second_worker(log: Any, **kwargs: Any) -> Any:
        # The same task, delivered again to another worker while this one searches.
        second.append(tasks.review_game(game.pk))
        return search(log, **kwargs)

    monkeypatch.setattr(reviews, "review_log", with_a_second_worker)
    assert tasks.review_game(game.pk) is True
    assert second == [False]
    assert searched == [game.pk]
    assert tasks.review_game(game.pk) is False  # a late duplicate finds the review
    assert searched == [game.pk]
    assert GameReview.objects.filter(game=game).count() == 1


def test_a_game_being_reviewed_is_not_swept_again(alice, bob):
    from datetime import timedelta

    from django.utils import timezone

    from games.models import ReviewClaim

    game = _finished(alice, bob)
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - timedelta(hours=1))
    assert reviews.review_claim(game.pk)  # a worker is at it
    assert tasks.sweep_reviews() == 0
    assert not GameReview.objects.filter(game=game).exists()
    # That worker died: once its claim is stale, the sweep queues the game and it is reviewed.
    stale = timezone.now() - reviews.CLAIM_TIMEOUT - timedelta(minutes=1)
    ReviewClaim.objects.filter(game=game).update(claimed_at=stale)
    assert tasks.sweep_reviews() == 1
    assert GameReview.objects.filter(game=game).exists()


def test_a_review_that_fails_gives_its_claim_back(alice, bob, monkeypatch):
    game = _finished(alice, bob)

    def broken(log: Any, **kwargs: Any) -> Any:
        raise MemoryError("the worker ran out of memory")

    search = reviews.review_log  # type: ignore[attr-defined]  # the name games.reviews calls
    monkeypatch.setattr(reviews, "review_log", broken)
    with pytest.raises(MemoryError):
        tasks.review_game(game.pk)
    monkeypatch.setattr(reviews, "review_log", search)
    assert tasks.review_game(game.pk) is True  # the retry need not wait for the claim to go stale


def test_a_fresh_claim_holds_against_a_worker_whose_clock_runs_fast(alice, bob, monkeypatch):
    from django.utils import timezone

    game = _finished(alice, bob)
    assert reviews.review_claim(game.pk)
    real_now = timezone.now
    monkeypatch.setattr(timezone, "now", lambda: real_now() + reviews.CLAIM_TIMEOUT * 2)
    assert not reviews.review_claim(game.pk)
    assert tasks.review_game(game.pk) is False
    monkeypatch.undo()
    assert not GameReview.objects.filter(game=game).exists()


def test_a_review_cut_off_by_the_database_is_tried_again_and_written_once(alice, bob, monkeypatch):
    from django.db import OperationalError

    game = _finished(alice, bob)
    build = reviews.game_review_build_by_id
    calls: list[str] = []

    def cut_off_once(*, game_id: str) -> bool:
        calls.append(game_id)
        if len(calls) == 1:
            raise OperationalError("the server closed the connection")  # a failover, say
        return build(game_id=game_id)

    monkeypatch.setattr(reviews, "game_review_build_by_id", cut_off_once)

    tasks.review_game.apply(args=(game.pk,), throw=False)  # as a worker runs it: a retry, not a raise

    assert calls == [game.pk, game.pk]
    assert GameReview.objects.filter(game=game).count() == 1
