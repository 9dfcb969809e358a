"""Scoped tokens: a token may call only what its scopes allow (accounts.permissions), the rest
answers 403 scope_missing naming the scope, and writes nothing; a browser session is not
limited. Every call is made by alice, who is to move in a running game, has a challenge from
bob, an open challenge of her own and a finished game to ask a rematch of."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts import services as account_services
from accounts.models import ApiToken
from accounts.permissions import scopes_needed
from accounts.scopes import SCOPES
from engine import legal_plays
from games import challenges, event_log, services
from games.models import Game
from tests.support.tables import start
from tests.support.world import changed_tables, snapshot

PASSWORD = "dragon-heart-42"
ALL = frozenset(SCOPES)


@dataclass
class Places:
    running: Game
    challenge: Game
    open: Game
    finished: Game
    token_id: int

    def legal_play(self) -> dict[str, Any]:
        game = Game.objects.get(pk=self.running.pk)
        first = legal_plays(event_log.load_state(game))[0]
        return {"cards": list(first.cards), "choice": first.choice, "expected_version": game.version}


@pytest.fixture
def places(alice, bob, charlie) -> Places:
    finished = start(alice, charlie)
    services.game_resign(game=finished, user=alice)
    spare, _ = account_services.token_create(user=alice, name="spare")
    return Places(
        running=start(alice, bob, rules={"first_player": "a"}),
        challenge=challenges.game_create(creator=bob, opponent="alice"),
        open=challenges.game_create(creator=alice, opponent=None),
        finished=finished,
        token_id=spare.pk,
    )


@dataclass(frozen=True)
class Call:
    method: str
    url: str  # a template of Places' fields
    needs: frozenset[str]
    success: int
    body: Callable[[Places], Any] | None = None

    def __str__(self) -> str:
        return f"{self.method} {self.url}"

    def send(self, client: Any, places: Places) -> Any:
        url = self.url.format(
            running=places.running.pk,
            challenge=places.challenge.pk,
            open=places.open.pk,
            finished=places.finished.pk,
            token=places.token_id,
        )
        body = self.body(places) if self.body else None
        return getattr(client, self.method.lower())(url, body, format="json")


READ, PLAY, CHALLENGE = (frozenset({scope}) for scope in SCOPES)
CALLS = [
    Call("GET", "/api/games/", READ, 200),
    Call("GET", "/api/games/{running}/", READ, 200),
    Call("GET", "/api/games/{running}/events/", READ, 200),
    Call("GET", "/api/games/{running}/notes/", READ, 200),
    Call("GET", "/api/tokens/", READ, 200),
    Call("GET", "/api/account/notifications/", READ, 200),
    Call("POST", "/api/games/{running}/plays/", PLAY, 201, Places.legal_play),
    Call("POST", "/api/games/{running}/resign/", PLAY, 200),
    Call("POST", "/api/games/{challenge}/accept/", PLAY, 200),
    Call("POST", "/api/games/{challenge}/decline/", PLAY, 200),
    Call("PUT", "/api/games/{running}/notes/", PLAY, 200, lambda places: {"text": "hold the dragon"}),
    Call("POST", "/api/players/bob/mute/", PLAY, 200),
    Call("DELETE", "/api/players/bob/mute/", PLAY, 200),
    Call("POST", "/api/games/", CHALLENGE, 201, lambda places: {"opponent": None}),
    Call("POST", "/api/games/{open}/cancel/", CHALLENGE, 200),
    Call("POST", "/api/games/{finished}/rematch/", CHALLENGE, 200),
    # Writes that declare no scope change the account: they need a token with every scope.
    Call("DELETE", "/api/tokens/{token}/", ALL, 204),
    Call("PATCH", "/api/account/notifications/", ALL, 200, lambda places: {"turn": "email"}),
]
REFUSED = [
    pytest.param(scope, call, id=f"no {scope}: {call}") for call in CALLS for scope in sorted(call.needs)
]
ALLOWED = [
    pytest.param(scope, call, id=f"no {scope}: {call}")
    for call in CALLS
    for scope in SCOPES
    if scope not in call.needs
]


def _token_client(user: Any, scopes: list[str] | None) -> APIClient:
    _, key = account_services.token_create(user=user, name="scoped", scopes=scopes)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _without(scope: str) -> list[str]:
    return [other for other in SCOPES if other != scope]


def _create(body: dict[str, Any]) -> Any:
    return APIClient().post(
        "/api/tokens/", {"username": "alice", "password": PASSWORD, **body}, format="json"
    )


@pytest.mark.parametrize(("scope", "call"), REFUSED)
def test_a_token_without_the_scope_a_call_needs_is_refused_and_writes_nothing(alice, places, scope, call):
    client = _token_client(alice, _without(scope))
    before = snapshot()

    response = call.send(client, places)

    assert response.status_code == 403
    assert response.json() == {"code": "scope_missing", "detail": response.json()["detail"]}
    assert scope in response.json()["detail"]
    assert changed_tables(before) == set()


@pytest.mark.parametrize(("scope", "call"), ALLOWED)
def test_a_token_without_a_scope_is_let_through_where_the_call_does_not_need_it(alice, places, scope, call):
    client = _token_client(alice, _without(scope))

    response = call.send(client, places)

    assert response.status_code == call.success, response.content


@pytest.mark.parametrize("call", [c for c in CALLS if c.needs == ALL], ids=str)
def test_a_token_with_every_scope_may_change_the_account(alice, places, call):
    assert call.send(_token_client(alice, None), places).status_code == call.success


def test_a_refusal_names_every_scope_missing(alice, places):
    client = _token_client(alice, ["read"])

    response = client.delete(f"/api/tokens/{places.token_id}/")

    assert response.status_code == 403
    assert "play" in response.json()["detail"]
    assert "challenge" in response.json()["detail"]


@pytest.mark.parametrize("url", ["/api/stream/", "/api/games/{running}/stream/"])
def test_a_token_without_read_opens_neither_stream(alice, places, url):
    client = _token_client(alice, ["play", "challenge"])

    response = client.get(url.format(running=places.running.pk))

    assert (response.status_code, response.json()["code"]) == (403, "scope_missing")


@pytest.mark.parametrize("scope", SCOPES)
def test_only_a_token_with_every_scope_may_turn_the_account_into_a_bot(alice, scope):
    response = _token_client(alice, _without(scope)).post("/api/account/bot/")

    assert (response.status_code, response.json()["code"]) == (403, "scope_missing")
    assert response.json()["detail"].count(scope) == 1


def test_a_token_without_read_learns_nothing_of_a_game_that_does_not_exist(alice):
    client = _token_client(alice, ["play", "challenge"])

    response = client.get("/api/games/no-such-game/")

    assert (response.status_code, response.json()["code"]) == (403, "scope_missing")


@pytest.mark.parametrize("call", [c for c in CALLS if c.method != "GET"], ids=str)
def test_a_browser_session_is_not_limited_by_scopes(alice, places, call):
    session = APIClient()
    session.force_login(alice)

    assert call.send(session, places).status_code == call.success


def test_every_read_needs_read_whatever_the_view_declares():
    class Declares:
        token_scope = "play"

    assert [scopes_needed(method, Declares()) for method in ("GET", "HEAD", "OPTIONS")] == [{"read"}] * 3
    assert scopes_needed("POST", Declares()) == {"play"}
    assert scopes_needed("POST", object()) == ALL


# --- Creating scoped tokens ------------------------------------------------------------------


def test_a_token_asked_without_scopes_gets_all_three(alice):
    response = _create({})

    assert response.status_code == 201
    assert response.json()["scopes"] == ["read", "play", "challenge"]


def test_the_scopes_asked_for_are_answered_and_listed_in_their_order(alice):
    created = _create({"name": "bot", "scopes": ["play", "read"]}).json()

    listed = _token_client(alice, None).get("/api/tokens/").json()

    assert created["scopes"] == ["read", "play"]
    assert next(t for t in listed if t["id"] == created["id"])["scopes"] == ["read", "play"]
    assert ApiToken.objects.get(pk=created["id"]).scopes == ["read", "play"]


@pytest.mark.parametrize(
    "scopes",
    [["read", "admin"], ["Read"], "read", {"read": True}, None, [], ["play", "play"], [1], [["read"]]],
    ids=repr,
)
def test_scopes_that_are_not_a_list_of_distinct_known_scopes_are_refused(alice, scopes):
    response = _create({"scopes": scopes})

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_scopes"
    assert response.json()["detail"]
    assert not ApiToken.objects.filter(user=alice).exists()


def test_bad_scopes_are_refused_before_the_password_is_checked(alice):
    response = _create({"password": "not-it", "scopes": ["root"]})

    assert (response.status_code, response.json()["code"]) == (400, "invalid_scopes")


# --- The one-second memo keeps each token's own scopes ---------------------------------------


@pytest.fixture
def clock(monkeypatch):
    from accounts import authentication

    now = [1000.0]
    monkeypatch.setattr(authentication, "_clock", lambda: now[0])
    return now


def test_a_narrow_tokens_kept_entry_still_refuses_what_it_may_not_do(alice, places, clock):
    full, narrow = _token_client(alice, None), _token_client(alice, ["read"])
    assert full.post("/api/games/", {"opponent": None}, format="json").status_code == 201
    assert narrow.get("/api/games/").status_code == 200  # both kept now

    with CaptureQueriesContext(connection) as queries:
        refused = narrow.post("/api/games/", {"opponent": None}, format="json")

    assert (refused.status_code, refused.json()["code"]) == (403, "scope_missing")
    assert not [q for q in queries if "accounts_apitoken" in q["sql"]]  # it was the kept entry


def test_a_token_narrowed_elsewhere_is_refused_once_the_second_is_over(alice, places, clock):
    from accounts.authentication import LOCAL_SECONDS

    _, key = account_services.token_create(user=alice, name="bot")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.post("/api/games/", {"opponent": None}, format="json").status_code == 201
    ApiToken.objects.filter(user=alice, name="bot").update(scopes=["read", "play"])  # another process

    clock[0] += LOCAL_SECONDS

    refused = client.post("/api/games/", {"opponent": None}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (403, "scope_missing")


# --- The profile page -------------------------------------------------------------------------


def _page(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_profile_offers_the_three_scopes_all_ticked(alice):
    page = _page(alice).get("/accounts/profile/").content.decode()

    for scope in SCOPES:
        assert f'name="scopes" value="{scope}" checked' in page


def test_the_profile_makes_a_token_with_the_scopes_ticked_and_lists_them(alice):
    page = _page(alice)

    page.post("/accounts/tokens/", {"name": "reader", "scopes_offered": "1", "scopes": ["read"]})

    assert ApiToken.objects.get(user=alice, name="reader").scopes == ["read"]
    assert "<code>read</code></span>" in page.get("/accounts/profile/").content.decode()


def test_the_profile_makes_no_token_with_no_scope_ticked(alice):
    page = _page(alice)

    response = page.post("/accounts/tokens/", {"name": "nothing", "scopes_offered": "1"}, follow=True)

    assert not ApiToken.objects.filter(user=alice).exists()
    assert "Tick at least one" in response.content.decode()


# --- Tokens made before scopes ----------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_tokens_made_before_scopes_get_all_three():
    executor = MigrationExecutor(connection)
    before, latest = [("accounts", "0003_existing_addresses_confirmed")], executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(before)
        old = MigrationExecutor(connection).loader.project_state(before).apps
        user = old.get_model("auth", "User").objects.create(username="old-timer")
        old.get_model("accounts", "ApiToken").objects.create(
            user=user, name="old", digest="d" * 64, prefix="dddd"
        )
        MigrationExecutor(connection).migrate([("accounts", "0004_apitoken_scopes")])
    finally:
        MigrationExecutor(connection).migrate(latest)

    assert ApiToken.objects.get(name="old").scopes == ["read", "play", "challenge"]
