"""Races: many requests for one turn, on the real database (SQLite file or PostgreSQL)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from accounts import services as account_services
from games import challenges
from games.models import GameEvent
from outbox.models import Notification


@pytest.fixture
def started(transactional_db):
    alice = account_services.user_create(email_confirmed=True, username="alice", password="dragon-heart-42")
    bob = account_services.user_create(email_confirmed=True, username="bob", password="dragon-heart-42")
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    game.refresh_from_db()
    mover = alice if game.to_move == "a" else bob
    _, key = account_services.token_create(user=mover, name="race")
    return game, key


def _race(requests: int, send) -> list[int]:
    barrier = threading.Barrier(requests)
    statuses: list[int] = []
    lock = threading.Lock()

    def worker() -> None:
        try:
            barrier.wait()
            status = send()
            with lock:
                statuses.append(status)
        finally:
            connection.close()  # each thread has its own connection; give it back

    threads = [threading.Thread(target=worker) for _ in range(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return statuses


def test_twenty_plays_racing_for_one_turn_give_one_success_and_nineteen_conflicts(started):
    game, key = started
    client_view = _client(key).get(f"/api/games/{game.pk}/").json()
    play = {**client_view["legal_plays"][0], "expected_version": client_view["version"]}

    statuses = _race(
        20, lambda: _client(key).post(f"/api/games/{game.pk}/plays/", play, format="json").status_code
    )

    assert sorted(statuses) == [201] + [409] * 19
    game.refresh_from_db()
    seqs = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1))


def test_plays_racing_with_one_idempotency_key_play_once_and_all_succeed(started):
    game, key = started
    view = _client(key).get(f"/api/games/{game.pk}/").json()
    play = {**view["legal_plays"][0], "expected_version": view["version"]}
    bodies: list[Any] = []

    def send() -> int:
        response = _client(key).post(
            f"/api/games/{game.pk}/plays/", play, format="json", HTTP_IDEMPOTENCY_KEY="k-1"
        )
        bodies.append(response.json())
        return response.status_code

    statuses = _race(8, send)

    assert statuses == [201] * 8
    assert all(body == bodies[0] for body in bodies)  # the losers answer as the winner did
    game.refresh_from_db()
    assert GameEvent.objects.filter(game=game, kind="cards_played").count() == 1
    assert GameEvent.objects.filter(game=game, kind="turn_ended").count() == 1
    seqs = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1))
    assert (
        Notification.objects.filter(game=game, kind="your_turn", key=f"{game.pk}:{game.version}").count() == 1
    )


def test_different_plays_racing_with_one_idempotency_key_play_one_and_the_other_gets_409(started):
    game, key = started
    view = _client(key).get(f"/api/games/{game.pk}/").json()
    plays = iter([{**p, "expected_version": view["version"]} for p in view["legal_plays"][:2]])
    codes: list[str] = []

    def send() -> int:
        response = _client(key).post(
            f"/api/games/{game.pk}/plays/", next(plays), format="json", HTTP_IDEMPOTENCY_KEY="k-1"
        )
        codes.append(response.json().get("code", ""))
        return response.status_code

    statuses = _race(2, send)

    assert sorted(statuses) == [201, 409]
    assert "idempotency_key_reused" in codes
    assert GameEvent.objects.filter(game=game, kind="cards_played").count() == 1


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client
