"""The cache's Redis is down (production's cache settings, on a port where nothing listens):
the games go on, and nothing that needs the cache answers with a 500.

Token authentication never reads the cache; the throttles, which cannot count, let requests
through and log a warning; anything else gets redis' own error from django-redis (its
exceptions are not ignored), which the API answers with 503 ``cache_unavailable``."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.test import override_settings
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from accounts.authentication import forget_locally
from tests.faults.helpers import first_play, post_play, started
from tests.support.cache_settings import production_caches
from tests.support.redis_server import OwnRedis


@pytest.fixture
def cache_down() -> Iterator[None]:
    never_started = OwnRedis()  # a free port of its own, where no Redis answers
    with override_settings(CACHES=production_caches(never_started.url(1))):
        yield


def test_with_the_cache_down_a_token_authenticates_and_a_play_goes_through(api, alice, bob, cache_down):
    game = started(alice, bob)
    forget_locally()

    view = api["alice"].get(f"/api/games/{game.pk}/")
    played = post_play(api["alice"], game, first_play(api["alice"], game))

    assert view.status_code == 200
    assert played.status_code == 201


def test_with_the_cache_down_the_play_throttle_lets_the_play_through_with_a_warning(
    api, alice, bob, cache_down, caplog
):
    game = started(alice, bob)
    play = first_play(api["alice"], game)

    with caplog.at_level(logging.WARNING, logger="core.cache"):
        played = post_play(api["alice"], game, play)

    assert played.status_code == 201
    assert "cache unavailable; throttle_plays" in caplog.text


class _ReadsTheCache(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        return Response({"value": cache.get("anything")})


def test_with_the_cache_down_a_call_that_needs_it_answers_503_cache_unavailable(cache_down):
    response = _ReadsTheCache.as_view()(APIRequestFactory().get("/api/anything/"))

    assert response.status_code == 503
    assert response.data["code"] == "cache_unavailable"
    assert response["Retry-After"] == "1"


def test_with_the_cache_down_the_login_page_still_logs_in_and_says_a_wrong_password_is_wrong(
    client, alice, cache_down, caplog
):
    with caplog.at_level(logging.WARNING):
        wrong = client.post("/accounts/login/", {"username": "alice", "password": "not-it"})
        right = client.post("/accounts/login/", {"username": "alice", "password": "dragon-heart-42"})

    assert wrong.status_code == 200  # the form again, with its error
    assert right.status_code == 302
    assert "cache unavailable; login failures" in caplog.text
