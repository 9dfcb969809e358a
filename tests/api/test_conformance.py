"""Each operation's success, and the schema lies the fuzzer found, checked one request at a
time against the schema with every schemathesis check."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.throttling import ScopedRateThrottle
from schemathesis.core.result import Ok

from tests.api.conftest import PASSWORD, SCHEMA, call, push_subscription

PLAYS = "POST /api/games/{game_id}/plays/"


def _game(kind: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda world: {"path_parameters": {"game_id": world["games"][kind]}}


# One successful request per operation, on the world of conftest.world.
SUCCESSES: dict[str, tuple[int, Callable[[dict[str, Any]], dict[str, Any]]]] = {
    "GET /api/health/": (200, lambda world: {}),
    "GET /api/health/ready/": (200, lambda world: {}),
    "GET /api/games/": (200, lambda world: {"query": {"mine": "true"}}),
    "POST /api/games/": (201, lambda world: {"body": {"opponent": "bot:random"}}),
    "GET /api/games/{game_id}/": (200, _game("running")),
    "POST /api/games/{game_id}/accept/": (200, _game("challenge")),
    "POST /api/games/{game_id}/decline/": (200, _game("challenge")),
    "POST /api/games/{game_id}/cancel/": (200, _game("open")),
    "POST /api/games/{game_id}/resign/": (200, _game("running")),
    "POST /api/games/{game_id}/rematch/": (200, _game("finished")),
    "GET /api/games/{game_id}/events/": (200, _game("running")),
    "GET /api/games/{game_id}/record/": (200, _game("finished")),
    PLAYS: (201, lambda world: {**_game("running")(world), "body": world["legal_plays"][0]}),
    "GET /api/tokens/": (200, lambda world: {}),
    "POST /api/tokens/": (201, lambda world: {"body": {"username": "alice", "password": PASSWORD}}),
    "DELETE /api/tokens/{token_id}/": (
        204,
        lambda world: {"path_parameters": {"token_id": world["tokens"]["alice"]}},
    ),
    "POST /api/users/": (
        201,
        lambda world: {"body": {"username": "dave", "password": "a long passphrase 7"}},
    ),
    "GET /api/players/{name}/": (200, lambda world: {"path_parameters": {"name": "alice"}}),
    "GET /api/leaderboard/": (200, lambda world: {}),
    "GET /api/bots/leaderboard/": (200, lambda world: {}),
    "GET /api/bots/online/": (200, lambda world: {}),
    "POST /api/account/bot/": (200, lambda world: _token_of_a_new_account(world)),
    "GET /api/games/{game_id}/notes/": (200, _game("running")),
    "PUT /api/games/{game_id}/notes/": (
        200,
        lambda world: {**_game("running")(world), "body": {"text": "x"}},
    ),
    "POST /api/players/{name}/mute/": (200, lambda world: {"path_parameters": {"name": "bob"}}),
    "DELETE /api/players/{name}/mute/": (200, lambda world: {"path_parameters": {"name": "bob"}}),
    "GET /api/push/key/": (200, lambda world: {}),
    "POST /api/push/subscriptions/": (201, lambda world: {"body": push_subscription("new")}),
    "DELETE /api/push/subscriptions/": (204, lambda world: {"body": _subscribed_alice(world)}),
    "GET /api/account/notifications/": (200, lambda world: {}),
    "PATCH /api/account/notifications/": (200, lambda world: {"body": {"turn": "push"}}),
}


def _token_of_a_new_account(world: dict[str, Any]) -> dict[str, Any]:
    """alice's token handed to dave, an account that has played no game (alice has), which
    may become a bot."""
    from accounts import services as account_services
    from accounts.authentication import forget_locally
    from accounts.models import ApiToken

    dave = account_services.user_create(username="dave", password=PASSWORD)
    ApiToken.objects.filter(pk=world["tokens"]["alice"]).update(user=dave)
    forget_locally()
    return {}


def _subscribed_alice(world: dict[str, Any]) -> dict[str, Any]:
    """A subscription of alice's, kept already, as its DELETE's body."""
    from django.contrib.auth.models import User

    from notifications import push

    body = push_subscription("kept")
    push.subscribe(User.objects.get(username="alice"), push.parse_subscription(body))
    return body


def _label(result: object) -> str:
    assert isinstance(result, Ok), result  # an operation the schema fails to describe is an Err
    label: str = result.ok().label
    return label


def test_every_operation_of_the_schema_has_a_success_below():
    labels = {_label(result) for result in SCHEMA.get_all_operations()}
    assert labels == set(SUCCESSES)


@pytest.mark.parametrize("label", SUCCESSES)
def test_each_operation_succeeds_as_documented(world, label):
    expected, case = SUCCESSES[label]
    assert call(world, label, **case(world)).status_code == expected


# --- Schema lies found by fuzzing -------------------------------------------------------------


def test_the_game_list_is_a_page_and_a_cursor_not_ours_a_documented_404(world):
    page = call(world, "GET /api/games/").json()
    assert {game["id"] for game in page["results"]} == set(world["games"].values())

    response = call(world, "GET /api/games/", query={"cursor": "bm90IG91cnM"})
    assert response.json()["code"] == "not_found"


def test_the_record_of_a_running_game_is_a_documented_conflict(world):
    response = call(world, "GET /api/games/{game_id}/record/", **_game("running")(world))
    assert (response.status_code, response.json()["code"]) == (409, "game_not_over")


def test_the_idempotency_key_has_the_length_the_schema_gives(world):
    parameters = SCHEMA.raw_schema["paths"]["/api/games/{game_id}/plays/"]["post"]["parameters"]
    key = next(p["schema"] for p in parameters if p["name"] == "Idempotency-Key")
    assert (key["minLength"], key["maxLength"]) == (1, 255)
    play = {**_game("running")(world), "body": world["legal_plays"][0]}

    assert call(world, PLAYS, headers={"Idempotency-Key": "k" * 255}, **play).status_code == 201
    for refused in ("", "k" * 256):
        response = call(world, PLAYS, headers={"Idempotency-Key": refused}, **play)
        assert response.json()["code"] == "invalid_idempotency_key"


def test_an_empty_query_parameter_is_documented_and_taken_as_absent(world):
    response = call(world, "GET /api/games/", query={"status": "", "mine": ""})
    assert len(response.json()["results"]) == len(world["games"])
    events = call(world, "GET /api/games/{game_id}/events/", query={"after": ""}, **_game("running")(world))
    assert events.json()["results"][0]["seq"] == 1


def test_every_field_of_the_game_view_and_list_is_documented(world):
    schemas = SCHEMA.raw_schema["components"]["schemas"]
    for game_id in world["games"].values():
        view = call(world, "GET /api/games/{game_id}/", path_parameters={"game_id": game_id}).json()
        assert set(view) <= set(schemas["GameView"]["properties"])
        for player in view["players"]:
            assert set(player) <= set(schemas["Player"]["properties"])
    for summary in call(world, "GET /api/games/").json()["results"]:
        assert set(summary) <= set(schemas["GameSummary"]["properties"])


@pytest.mark.parametrize("after", ["400.0", " 5", "5.", "+5"])
def test_an_integer_in_a_query_is_digits_only_as_documented(world, after):
    response = call(
        world, "GET /api/games/{game_id}/events/", query={"after": after}, **_game("running")(world)
    )
    assert (response.status_code, response.json()["code"]) == (400, "invalid")


@pytest.mark.parametrize("version", ["1", 1.0, True])
def test_an_integer_in_a_body_is_a_json_integer_as_documented(world, version):
    body = {**world["legal_plays"][0], "expected_version": version}
    response = call(world, PLAYS, body=body, **_game("running")(world))
    assert (response.status_code, response.json()["code"]) == (400, "invalid")


# Request strings that are only spaces: schema-valid (at least one character), so they may be
# refused by a rule, never as malformed (DRF used to trim them to a blank).
SPACES = {
    "POST /api/users/": lambda world: {"body": {"username": "dave", "password": "   "}},
    "POST /api/tokens/": lambda world: {"body": {"username": "  ", "password": "  ", "name": "  "}},
    "POST /api/games/": lambda world: {"body": {"opponent": "  "}},
    PLAYS: lambda world: {
        **_game("running")(world),
        "body": {
            "cards": ["   "],
            "choice": "  ",
            "expected_version": world["legal_plays"][0]["expected_version"],
        },
    },
}


@pytest.mark.parametrize("label", SPACES)
def test_a_string_of_spaces_is_not_refused_as_malformed(world, label):
    response = call(world, label, **SPACES[label](world))
    assert response.status_code in (400, 401)
    assert response.json()["code"] not in ("invalid", "parse_error")


def test_a_password_keeps_its_spaces_from_api_signup_to_the_login_page(world):
    password = "  correct horse battery  "
    call(
        world, "POST /api/users/", anonymous=True, keep=True, body={"username": "dave", "password": password}
    )
    assert Client().login(username="dave", password=password)


# --- Throttling -------------------------------------------------------------------------------

THROTTLED = {
    "plays": (PLAYS, lambda world: {**_game("running")(world), "body": world["legal_plays"][0]}),
    "signup": ("POST /api/users/", lambda world: {"body": {"username": "dave", "password": "x"}}),
    "tokens": ("POST /api/tokens/", lambda world: {"body": {"username": "alice", "password": "wrong"}}),
}


@pytest.mark.parametrize("scope", THROTTLED)
def test_a_throttled_request_is_answered_as_documented(world, monkeypatch, scope):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, scope, "1/minute")
    label, case = THROTTLED[scope]
    call(world, label, **case(world))

    response = call(world, label, **case(world))
    assert (response.status_code, response.json()["code"]) == (429, "throttled")
    assert int(response.headers["retry-after"][0]) > 0
