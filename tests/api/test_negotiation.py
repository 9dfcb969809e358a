"""The API answers JSON to a client that asks for JSON or for anything (DRF's own negotiation)."""

from __future__ import annotations

from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer

from accounts import services as account_services
from tests.games.conftest import client_for

ACCEPTS = [None, "*/*", "application/json", "text/html", "application/*", "text/html, */*;q=0.8"]
RENDERER_SETS = [[JSONRenderer()], [JSONRenderer(), BrowsableAPIRenderer()]]


def test_the_api_answers_json_to_a_client_that_asks_for_nothing_in_particular(db):
    alice = client_for(account_services.user_create(username="alice", password="dragon-heart-42"))
    for accept in (None, "*/*", "application/json"):
        headers = {"HTTP_ACCEPT": accept} if accept else {}
        response = alice.get("/api/games/", **headers)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
