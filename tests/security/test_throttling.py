"""Sign-up, login, token creation and plays are throttled: past the limit the answer is 429
(JSON {"code", "detail"} from the API) and the refused request writes nothing, although it
would have succeeded. Limits are made small here through the same rates the settings read."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.throttling import ScopedRateThrottle

from accounts.throttling import FAILURES_ALLOWED
from tests.support.world import PASSWORD, changed_tables, snapshot


@pytest.fixture
def limit(monkeypatch):
    """Two requests a minute for a scope of settings.REST_FRAMEWORK's throttle rates."""

    def set_limit(scope: str) -> int:
        assert scope in ScopedRateThrottle.THROTTLE_RATES
        monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, scope, "2/minute")
        return 2

    return set_limit


def _assert_refused_without_writing(response: Any, before: dict[str, Any]) -> None:
    assert response.status_code == 429
    body = response.json()
    assert body["code"] == "throttled"
    assert body["detail"]
    assert int(response["Retry-After"]) > 0
    assert changed_tables(before) == set()


def test_signing_up_through_the_api_past_the_limit_gets_429_and_creates_no_user(world, limit):
    client = world.api(None)
    for n in range(limit("signup")):
        created = client.post("/api/users/", {"username": f"dora{n}", "password": PASSWORD}, format="json")
        assert created.status_code == 201
    before = snapshot()

    response = client.post("/api/users/", {"username": "eve", "password": PASSWORD}, format="json")

    _assert_refused_without_writing(response, before)


def test_creating_tokens_past_the_limit_gets_429_and_creates_no_token(world, limit):
    client, credentials = world.api(None), {"username": "alice", "password": PASSWORD}
    for _ in range(limit("tokens")):
        assert client.post("/api/tokens/", credentials, format="json").status_code == 201
    before = snapshot()

    response = client.post("/api/tokens/", credentials, format="json")

    _assert_refused_without_writing(response, before)


def test_guessing_passwords_for_tokens_is_throttled_too(world, limit):
    client = world.api(None)
    for _ in range(limit("tokens")):
        guess = client.post("/api/tokens/", {"username": "alice", "password": "guess"}, format="json")
        assert guess.status_code == 401
    before = snapshot()

    response = client.post("/api/tokens/", {"username": "alice", "password": PASSWORD}, format="json")

    _assert_refused_without_writing(response, before)


def test_playing_past_the_limit_gets_429_and_plays_nothing(world, limit):
    alice, bob = world.api("alice"), world.api("bob")
    url = f"/api/games/{world.active.pk}/plays/"
    for _ in range(limit("plays")):  # refused plays count: bob is not to move
        assert bob.post(url, world.legal_play(), format="json").status_code == 403
    before = snapshot()

    refused = bob.post(url, world.legal_play(), format="json")

    _assert_refused_without_writing(refused, before)
    assert alice.post(url, world.legal_play(), format="json").status_code == 201  # per user


def test_the_movers_own_legal_play_past_the_limit_is_not_played(world, limit):
    alice, url = world.api("alice"), f"/api/games/{world.active.pk}/plays/"
    for _ in range(limit("plays")):
        alice.get(f"/api/games/{world.active.pk}/")  # reading is not limited
        stale = {**world.legal_play(), "expected_version": 0}
        assert alice.post(url, stale, format="json").status_code == 409
    before = snapshot()

    response = alice.post(url, world.legal_play(), format="json")

    _assert_refused_without_writing(response, before)


def test_the_login_page_past_its_limit_gets_429_and_does_not_log_in(world):
    client = world.browser(None)
    for _ in range(FAILURES_ALLOWED):
        assert client.post("/accounts/login/", {"username": "alice", "password": "guess"}).status_code == 200
    before = snapshot()

    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})

    assert response.status_code == 429
    assert "_auth_user_id" not in client.session
    assert changed_tables(before) == set()  # not even alice's last_login


# The pages that write what a throttled API endpoint writes share its rate and its counter.


def test_the_signup_page_past_the_signup_limit_gets_429(world, limit):
    client = world.browser(None)
    statuses = [
        client.post(
            "/accounts/signup/", {"username": f"dora{n}", "password1": PASSWORD, "password2": PASSWORD}
        ).status_code
        for n in range(limit("signup") + 1)
    ]

    assert statuses[-1] == 429


def test_the_token_page_past_the_tokens_limit_gets_429(world, limit):
    client = world.browser("alice")
    statuses = [client.post("/accounts/tokens/").status_code for _ in range(limit("tokens") + 1)]

    assert statuses[-1] == 429


def test_the_play_page_past_the_plays_limit_gets_429(world, limit):
    client = world.browser("bob")
    url = f"/games/{world.active.pk}/play/"
    statuses = [client.post(url, world.legal_form()).status_code for _ in range(limit("plays") + 1)]

    assert statuses[-1] == 429
