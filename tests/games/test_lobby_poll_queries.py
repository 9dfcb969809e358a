"""The lobby's poll is cheap when idle: a constant number of queries, whatever the number of
games, so that every open lobby asking every few seconds costs the database little."""

from __future__ import annotations

import re

from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import challenges
from tests.support.tables import start


def _idle_poll_queries(client) -> int:
    page = client.get("/").content.decode()
    version = re.search(r'hx-get="/\?lobby=(\w+)"', page)[1]  # type: ignore[index]
    with CaptureQueriesContext(connection) as captured:
        response = client.get(f"/?lobby={version}")
    assert response.status_code == 204
    return len(captured)


def test_an_idle_lobby_poll_costs_the_same_for_one_game_and_for_thirty(client, alice, bob, charlie):
    start(alice, bob)
    client.force_login(alice)
    one = _idle_poll_queries(client)
    for _ in range(10):
        start(alice, bob)
        challenges.game_create(creator=bob, opponent="alice")
        challenges.game_create(creator=charlie, opponent=None)
    assert _idle_poll_queries(client) == one <= 3


def test_a_lobby_poll_with_news_costs_the_same_for_one_game_and_for_twenty(client, alice, bob):
    start(alice, bob)
    client.force_login(alice)

    def changed_poll() -> int:
        with CaptureQueriesContext(connection) as captured:
            response = client.get("/?lobby=stale")
        assert response.status_code == 200
        return len(captured)

    one = changed_poll()
    for _ in range(19):
        start(alice, bob)
    assert changed_poll() == one
