"""The game page's link to its game's stream, as the Django test client sees it: a running game's
page connects and listens for every event the stream sends; a finished game's page does not."""

from __future__ import annotations

import re

from engine.events import KINDS
from games import challenges, services
from games.models import Game


def _started(alice, bob) -> Game:
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    return Game.objects.get(pk=game.pk)


def _page(client, user, game: Game) -> str:
    client.force_login(user)
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    text: str = response.content.decode()
    return text


def test_it_connects_a_running_games_page_to_its_stream(client, alice, bob):
    game = _started(alice, bob)

    page = _page(client, alice, game)

    assert f'sse-connect="/api/games/{game.pk}/stream/"' in page
    assert "vendor/htmx-ext-sse.min.js" in page


def test_it_fetches_the_poll_on_every_event_the_stream_sends(client, alice, bob):
    game = _started(alice, bob)

    page = _page(client, alice, game)

    trigger = re.search(r'<div class="poll"[^>]* hx-trigger="([^"]*)"', page)
    assert trigger is not None
    listed = {part.strip() for part in trigger.group(1).split(",")}
    assert {f"sse:{kind}" for kind in (*KINDS, "state", "reset")} <= listed


def test_it_connects_a_spectator_too(client, alice, bob, charlie):
    game = _started(alice, bob)

    page = _page(client, charlie, game)

    assert f'sse-connect="/api/games/{game.pk}/stream/"' in page


def test_it_opens_no_stream_for_a_finished_game(client, alice, bob):
    game = _started(alice, bob)
    services.game_resign(game=game, user=bob)

    page = _page(client, alice, game)

    assert "sse-connect" not in page
    assert "htmx-ext-sse" not in page


def test_it_keeps_the_fallback_poll_within_half_the_presence_window(client, alice, bob, settings):
    settings.PRESENCE_WINDOW_SECONDS = 40
    game = _started(alice, bob)

    page = _page(client, alice, game)

    assert 'data-fallback-seconds="20"' in page
