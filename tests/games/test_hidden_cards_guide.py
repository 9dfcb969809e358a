"""The how-to-play page and the lobby's poll show no card of any game: not the opponent's
hand, not a draw pile, for a player, a spectator or an anonymous reader, even when the page
is opened from a running game (tests/games/test_hidden_cards.py scans every other page)."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from tests.games.test_hidden_cards import _browser, _card_ids, _secret, people, running  # noqa: F401


@pytest.fixture(autouse=True)
def _english_afterwards():
    # A request in another language leaves that language active in this thread (Django's
    # LocaleMiddleware activates it and nothing deactivates it): later tests expect English.
    yield
    translation.deactivate()


def _responses(client, game) -> dict[str, Any]:
    calls = {
        "rules page": client.get("/how-to-play/"),
        "rules page of the game": client.get(f"/how-to-play/?game={game.pk}"),
        "rules page of the game in Ukrainian": client.get(
            f"/how-to-play/?game={game.pk}", HTTP_ACCEPT_LANGUAGE="uk"
        ),
    }
    if client.session.get("_auth_user_id"):
        calls["lobby poll"] = client.get("/?lobby=stale")
    return calls


@pytest.mark.parametrize("name", ["alice", "bob", "charlie", "anon"])
def test_the_rules_page_and_the_lobby_poll_show_no_card_hidden_from_their_reader(people, running, name):  # noqa: F811
    secret = _secret(running, name)
    client = _browser(people[name])
    for what, response in _responses(client, running).items():
        assert response.status_code == 200, what
        assert not _card_ids(response) & secret, f"{name}'s {what} shows hidden cards"
    assert secret


def test_the_rules_page_shows_no_card_of_the_game_at_all(people, running):  # noqa: F811
    # Not even the reader's own hand: the page explains the rules, not a position.
    client = _browser(people["alice"])
    for what in ("rules page", "rules page of the game"):
        assert _card_ids(_responses(client, running)[what]) == set(), what
