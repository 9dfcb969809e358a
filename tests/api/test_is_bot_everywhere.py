"""Every API object that names a player says whether a bot plays it (issue 27, "Bots marked"):
a sweep of the GET endpoints around alice's games against a bot account (botty), the site's
own bot and a person (bob), which finds each object with a name in it and checks its is_bot."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from accounts import bots as bot_accounts
from games import challenges, services
from ratings.models import Rating
from tests.support.clients import client_for
from tests.support.tables import start

# Every name the sweep may meet, as the API writes it, and whether a bot bears it.
IS_BOT = {
    "alice": False,
    "bob": False,
    "charlie": False,
    "botty": True,
    "bot:medium": True,  # the site's own bot in a game's players
    "Computer (medium)": True,  # the same, as a player's page names an opponent
}
# The keys that name a player, and the key beside each that must say whether it is a bot.
NAMING = {"username": "is_bot", "player": "is_bot", "opponent": "is_bot", "winner_username": "winner_is_bot"}


def _named(body: Any) -> Iterator[tuple[str | None, Any]]:
    """(name, the is_bot beside it) for every object of ``body`` that names a player; a name
    without is_bot yields the KeyError's stand-in, ``missing``."""
    if isinstance(body, list):
        for item in body:
            yield from _named(item)
    elif isinstance(body, dict):
        for key, flag in NAMING.items():
            if key in body and (body[key] is None or isinstance(body[key], str)):
                yield body[key], body.get(flag, "missing")
        players = body.get("players")
        if isinstance(players, dict):  # a game record: seat -> name, and seat -> is_bot beside it
            for seat, name in players.items():
                yield name, (body.get("is_bot") or {}).get(seat, "missing")
        for value in body.values():
            yield from _named(value)


def _sweep(client: Any, paths: list[str]) -> list[tuple[str | None, Any]]:
    found: list[tuple[str, str | None, Any]] = []
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        found += [(path, name, flag) for name, flag in _named(response.json())]
    for path, name, flag in found:
        expected = False if name is None else IS_BOT[name]  # an open seat: nobody, no bot
        assert flag is expected, f"{path}: {name!r} has is_bot {flag!r}"
    return [(name, flag) for _path, name, flag in found]


@pytest.fixture
def botty(make_bot_account):
    return make_bot_account("botty")


@pytest.fixture
def games(alice, bob, botty) -> dict[str, str]:
    """alice's games: running against botty and against bob, finished against botty and the
    site's bot; and botty's open challenge (an open seat)."""
    finished_bot = start(alice, botty)
    services.game_resign(game=finished_bot, user=botty)
    site_bot = challenges.game_create(creator=alice, opponent="bot:medium")
    services.game_resign(game=site_bot, user=alice)
    return {
        "bot": start(alice, botty).pk,
        "person": start(alice, bob).pk,
        "finished_bot": finished_bot.pk,
        "site_bot": site_bot.pk,
        "open": challenges.game_create(creator=botty, opponent=None).pk,
    }


def _game_paths(game_ids: list[str]) -> list[str]:
    return [f"/api/games/{game_id}/{tail}" for game_id in game_ids for tail in ("", "events/")]


def test_it_marks_every_player_named_by_a_game_against_a_bot_account(api, games, botty):
    paths = ["/api/games/?mine=1", *_game_paths([games["bot"], games["finished_bot"], games["open"]])]
    paths.append(f"/api/games/{games['finished_bot']}/record/")
    seen = _sweep(api["alice"], paths) + _sweep(client_for(botty), paths)
    assert ("botty", True) in seen
    assert ("alice", False) in seen


def test_it_marks_the_sites_own_bot_and_nobody_else_in_its_games(api, games):
    paths = [*_game_paths([games["site_bot"]]), f"/api/games/{games['site_bot']}/record/"]
    seen = _sweep(api["alice"], paths) + _sweep(api["charlie"], paths)  # a player, a spectator
    assert ("bot:medium", True) in seen
    assert ("alice", False) in seen


def test_it_marks_nobody_in_a_game_between_people(api, games):
    seen = _sweep(api["bob"], ["/api/games/?mine=1", *_game_paths([games["person"]])])
    assert {name for name, _flag in seen} == {"alice", "bob"}


def test_it_marks_bots_on_the_players_pages(api, games):
    paths = ["/api/players/alice/", "/api/players/botty/", "/api/players/bob/"]
    seen = _sweep(api["anon"], paths)
    # botty's own page says it is a bot, and alice's names it among her opponents and games.
    assert seen.count(("botty", True)) >= 3
    assert ("Computer (medium)", True) in seen
    assert ("bob", False) in seen


def test_it_marks_bots_on_the_leaderboards_and_the_list_of_bots_online(api, alice, botty):
    now = timezone.now()
    for user in (alice, botty):  # established: five rated games lately, a settled rating
        Rating.objects.create(user=user, rating=1600, deviation=60, games=5, rated_at=now, fifth_last_at=now)
    bot_accounts.mark_streaming(botty.pk)
    seen = _sweep(api["anon"], ["/api/leaderboard/", "/api/bots/leaderboard/", "/api/bots/online/"])
    assert ("alice", False) in seen
    assert seen.count(("botty", True)) == 2


def test_the_mute_answer_says_whether_the_muted_player_is_a_bot(api, botty, bob):
    assert api["alice"].post("/api/players/botty/mute/").json() == {
        "player": "botty",
        "is_bot": True,
        "muted": True,
    }
    assert api["alice"].delete("/api/players/bob/mute/").json()["is_bot"] is False
