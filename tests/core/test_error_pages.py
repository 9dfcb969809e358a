"""What a player sees when something fails: the site's own 404, 500 and 503 pages, each in
the player's language; the API keeps answering JSON."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from django.http import HttpResponse, HttpResponseBase
from django.test import Client

from games import selectors


def _page(response: HttpResponseBase) -> str:
    assert isinstance(response, HttpResponse)
    return response.content.decode()


def test_an_unknown_page_is_the_sites_404(client, alice):
    client.force_login(alice)

    response = client.get("/no-such-page/")

    assert response.status_code == 404
    assert "Page not found" in _page(response)
    assert "Back to your games" in _page(response)
    assert "alice" in _page(response)  # the site's own layout, signed in


def test_the_404_speaks_the_players_language(client):
    response = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE="de")

    assert response.status_code == 404
    assert 'lang="de"' in _page(response)
    assert "Page not found" not in _page(response)


def test_an_unknown_api_path_is_still_json(client):
    response = client.get("/api/no-such-thing/")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.fixture
def database_down(monkeypatch):
    def fail(*args: object, **kwargs: object) -> None:
        raise OperationalError("connection to server was lost")

    monkeypatch.setattr(selectors, "lobby", fail)
    monkeypatch.setattr(selectors, "game_by_id", fail)


def test_a_page_whose_database_is_unreachable_asks_to_reload(client, alice, database_down, caplog):
    client.force_login(alice)

    response = client.get("/")

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "Back in a moment" in _page(response)
    assert "Something went wrong" not in _page(response)
    assert "database_unavailable" in caplog.text


def test_the_api_answers_its_own_503_json(alice, database_down):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(alice)

    response = api.get("/api/games/abcdefabcdef/")

    assert response.status_code == 503
    assert response.json()["code"] == "database_unavailable"


def test_any_other_failure_is_the_sites_500_page(alice, monkeypatch):
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(selectors, "lobby", broken)
    client = Client(raise_request_exception=False)
    client.force_login(alice)

    response = client.get("/", HTTP_ACCEPT_LANGUAGE="fr")

    assert response.status_code == 500
    assert "Something went wrong" not in _page(response)  # in French
    assert 'lang="fr"' in _page(response)
    assert "css/site.css" in _page(response)
