"""A client that asks for nothing in particular gets JSON (DRF's own negotiation chooses)."""

from __future__ import annotations

from typing import Any

from accounts import services as account_services
from tests.support.clients import client_for


def test_the_api_answers_json_to_a_client_that_asks_for_nothing_in_particular(db):
    alice = client_for(
        account_services.user_create(email_confirmed=True, username="alice", password="dragon-heart-42")
    )
    for accept in (None, "*/*", "application/json"):
        headers: dict[str, Any] = {"HTTP_ACCEPT": accept} if accept else {}
        response = alice.get("/api/games/", **headers)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
