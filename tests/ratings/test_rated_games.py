"""Ratings as a projection of the games: a rated game's end rates both players once, in the
transaction that ends it (a whole game, a resignation, a time-out); an aborted game, a casual
one and a game against the computer never; rebuild_ratings recomputes the same to the bit and
reports what differs."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from core.errors import Forbidden, InvalidRequest
from games import challenges, services
from games.models import Game
from ratings.glicko import START, Glicko, rate
from ratings.models import Rating, RatingChange
from ratings.selectors import leaderboard, shown_for
from tests.support.tables import play_first_legal, play_to_end, start

pytestmark = pytest.mark.django_db


def _rated(alice, bob, **extra) -> Game:
    return start(alice, bob, days_per_turn=3, **extra)


def _rating(user) -> Glicko:
    return Rating.objects.get(user=user).glicko


def test_a_game_with_a_clock_is_rated_unless_asked_and_one_without_is_casual(alice, bob):
    assert challenges.game_create(creator=alice, opponent="bob", days_per_turn=3).rated
    assert not challenges.game_create(creator=alice, opponent="bob", days_per_turn=3, rated=False).rated
    assert not challenges.game_create(creator=alice, opponent="bob").rated
    assert challenges.game_create(creator=alice, opponent="bob", rated=True).rated


def test_a_bot_game_is_never_rated(alice):
    assert not challenges.game_create(creator=alice, opponent="bot:medium", days_per_turn=3).rated
    with pytest.raises(InvalidRequest) as refused:
        challenges.game_create(creator=alice, opponent="bot:medium", rated=True)
    assert refused.value.code == "bot_not_rated"


def test_a_rated_games_end_rates_both_players_once_as_glicko_2_says(alice, bob):
    game = _rated(alice, bob)
    play_to_end(game)
    game.refresh_from_db()
    score = {"a": 1.0, "b": 0.0}.get(game.winner, 0.5)
    assert _rating(alice) == rate(START, START, score)
    assert _rating(bob) == rate(START, START, 1 - score)
    assert RatingChange.objects.filter(game_id=game.pk).count() == 2
    # A rating is written with the end, in the same transaction: there is no later step that
    # could run twice. Rating the same game again (a replayed call) changes nothing.
    from ratings import services as ratings
    from ratings.services import Result

    assert game.finished_at is not None
    ratings.rate_game(Result(game.pk, alice.pk, bob.pk, score, game.finished_at))
    assert _rating(alice) == rate(START, START, score)
    assert Rating.objects.get(user=alice).games == 1


def test_a_resignation_is_a_loss_and_a_win(alice, bob):
    game = _rated(alice, bob)
    play_first_legal(game)
    play_first_legal(game)
    services.game_resign(game=game, user=alice)
    assert _rating(alice) == rate(START, START, 0.0)
    assert _rating(bob) == rate(START, START, 1.0)


def test_a_time_out_is_a_loss_for_the_player_who_ran_out(alice, bob):
    game = _rated(alice, bob)
    play_first_legal(game)  # past the first play: running out is a loss, not an abort
    game.refresh_from_db()
    late = game.to_move
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert services.time_out_overdue_games(now=timezone.now()) == 1
    loser = alice if late == "a" else bob
    winner = bob if loser is alice else alice
    assert _rating(loser) == rate(START, START, 0.0)
    assert _rating(winner) == rate(START, START, 1.0)


def test_an_aborted_game_and_a_casual_game_never_count(alice, bob):
    aborted = _rated(alice, bob)
    Game.objects.filter(pk=aborted.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    services.time_out_overdue_games(now=timezone.now())
    aborted.refresh_from_db()
    assert aborted.end_reason == "aborted"
    play_to_end(start(alice, bob))  # casual: no clock
    assert not Rating.objects.exists()
    assert not RatingChange.objects.exists()


def test_a_bot_game_played_to_the_end_rates_nobody(alice):
    game = challenges.game_create(creator=alice, opponent="bot:random", days_per_turn=3)
    game = Game.objects.get(pk=game.pk)
    while game.status == Game.Status.ACTIVE:
        if game.to_move == services.BOT_SEAT:
            assert services.bot_play_turn(game_id=game.pk)
        else:
            play_first_legal(game)
        game.refresh_from_db()
    assert game.end_reason != "aborted"
    assert not Rating.objects.exists()


def test_the_deviation_grows_with_the_time_between_rated_games(alice, bob, charlie):
    play_to_end(_rated(alice, bob))
    first = _rating(alice)
    # alice's next game ends a year later: she is rated from a less certain rating.
    Rating.objects.filter(user=alice).update(rated_at=timezone.now() - timedelta(days=365))
    shown_now = shown_for([alice.pk])[alice.pk]
    assert shown_now.deviation > round(first.deviation)
    game = _rated(alice, charlie)
    play_to_end(game)
    change = RatingChange.objects.get(game_id=game.pk, user=alice)
    assert change.deviation_before > first.deviation


def test_a_rating_is_provisional_while_its_deviation_is_above_110(alice, bob):
    assert str(shown_for([alice.pk])[alice.pk]) == "1500?"
    Rating.objects.create(
        user=alice, rating=1612.4, deviation=80, volatility=0.06, games=30, rated_at=timezone.now()
    )
    assert str(shown_for([alice.pk])[alice.pk]) == "1612"


def test_rebuild_ratings_reproduces_the_stored_ratings_exactly(alice, bob, charlie):
    for pair in [(alice, bob), (bob, charlie), (charlie, alice), (alice, bob)]:
        play_to_end(_rated(*pair))
    game = _rated(bob, alice)
    play_first_legal(game)
    services.game_resign(game=game, user=bob)
    out = StringIO()
    call_command("rebuild_ratings", stdout=out)
    assert "3 players, 5 rated games: 0 differences" in out.getvalue()


def test_rebuild_ratings_reports_a_planted_difference_and_fixes_it(alice, bob):
    play_to_end(_rated(alice, bob))
    right = _rating(alice)
    Rating.objects.filter(user=alice).update(rating=right.rating + 1e-9)
    out = StringIO()
    with pytest.raises(CommandError, match="1 stored ratings differ"):
        call_command("rebuild_ratings", stdout=out)
    assert f"user {alice.pk}: stored {right.rating + 1e-9!r}" in out.getvalue()
    call_command("rebuild_ratings", "--fix", stdout=StringIO())
    assert _rating(alice) == right
    call_command("rebuild_ratings", stdout=StringIO())  # no difference left: no error


def test_an_open_challenge_within_a_rating_range_is_refused_outside_it(alice, bob, charlie):
    game = challenges.game_create(creator=alice, opponent=None, days_per_turn=3, rating_range=(1600, None))
    with pytest.raises(Forbidden) as refused:
        challenges.game_accept(game=game, user=bob)  # 1500, unrated
    assert refused.value.code == "outside_rating_range"
    assert "1600 or more" in refused.value.detail
    assert Game.objects.get(pk=game.pk).player_b is None
    Rating.objects.create(
        user=charlie, rating=1650, deviation=90, volatility=0.06, games=12, rated_at=timezone.now()
    )
    challenges.game_accept(game=game, user=charlie)
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE


@pytest.mark.parametrize("bounds", [(1700, 1600), (50, None), (None, 9000)])
def test_a_rating_range_must_make_sense(alice, bounds):
    with pytest.raises(InvalidRequest) as refused:
        challenges.game_create(creator=alice, opponent=None, rating_range=bounds)
    assert refused.value.code == "invalid_rating_range"


def test_only_an_open_challenge_asks_for_a_rating_range(alice, bob):
    with pytest.raises(InvalidRequest):
        challenges.game_create(creator=alice, opponent="bob", rating_range=(1400, 1600))


def test_the_leaderboard_lists_established_players_only(make_user):
    now = timezone.now()
    rows = {
        "steady": {"rating": 1700, "deviation": 70, "fifth_last_at": now - timedelta(days=10)},
        "strong_but_new": {"rating": 1900, "deviation": 180, "fifth_last_at": now - timedelta(days=2)},
        "gone_quiet": {"rating": 1800, "deviation": 60, "fifth_last_at": now - timedelta(days=120)},
        "second": {"rating": 1650, "deviation": 100, "fifth_last_at": now - timedelta(days=30)},
    }
    for name, values in rows.items():
        Rating.objects.create(user=make_user(name), volatility=0.06, games=9, rated_at=now, **values)
    assert [(r.rank, r.username) for r in leaderboard()] == [(1, "steady"), (2, "second")]


def test_the_end_screen_says_how_the_game_moved_both_ratings(client, alice, bob):
    game = _rated(alice, bob)
    play_first_legal(game)
    services.game_resign(game=game, user=bob)
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/").content.decode()
    after = {u: round(Rating.objects.get(user=u).rating) for u in (alice, bob)}
    gained = after[alice] - 1500
    assert f"alice +{gained} → {after[alice]}" in page
    assert f"bob −{1500 - after[bob]} → {after[bob]}" in page
    assert "Ratings after this game" in page
    casual = start(alice, bob)
    play_first_legal(casual)
    services.game_resign(game=casual, user=bob)
    assert "Ratings after this game" not in client.get(f"/games/{casual.pk}/").content.decode()


def test_the_lobby_offers_an_open_challenge_only_to_players_within_its_range(client, alice, bob, charlie):
    game = challenges.game_create(creator=alice, opponent=None, days_per_turn=3, rating_range=(1600, None))
    accept = f'action="/games/{game.pk}/accept/"'
    client.force_login(bob)  # 1500, unrated
    lobby = client.get("/").content.decode()
    assert accept not in lobby
    assert "(your rating, 1500, is outside it)" in lobby
    Rating.objects.create(
        user=charlie, rating=1650, deviation=90, volatility=0.06, games=12, rated_at=timezone.now()
    )
    client.force_login(charlie)
    assert accept in client.get("/").content.decode()
