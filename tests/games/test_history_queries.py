"""The history page costs the same queries at every step and for any length of game."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Game
from tests.support.tables import play_first_legal, play_to_end, start


def _queries(client: Any, url: str) -> int:
    client.get(url)  # the session and the user's row, read once
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured)


def _played(alice: Any, bob: Any, plays: int) -> Game:
    game = start(alice, bob)
    for _ in range(plays):
        play_first_legal(game)
    return game


def test_every_step_of_the_history_costs_the_same_queries(client, alice, bob):
    game = _played(alice, bob, 30)
    client.force_login(alice)
    url = f"/games/{game.pk}/history/"
    counts = {
        query: _queries(client, url + query) for query in ("", "?turn=0", "?turn=15", "?step=40", "?since=1")
    }
    assert len(set(counts.values())) == 1, counts


def test_a_long_game_costs_the_history_no_more_queries_than_a_short_one(client, alice, bob):
    short, long = _played(alice, bob, 2), _played(alice, bob, 40)
    client.force_login(bob)
    assert _queries(client, f"/games/{long.pk}/history/?turn=20") == _queries(
        client, f"/games/{short.pk}/history/?turn=1"
    )


def test_a_finished_game_costs_the_history_one_query_more_than_a_running_one(client, alice, bob):
    # The one more reads the computer's review of the turns, which only a finished game has.
    running, finished = _played(alice, bob, 10), _played(alice, bob, 0)
    play_to_end(finished)
    client.force_login(alice)
    assert _queries(client, f"/games/{finished.pk}/history/?turn=5") == (
        _queries(client, f"/games/{running.pk}/history/?turn=5") + 1
    )
