"""The API's throttle counts requests in fixed windows, one counter per user, scope and window
(on Redis in the PostgreSQL pass, in the local-memory cache otherwise)."""

from __future__ import annotations

import threading

import pytest
from rest_framework.throttling import ScopedRateThrottle

from core import throttling
from core.cache import count_hit

WINDOW_START = 1_800_000_000.0  # a multiple of 60: the start of a minute


@pytest.fixture
def clock(monkeypatch):
    now = [WINDOW_START + 10]
    monkeypatch.setattr(throttling.WindowScopedRateThrottle, "timer", staticmethod(lambda: now[0]))
    return now


@pytest.fixture
def two_token_requests_a_minute(monkeypatch):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "tokens", "2/minute")


def _ask_token(client, password="dragon-heart-42"):
    return client.post("/api/tokens/", {"username": "alice", "password": password}, format="json")


def test_the_request_over_the_limit_is_refused_until_the_next_window(api, clock, two_token_requests_a_minute):
    assert [_ask_token(api["anon"]).status_code for _ in range(2)] == [201, 201]

    refused = _ask_token(api["anon"])

    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"
    assert refused["Retry-After"] == "50"  # what is left of the minute
    clock[0] = WINDOW_START + 60
    assert _ask_token(api["anon"]).status_code == 201


def test_refused_requests_count_too_and_the_limit_holds_per_scope(api, clock, two_token_requests_a_minute):
    statuses = [_ask_token(api["anon"], password="wrong").status_code for _ in range(3)]

    assert statuses == [401, 401, 429]
    assert api["alice"].get("/api/games/").status_code == 200  # not a throttled scope


@pytest.mark.django_db
def test_the_counter_is_atomic_under_concurrent_hits():
    key = "test-count-hit"
    seen: list[int] = []

    def hit() -> None:
        for _ in range(50):
            seen.append(count_hit(key, 60))

    threads = [threading.Thread(target=hit) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(seen) == list(range(1, 201))  # every hit got its own number
