"""The orjson renderer writes what DRF's JSON renderer writes, byte for byte."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from django.utils.translation import gettext_lazy
from hypothesis import given
from hypothesis import strategies as st
from rest_framework import renderers

from accounts import services as account_services
from core.renderers import JSONRenderer
from engine import legal_plays
from games import event_log, services
from tests.support.clients import client_for
from tests.support.tables import start

ours, drf = JSONRenderer(), renderers.JSONRenderer()

UTC = dt.UTC
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text()
    | st.sampled_from(["\u2028", "a\u2029b", "ÿ€😀", "</script>", '"\\'])
    | st.datetimes(timezones=st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=2))]))
    | st.datetimes()
    | st.dates()
    | st.times()
    | st.decimals(allow_nan=False, allow_infinity=False, places=2)
)
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=5) | st.integers(0, 9), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(documents)
def test_any_document_is_rendered_as_drf_renders_it(document: Any) -> None:
    assert ours.render(document, "application/json") == drf.render(document, "application/json")


@pytest.mark.parametrize(
    "document",
    [
        {"detail": gettext_lazy("Not found."), "code": "not_found"},  # lazy translations
        {"big": 2**80, "fine": 1},  # beyond 64 bits: left to DRF
        [Decimal("1.50"), dt.time(12, 30, 1, 250_000)],
        None,
    ],
)
def test_the_documents_orjson_alone_would_write_differently(document: Any) -> None:
    assert ours.render(document, "application/json") == drf.render(document, "application/json")


def test_an_indented_response_is_pretty_printed_as_drf_does() -> None:
    document = {"a": [1, {"b": None}]}
    indented = ours.render(document, "application/json; indent=4")

    assert indented == drf.render(document, "application/json; indent=4")
    assert b"\n    " in indented


def test_game_views_and_errors_are_the_bytes_drf_writes(db) -> None:
    alice, bob = (
        account_services.user_create(email_confirmed=True, username=n, password="dragon-heart-42")
        for n in ("alice", "bob")
    )
    game = start(alice, bob)
    state = event_log.load_state(game)
    player = alice if state.to_move == "a" else bob
    play = legal_plays(state)[0]
    services.game_play(
        game=game, user=player, cards=list(play.cards), choice=play.choice, expected_version=game.version
    )
    client = client_for(alice)

    for path in (
        f"/api/games/{game.pk}/",
        "/api/games/",
        f"/api/games/{game.pk}/events/",
        "/api/games/nope/",
    ):
        response = client.get(path)
        assert response.content == drf.render(response.data, "application/json"), path
    assert response.status_code == 404
