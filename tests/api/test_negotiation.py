"""The negotiation's shortcut chooses what DRF's own negotiation chooses."""

from __future__ import annotations

import pytest
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from accounts import services as account_services
from core.negotiation import ContentNegotiation
from tests.support.clients import client_for

ACCEPTS = [None, "*/*", "application/json", "text/html", "application/*", "text/html, */*;q=0.8"]
RENDERER_SETS = [[JSONRenderer()], [JSONRenderer(), BrowsableAPIRenderer()]]


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("renderers", RENDERER_SETS, ids=["production", "debug"])
@pytest.mark.parametrize("query", ["", "?format=json", "?format=api"])
def test_the_shortcut_chooses_what_drf_chooses(accept, renderers, query):
    headers = {"HTTP_ACCEPT": accept} if accept is not None else {}
    request = Request(APIRequestFactory().get(f"/api/games/{query}", **headers))

    def choose(negotiation):  # type: ignore[no-untyped-def]
        try:
            renderer, media_type = negotiation.select_renderer(request, renderers)
        except Exception as exc:  # NotAcceptable / Http404: the same refusal on both sides
            return type(exc).__name__
        return type(renderer).__name__, media_type

    assert choose(ContentNegotiation()) == choose(DefaultContentNegotiation())


def test_the_api_answers_json_to_a_client_that_asks_for_nothing_in_particular(db):
    alice = client_for(
        account_services.user_create(email_confirmed=True, username="alice", password="dragon-heart-42")
    )
    for accept in (None, "*/*", "application/json"):
        headers = {"HTTP_ACCEPT": accept} if accept else {}
        response = alice.get("/api/games/", **headers)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
