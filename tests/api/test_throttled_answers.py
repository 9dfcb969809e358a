"""Every 429 says when to come back, in a way a program can read: the API's body is
{"code": "throttled", "detail", "retry_after": N} with a Retry-After: N header, N the whole
seconds left (rounded up, at least 1); the pages' 429s are pages, with the same header.
The throttles are real ones, driven past rates made small as the tests of throttling make them."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework import exceptions
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from accounts.throttling import FAILURES_ALLOWED, WINDOW_SECONDS
from core import throttling
from core.api_errors import error_response
from tests.support.tables import start, to_move

PASSWORD = "dragon-heart-42"
MINUTE = 1_800_000_000.0  # a multiple of 60: the start of a window


@pytest.fixture
def clock(monkeypatch):
    now = [MINUTE + 10.4]
    monkeypatch.setattr(throttling.WindowScopedRateThrottle, "timer", staticmethod(lambda: now[0]))
    return now


@pytest.fixture
def two_a_minute(monkeypatch):
    def limit(scope: str) -> int:
        assert scope in ScopedRateThrottle.THROTTLE_RATES
        monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, scope, "2/minute")
        return 2

    return limit


def _ask_token(client: APIClient) -> int:
    response = client.post("/api/tokens/", {"username": "alice", "password": PASSWORD}, format="json")
    return int(response.status_code)


def _assert_machine_readable(response, seconds: int) -> None:
    assert response.status_code == 429
    body = response.json()
    assert set(body) == {"code", "detail", "retry_after"}
    assert body["code"] == "throttled"
    assert body["retry_after"] == seconds
    assert response["Retry-After"] == str(body["retry_after"])
    assert str(seconds) in body["detail"]


def test_a_throttled_token_request_says_when_to_come_back(alice, clock, two_a_minute):
    client = APIClient()
    assert [_ask_token(client) for _ in range(two_a_minute("tokens"))] == [201, 201]

    refused = client.post("/api/tokens/", {"username": "alice", "password": PASSWORD}, format="json")

    _assert_machine_readable(refused, 50)  # 49.6 s left of the minute, rounded up


def test_a_throttled_play_says_when_to_come_back(api, alice, bob, clock, two_a_minute):
    game = start(alice, bob)
    waiter = "bob" if to_move(game) == alice else "alice"
    url, play = f"/api/games/{game.pk}/plays/", {"cards": [], "expected_version": game.version}
    for _ in range(two_a_minute("plays")):  # refused plays count: it is not their turn
        assert api[waiter].post(url, play, format="json").status_code in (400, 403)

    refused = api[waiter].post(url, play, format="json")

    _assert_machine_readable(refused, 50)


def test_the_last_fraction_of_a_window_is_announced_as_one_second(alice, clock, two_a_minute):
    clock[0] = MINUTE + 59.9
    client = APIClient()
    for _ in range(two_a_minute("tokens")):
        _ask_token(client)

    refused = client.post("/api/tokens/", {"username": "alice", "password": PASSWORD}, format="json")

    _assert_machine_readable(refused, 1)


def test_a_429_given_before_a_view_runs_carries_the_same_body_and_header():
    response = error_response(exceptions.Throttled(wait=2.2))

    assert response.status_code == 429
    assert response["Content-Type"] == "application/json"
    assert response["Retry-After"] == "3"
    assert b'"retry_after":3' in response.content.replace(b" ", b"")


def test_a_throttle_that_cannot_tell_the_wait_still_sends_one_second():
    response = error_response(exceptions.Throttled(wait=None))

    assert response["Retry-After"] == "1"
    assert b'"retry_after":1' in response.content.replace(b" ", b"")


# --- The pages' 429s are pages, with Retry-After ------------------------------------------------


def test_the_token_page_past_its_limit_sends_retry_after(alice, clock, two_a_minute):
    page = Client()
    page.force_login(alice)
    for _ in range(two_a_minute("tokens")):
        page.post("/accounts/tokens/", {"name": "bot"})

    refused = page.post("/accounts/tokens/", {"name": "bot"})

    assert refused.status_code == 429
    assert refused["Content-Type"].startswith("text/html")
    assert refused["Retry-After"] == "50"


def test_the_login_lockout_sends_retry_after(alice):
    page = Client()
    for _ in range(FAILURES_ALLOWED):
        page.post("/accounts/login/", {"username": "alice", "password": "guess"})

    refused = page.post("/accounts/login/", {"username": "alice", "password": PASSWORD})

    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= WINDOW_SECONDS
