"""Sign-up, personal API tokens and the two ways of authenticating (token, session)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import ApiToken

PASSWORD = "dragon-heart-42"


def _token(username: str, password: str = PASSWORD, name: str = "laptop"):
    return APIClient().post(
        "/api/tokens/", {"username": username, "password": password, "name": name}, format="json"
    )


def _client_with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_signing_up_creates_a_user_who_can_then_log_in(db):
    response = APIClient().post(
        "/api/users/", {"username": "dora", "password": PASSWORD, "email": "d@example.com"}, format="json"
    )

    assert response.status_code == 201
    assert response.json() == {"username": "dora", "is_bot": False}
    assert "password" not in response.json()
    assert APIClient().login(username="dora", password=PASSWORD)


def test_signing_up_with_a_taken_username_is_refused_whatever_its_case(alice):
    response = APIClient().post("/api/users/", {"username": "ALICE", "password": PASSWORD}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "username_invalid"
    assert response.json()["detail"]


def test_signing_up_with_a_weak_password_is_refused(db):
    response = APIClient().post("/api/users/", {"username": "dora", "password": "12345678"}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "password_invalid"
    assert not User.objects.filter(username="dora").exists()


def test_signing_up_with_a_malformed_username_is_refused(db):
    response = APIClient().post("/api/users/", {"username": "a b", "password": PASSWORD}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "username" in response.json()["errors"]


def test_a_username_and_password_get_a_token_that_authenticates(alice):
    response = _token("alice")

    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "laptop"
    assert body["prefix"] == body["token"][:8]
    assert _client_with(body["token"]).get("/api/games/").status_code == 200


def test_a_wrong_password_gets_no_token(alice):
    response = _token("alice", password="not-the-password")

    assert response.status_code == 401
    assert response.json()["code"] == "bad_credentials"
    assert not ApiToken.objects.filter(user=alice).exists()


def test_the_token_list_shows_names_and_prefixes_but_never_a_key(alice):
    keys = [_token("alice", name=name).json()["token"] for name in ("laptop", "phone")]

    response = _client_with(keys[0]).get("/api/tokens/")

    assert response.status_code == 200
    assert sorted(t["name"] for t in response.json()) == ["laptop", "phone"]
    assert sorted(t["prefix"] for t in response.json()) == sorted(k[:8] for k in keys)
    assert all("token" not in t for t in response.json())
    assert not any(key in response.content.decode() for key in keys)


def test_a_revoked_token_no_longer_authenticates(alice):
    kept, revoked = _token("alice").json(), _token("alice").json()
    assert _client_with(revoked["token"]).get("/api/games/").status_code == 200  # now kept for a second

    response = _client_with(kept["token"]).delete(f"/api/tokens/{revoked['id']}/")

    assert response.status_code == 204
    refused = _client_with(revoked["token"]).get("/api/games/")
    assert refused.status_code == 401
    assert refused.json()["code"] == "authentication_failed"
    assert _client_with(kept["token"]).get("/api/games/").status_code == 200


def test_a_user_cannot_revoke_someone_elses_token(alice, bob):
    alices = _token("alice").json()
    bobs = _token("bob").json()

    response = _client_with(bobs["token"]).delete(f"/api/tokens/{alices['id']}/")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert _client_with(alices["token"]).get("/api/games/").status_code == 200


def test_tokens_are_stored_hashed_so_the_key_is_nowhere_in_the_table(alice):
    key = _token("alice").json()["token"]

    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM accounts_apitoken")
        rows = cursor.fetchall()

    assert len(rows) == 1
    assert not any(key in str(value) for value in rows[0])
    assert any(key[:8] == str(value) for value in rows[0])  # the prefix is there: the scan sees values


def test_a_logged_in_browser_session_authenticates_the_api(alice):
    client = APIClient()
    client.force_login(alice)

    response = client.get("/api/tokens/")

    assert response.status_code == 200
    assert response.json() == []


def test_logging_in_with_a_password_authenticates_the_api(alice):
    client = APIClient()
    assert client.login(username="alice", password=PASSWORD)

    assert client.post("/api/games/", {"opponent": None}, format="json").status_code == 201


def test_a_session_post_without_the_csrf_token_is_refused(alice):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post("/api/games/", {"opponent": None}, format="json")

    assert response.status_code == 403
    assert set(response.json()) == {"code", "detail"}


def test_no_credentials_get_401_with_a_code_and_a_detail(db):
    response = APIClient().get("/api/games/")

    assert response.status_code == 401
    assert set(response.json()) == {"code", "detail"}
    assert response.json()["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == "Token"


def test_a_malformed_authorization_header_gets_401(db):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token two words")

    response = client.get("/api/games/")

    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


@pytest.mark.parametrize(
    ("header", "code"),
    [
        ("Token", "authentication_failed"),
        ("Token caf\u00e9", "authentication_failed"),
        ("Token " + "x" * 40, "authentication_failed"),
        ("Bearer abc", "not_authenticated"),
        ("token abc", "not_authenticated"),
        ("", "not_authenticated"),
    ],
)
def test_a_missing_or_wrong_token_gets_401(db, header, code):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)

    response = client.get("/api/games/")

    assert response.status_code == 401
    assert response.json()["code"] == code


@pytest.fixture
def clock(monkeypatch):
    """The clock of this process's one-second memo of tokens (accounts.authentication)."""
    from accounts import authentication

    now = [1000.0]
    monkeypatch.setattr(authentication, "_clock", lambda: now[0])
    return now


def test_another_server_process_stops_accepting_a_revoked_token_within_a_second(alice, clock):
    """Each process keeps a token's user for LOCAL_SECONDS; a revocation made by another
    process (here: the database row gone, this process's entry kept) takes effect here when
    that entry expires."""
    from accounts.authentication import LOCAL_SECONDS

    token = _token("alice").json()
    assert _client_with(token["token"]).get("/api/games/").status_code == 200
    ApiToken.objects.filter(pk=token["id"]).delete()

    clock[0] += LOCAL_SECONDS / 2
    assert _client_with(token["token"]).get("/api/games/").status_code == 200
    clock[0] += LOCAL_SECONDS
    assert _client_with(token["token"]).get("/api/games/").status_code == 401


def test_a_deactivated_users_token_is_refused_once_the_second_is_over(alice, clock):
    from accounts.authentication import LOCAL_SECONDS

    key = _token("alice").json()["token"]
    assert _client_with(key).get("/api/games/").status_code == 200
    User.objects.filter(pk=alice.pk).update(is_active=False)  # the admin, elsewhere

    clock[0] += LOCAL_SECONDS

    refused = _client_with(key).get("/api/games/")
    assert refused.status_code == 401
    assert refused.json()["code"] == "authentication_failed"


def test_a_token_is_looked_up_in_one_query_then_not_again_within_the_second(alice, clock):
    from accounts.authentication import LOCAL_SECONDS

    client = _client_with(_token("alice").json()["token"])
    client.get("/api/games/")
    with CaptureQueriesContext(connection) as within:
        client.get("/api/games/")
    clock[0] += LOCAL_SECONDS
    with CaptureQueriesContext(connection) as after:
        client.get("/api/games/")

    lookups = [q["sql"] for q in after if "accounts_apitoken" in q["sql"]]
    assert len(after) == len(within) + 1
    assert len(lookups) == 1
    assert "auth_user" in lookups[0]  # its user joined: one query for both
