"""The end of a game as a moment: the result line in the second person for a player and by
name for a watcher, why the game ended, the rating's move and why it was that large, "Next
game" to the game waiting longest for the player's move, and the review's fragment the
finished page polls (one read while nothing changed, never a write)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import end, reviews, selectors, services
from games.models import Game, GameReview
from ratings.models import Rating
from tests.support.tables import play_first_legal, play_to_end, start


def _resigned(winner: Any, loser: Any, *, plays: int = 6, **extra: Any) -> Game:
    game = start(winner, loser, rules={"first_player": "a"}, **extra)
    for _ in range(plays):
        play_first_legal(game)
    services.game_resign(game=game, user=loser)
    return Game.objects.get(pk=game.pk)


def _page(client: Any, user: Any, game: Game) -> str:
    client.force_login(user)
    page: str = client.get(f"/games/{game.pk}/").content.decode()
    return page


def _scores(game: Game) -> dict[str, int]:
    assert game.scores is not None, "a finished game has its scores"
    return dict(game.scores)


def _headline(page: str) -> str:
    found = re.search(r'<h2 id="result" class="result-line">([^<]*)</h2>', page)
    assert found is not None, "no result line"
    return found[1]


# --- the result line ------------------------------------------------------------------------------


def test_it_tells_the_winner_and_the_loser_in_the_second_person_each_own_score_first(client, alice, bob):
    game = _resigned(alice, bob)
    a, b = _scores(game)["a"], _scores(game)["b"]
    assert _headline(_page(client, alice, game)) == f"You won {a} : {b}"
    page = _page(client, bob, game)
    assert _headline(page) == f"You lost {b} : {a}"
    assert "You resigned." in page


def test_it_names_the_winner_for_a_watcher(client, alice, bob, charlie):
    game = _resigned(alice, bob)
    page = _page(client, charlie, game)
    assert _headline(page) == f"alice won {_scores(game)['a']} : {_scores(game)['b']}"
    assert "bob resigned." in page
    assert "Rematch" not in page


def test_a_draw_reads_as_a_draw_for_everyone():
    game = Game(status=Game.Status.FINISHED, winner="", scores={"a": 30, "b": 30}, end_reason="third_voyage")
    names = {"a": "alice", "b": "bob"}
    assert end.result_line(game, "b", names) == "A draw, 30 : 30"
    assert end.result_line(game, None, names) == "A draw, 30 : 30"
    assert end.outcome(game, "a") == "draw"


def test_equal_points_say_the_great_dragon_decided():
    game = Game(
        status=Game.Status.FINISHED, winner="b", scores={"a": 30, "b": 30}, end_reason="deck_exhausted"
    )
    said = end.reason_line(game, "a", {"a": "alice", "b": "bob"})
    assert said.endswith("ended the game. Equal points: the holder of the Great Dragon wins.")


def test_the_points_table_puts_the_readers_column_first(client, alice, bob):
    game = start(alice, bob)
    play_to_end(game)
    page = _page(client, bob, game)
    header = page.split('class="scores result-scores"')[1].split("</thead>")[0]
    assert header.index("bob") < header.index("alice")
    assert f"<td>{_scores(game)['b']}</td><td>{_scores(game)['a']}</td>" in page.replace("\n", "")


# --- the rating's move --------------------------------------------------------------------------


def test_a_first_rated_game_says_why_the_rating_moved_so_much(client, alice, bob):
    game = _resigned(alice, bob, days_per_turn=3)  # a game with a clock is rated
    page = _page(client, alice, game)
    after = round(Rating.objects.get(user=alice).rating)
    assert f"alice +{after - 1500} → {after}?" in page
    assert "This was your first rated game: the site knew nothing yet of your strength (±350)" in page
    assert "below ±110 it counts as settled" in page
    assert "Rated game:" not in page


def test_a_settled_rating_says_one_game_moves_it_only_a_little(client, alice, bob):
    now = timezone.now()
    for user in (alice, bob):
        Rating.objects.create(user=user, rating=1600, deviation=60, volatility=0.06, games=30, rated_at=now)
    game = _resigned(alice, bob, days_per_turn=3)
    page = _page(client, bob, game)
    assert "Your rating is settled (±60), so one game moves it only a little" in page
    assert "bob −" in page


def test_a_casual_game_says_nothing_of_ratings(client, alice, bob):
    page = _page(client, alice, _resigned(alice, bob))
    assert "Ratings after this game" not in page
    assert "rating-why" not in page


# --- what comes next ----------------------------------------------------------------------------


def test_next_game_is_the_one_that_has_waited_longest_for_the_players_move(alice, bob, charlie):
    now = timezone.now()
    newer = start(alice, bob, rules={"first_player": "a"})
    older = start(charlie, alice, rules={"first_player": "b"})
    theirs = start(alice, charlie, rules={"first_player": "b"})  # charlie's move: not alice's wait
    Game.objects.filter(pk=newer.pk).update(turn_started_at=now - timedelta(hours=1))
    Game.objects.filter(pk=older.pk).update(turn_started_at=now - timedelta(days=2))
    Game.objects.filter(pk=theirs.pk).update(turn_started_at=now - timedelta(days=9))
    assert selectors.next_game_for(alice) == selectors.NextGame(older.pk, 2)
    assert selectors.next_game_for(charlie) == selectors.NextGame(theirs.pk, 1)


def test_no_game_waits_for_a_player_without_running_games(alice, django_assert_num_queries):
    with django_assert_num_queries(1):
        assert selectors.next_game_for(alice) == selectors.NextGame(None, 0)


def test_the_end_screen_offers_the_next_game_and_says_how_many_wait(client, alice, bob, charlie):
    game = _resigned(alice, bob)
    waiting = [start(alice, charlie, rules={"first_player": "a"}) for _ in range(2)]
    page = _page(client, alice, game)
    first = selectors.next_game_for(alice).game_id
    assert first in {g.pk for g in waiting}
    assert re.search(rf'<a class="button next-game" href="/games/{first}/">Next game \(2 waiting\)</a>', page)


def test_with_no_game_waiting_it_leads_to_the_lobby(client, alice, bob):
    page = _page(client, bob, _resigned(alice, bob))
    assert '<a class="button next-game quiet" href="/">Your games</a>' in page
    assert "Next game" not in page


# --- the review arriving ------------------------------------------------------------------------


def test_a_finished_games_page_reads_the_games_waiting_once(client, alice, bob, charlie, monkeypatch):
    """The header counts them and the end screen offers the next: one read serves both, for a
    player and a watcher alike."""
    game = _resigned(alice, bob)
    reads: list[Any] = []
    real = selectors.next_game_for

    def counted(user: Any) -> selectors.NextGame:
        reads.append(user)
        return real(user)

    monkeypatch.setattr(selectors, "next_game_for", counted)
    for reader in (alice, charlie):
        reads.clear()
        _page(client, reader, game)
        assert reads == [reader], reader


def _finished_unreviewed(alice: Any, bob: Any) -> Game:
    game = start(alice, bob)
    play_to_end(game)  # inside the test's transaction: the review task does not run
    return game


def test_the_pending_review_polls_its_fragment_every_three_seconds(client, alice, bob):
    game = _finished_unreviewed(alice, bob)
    page = _page(client, alice, game)
    section = page.split('id="review"')[1].split(">")[0]
    assert f'hx-get="/games/{game.pk}/review/"' in section
    assert 'hx-trigger="every 3s"' in section
    assert "Reload the page in a minute or two to see it." in page  # in <noscript>


def test_the_fragment_answers_nothing_new_with_one_read_and_writes_nothing(client, alice, bob):
    game = _finished_unreviewed(alice, bob)
    client.force_login(alice)
    client.get("/")  # the session is read once; the poll's own cost is what is counted
    with CaptureQueriesContext(connection) as captured:
        answer = client.get(f"/games/{game.pk}/review/", HTTP_HX_REQUEST="true")
    assert answer.status_code == 204
    games_reads = [q["sql"] for q in captured if '"games_' in q["sql"]]
    assert len(games_reads) == 1
    assert all(q["sql"].lstrip().upper().startswith("SELECT") for q in captured)
    assert not GameReview.objects.filter(game=game).exists()


def test_the_fragment_brings_the_review_once_written_and_asks_no_more(client, alice, bob):
    game = _finished_unreviewed(alice, bob)
    reviews.game_review_build(game=game)
    client.force_login(bob)
    answer = client.get(f"/games/{game.pk}/review/", HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    body = answer.content.decode()
    assert body.lstrip().startswith('<section class="review-summary" id="review"')
    assert "Chance lost per turn, on average" in body
    assert "hx-get" not in body


def test_the_fragment_of_a_running_or_unknown_game_shows_nothing(client, alice, bob):
    running = start(alice, bob)
    client.force_login(alice)
    assert client.get(f"/games/{running.pk}/review/").status_code == 204
    assert client.get("/games/no-such-game/review/").status_code == 404


def test_without_javascript_a_reload_shows_the_written_review(client, alice, bob):
    game = _finished_unreviewed(alice, bob)
    assert "Review in progress" in _page(client, alice, game)
    reviews.game_review_build(game=game)
    page = _page(client, alice, game)
    assert "Review in progress" not in page
    assert "Chance lost per turn, on average" in page
