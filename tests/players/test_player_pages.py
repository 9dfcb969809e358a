"""Players' pages, the leaderboard and their API: public, built from the games and the ratings
in a constant number of queries, and about results only — never a card."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from games import services
from games.models import Game
from ratings.models import Rating
from tests.support.api_plays import hidden_ids
from tests.support.tables import play_first_legal, play_to_end, start

pytestmark = pytest.mark.django_db
CARD_ID = re.compile(r"(?<![\w-])[ab][0-4]\d(?![\w-])")


def _rated(a, b):
    return start(a, b, days_per_turn=3)


def _page(client: Client, name: str) -> str:
    response = client.get(f"/players/{name}/")
    assert response.status_code == 200
    return response.content.decode()


def test_a_players_page_is_public_and_shows_the_rating_its_chart_and_the_record(client, alice, bob, charlie):
    for pair in [(alice, bob), (bob, alice), (alice, charlie)]:
        play_to_end(_rated(*pair))
    casual = start(alice, bob)
    play_first_legal(casual)
    services.game_resign(game=casual, user=bob)  # casual: counts in the record, not the rating
    html = _page(client, "alice")  # signed out
    rating = Rating.objects.get(user=alice)
    assert f'<span class="rating-value">{round(rating.rating)}?</span>' in html  # three games: provisional
    assert '<svg viewBox="0 0 640 220" role="img" class="wide"' in html
    assert '<svg viewBox="0 0 360 240" role="img" class="narrow"' in html  # a phone's
    lines = re.findall(r"<polyline class=\"line\" points=\"([^\"]+)\"", html)
    assert [len(line.split()) for line in lines] == [4, 4]  # the start and three games
    assert "3 rated games" in html
    record = re.search(r'<p class="record-line">([^<]+)</p>', html)
    assert record is not None
    wins = sum(1 for g in alice_games(alice) if g.winner == g.seat_of(alice))
    assert record[1].strip().startswith(f"{wins} won")
    assert '<a href="/players/bob/">bob</a>' in html
    assert '<a href="/players/charlie/">charlie</a>' in html


def alice_games(alice):
    return [g for g in Game.objects.filter(status="finished").order_by("finished_at") if g.seat_of(alice)]


def test_a_player_without_games_has_a_page_that_says_so(client, alice):
    html = _page(client, "ALICE")  # names are found whatever their case
    assert "1500?" in html
    assert "No rated game yet" in html


def test_an_unknown_player_is_a_404(client, db):
    assert client.get("/players/nobody/").status_code == 404
    assert APIClient().get("/api/players/nobody/").json()["code"] == "no_such_player"


def test_the_api_gives_the_same_player(alice, bob):
    play_to_end(_rated(alice, bob))
    running = _rated(alice, bob)
    body = APIClient().get("/api/players/alice/").json()
    stored = Rating.objects.get(user=alice)
    assert body["rating"] == {
        "rating": round(stored.rating),
        "deviation": round(stored.deviation),
        "provisional": True,
        "games": 1,
    }
    assert [p["game"] for p in body["history"]] == [g.pk for g in alice_games(alice)]
    assert [g["id"] for g in body["current_games"]] == [running.pk]
    assert body["opponents"][0]["opponent"] == "bob"
    assert sum(body["record"].values()) == 1


def test_the_leaderboard_page_and_api_list_the_same_players(client, make_user):
    now = timezone.now()
    for name, value in [("dora", 1710.4), ("emil", 1655.0)]:
        Rating.objects.create(
            user=make_user(name),
            rating=value,
            deviation=70,
            volatility=0.06,
            games=8,
            rated_at=now,
            fifth_last_at=now - timedelta(days=3),
        )
    ranked = APIClient().get("/api/leaderboard/").json()
    assert [(r["rank"], r["username"], r["rating"]) for r in ranked] == [(1, "dora", 1710), (2, "emil", 1655)]
    html = client.get("/players/").content.decode()
    assert html.index('href="/players/dora/"') < html.index('href="/players/emil/"')


def test_a_players_page_costs_the_same_queries_with_more_games(client, alice, bob, charlie):
    play_to_end(_rated(alice, bob))
    _rated(alice, charlie)
    client.get("/players/alice/")
    with CaptureQueriesContext(connection) as few:
        client.get("/players/alice/")
    for pair in [(bob, alice), (alice, charlie), (charlie, alice)]:
        play_to_end(_rated(*pair))
    _rated(bob, alice)
    with CaptureQueriesContext(connection) as more:
        client.get("/players/alice/")
    assert len(more) == len(few)
    with CaptureQueriesContext(connection) as board:
        client.get("/players/")
    assert len(board) <= 3


def test_no_card_is_named_on_a_players_page_or_in_the_api_during_play(client, alice, bob):
    game = _rated(alice, bob)
    for _ in range(6):
        play_first_legal(game)
    hidden = hidden_ids(game.pk, None)
    assert hidden  # hands and piles are there to be leaked
    for text in (
        _page(client, "alice"),
        _page(client, "bob"),
        APIClient().get("/api/players/alice/").content.decode(),
        client.get("/players/").content.decode(),
    ):
        assert CARD_ID.findall(text) == []


def test_the_lobby_and_the_game_page_show_ratings_beside_names(client, alice, bob):
    play_to_end(_rated(alice, bob))
    game = _rated(alice, bob)
    alice_rating = round(Rating.objects.get(user=alice).rating)
    client.force_login(alice)
    lobby = client.get("/").content.decode()
    title = rf"Rating {alice_rating} ± \d+, provisional[^\"]*"
    assert re.search(rf'alice <span class="rating" title="{title}">{alice_rating}\?</span>', lobby)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert '<a class="player-link" href="/players/bob/">bob</a>' in page
    assert f">{alice_rating}?</span>" in page


def test_the_new_game_form_asks_for_a_rating_range_and_whether_rated(client, alice):
    client.force_login(alice)
    response = client.post(
        "/",
        {
            "against": "open",
            "preset": "official",
            "days_per_turn": "3",
            "rating_min": "1400",
            "rating_max": "1700",
            "rated": "",
        },
    )
    assert response.status_code == 302
    game = Game.objects.get(created_by=alice)
    assert (game.rated, game.rating_min, game.rating_max) == (True, 1400, 1700)
    lobby = client.get("/").content.decode()
    assert "rated" in lobby
    response = client.post(
        "/", {"against": "open", "preset": "official", "rating_min": "1800", "rating_max": "1200"}
    )
    assert response.status_code == 200
    assert "A rating range runs from 100 to 3500, its lower end first." in response.content.decode()


@pytest.mark.parametrize("language", ["de", "fr", "uk"])
def test_the_chart_keeps_its_coordinates_numbers_in_every_language(client, alice, bob, language):
    """A German page writes 12,5 for 12.5: an SVG must not."""
    play_to_end(_rated(alice, bob))
    html = client.get("/players/alice/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    svgs = re.findall(r"<svg viewBox=.*?</svg>", html, flags=re.S)
    assert len(svgs) == 2
    number = r"-?\d+(?:\.\d+)?"
    for svg in svgs:
        plain = re.findall(r'(?<![\w-])(?:cx|cy|x|y|x1|x2|y1|y2)="([^"]*)"', svg)
        points = re.findall(r'(?<![\w-])points="([^"]*)"', svg)
        assert len(plain) > 10
        assert len(points) == 2
        assert all(re.fullmatch(number, n) for n in plain)
        assert all(re.fullmatch(f"{number},{number}", pair) for p in points for pair in p.split())
