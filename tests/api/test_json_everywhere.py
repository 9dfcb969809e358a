"""Whatever goes wrong under /api/, a program gets the API's JSON error, never an HTML page or
another format: Django's own refusals, a bug, and the errors of drf-spectacular's schema and
docs views (which answer YAML and HTML when all is well)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from games import selectors


def _error(response: Any) -> tuple[int, str]:
    assert response["Content-Type"] == "application/json", response.content[:200]
    body = json.loads(response.content)
    assert isinstance(body["detail"], str)
    return response.status_code, body["code"]


def test_a_bug_in_an_api_call_is_a_json_500(db, monkeypatch):
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(selectors, "game_by_id", broken)
    client = Client(raise_request_exception=False)
    client.force_login(_user())

    assert _error(client.get("/api/games/abcdefabcdef/")) == (500, "server_error")


def test_a_host_django_refuses_is_a_json_400_on_the_api():
    response = Client(HTTP_HOST="elsewhere.example").get("/api/health/")

    assert _error(response) == (400, "bad_request")


@pytest.mark.parametrize(
    ("method", "path", "headers", "status", "code"),
    [
        ("POST", "/api/schema/", {}, 405, "method_not_allowed"),
        ("POST", "/api/docs/", {}, 405, "method_not_allowed"),
        ("OPTIONS", "/api/docs/", {}, 405, "method_not_allowed"),
        ("GET", "/api/docs/", {"HTTP_ACCEPT": "application/json"}, 406, "not_acceptable"),
        ("GET", "/api/schema/", {"HTTP_ACCEPT": "text/csv"}, 406, "not_acceptable"),
    ],
)
def test_the_schema_and_docs_views_give_their_errors_in_json(db, method, path, headers, status, code):
    response = Client().generic(method, path, **headers)

    assert _error(response) == (status, code)


def test_the_schema_and_docs_still_answer_in_their_own_formats(db):
    assert Client().get("/api/schema/")["Content-Type"].startswith("application/vnd.oai.openapi")
    assert Client().get("/api/docs/")["Content-Type"].startswith("text/html")


def _user() -> Any:
    from accounts import services

    return services.user_create(email_confirmed=True, username="alice", password="dragon-heart-42")
