"""Pages show a BOT badge beside a bot's name — a bot account's or the site's own bot's — and
beside nobody else's (issue 27, "Bots marked")."""

from __future__ import annotations

import re

import pytest

from accounts import bots as bot_accounts
from games import challenges, services
from games.models import Game
from tests.support.tables import start

BADGE = 'class="bot-badge"'


def _panel(page: str, seat: str) -> str:
    """The game table's panel of ``seat`` (templates/games/_panel.html)."""
    found = re.search(rf'<section class="player[^"]*" data-seat="{seat}".*?</section>', page, re.S)
    assert found is not None, f"no panel for seat {seat}"
    return found.group(0)


def _page(client, user, path: str) -> str:
    client.force_login(user)
    response = client.get(path)
    assert response.status_code == 200, path
    return str(response.content.decode())


@pytest.fixture
def botty(make_user):
    user = make_user("botty")
    bot_accounts.make_bot(user)
    return user


def test_it_badges_a_bot_account_at_the_table_and_not_its_opponent(client, alice, botty):
    page = _page(client, alice, f"/games/{start(alice, botty).pk}/")
    assert BADGE in _panel(page, "b")
    assert BADGE not in _panel(page, "a")


def test_it_badges_the_sites_own_bot_at_the_table(client, alice):
    game = challenges.game_create(creator=alice, opponent="bot:medium")
    page = _page(client, alice, f"/games/{game.pk}/")
    assert BADGE in _panel(page, "b")
    assert BADGE not in _panel(page, "a")


def test_it_badges_nobody_in_a_game_between_people(client, alice, bob):
    game = start(alice, bob)
    assert BADGE not in _page(client, alice, f"/games/{game.pk}/")
    assert BADGE not in _page(client, alice, f"/games/{game.pk}/history/")
    assert BADGE not in _page(client, alice, "/")
    assert BADGE not in _page(client, alice, "/players/bob/")


def test_the_badge_says_what_it_means_to_someone_who_cannot_guess(client, alice, botty):
    page = _page(client, alice, f"/games/{start(alice, botty).pk}/")
    assert re.search(r'<abbr class="bot-badge" title="[^"]*program[^"]*">BOT</abbr>', _panel(page, "b"))


def test_it_badges_a_bot_account_in_the_lobby_history_and_end_screen(client, alice, botty):
    running = start(alice, botty)
    finished = start(alice, botty)
    services.game_resign(game=finished, user=botty)
    lobby = _page(client, alice, "/")
    turns = lobby[lobby.index('id="lobby-turns"') : lobby.index('id="lobby-challenges"')]
    assert f"/games/{running.pk}/" in turns
    assert "botty <abbr" in turns
    assert "botty <abbr" in lobby[lobby.index('id="lobby-finished"') :]
    assert BADGE in _panel(_page(client, alice, f"/games/{finished.pk}/history/"), "b")
    end = _page(client, alice, f"/games/{finished.pk}/")
    assert "botty <abbr" in end[end.index('class="scores result-scores"') :]


def test_it_badges_a_challenge_from_a_bot_account_and_its_invitation(client, alice, bob, botty):
    challenges.game_create(creator=botty, opponent="alice")
    lobby = _page(client, alice, "/")
    assert "botty <abbr" in lobby[lobby.index('id="lobby-challenges"') :]
    open_challenge = challenges.game_create(creator=botty, opponent=None)
    token = Game.objects.get(pk=open_challenge.pk).invite_token
    assert "botty <abbr" in _page(client, bob, f"/invite/{token}/")


def test_it_badges_a_bot_accounts_own_page_and_its_name_on_its_opponents_pages(client, alice, botty):
    finished = start(alice, botty)
    services.game_resign(game=finished, user=botty)
    own = _page(client, alice, "/players/botty/")
    assert re.search(r'<h1 id="player-name">botty <abbr class="bot-badge"', own)
    theirs = _page(client, botty, "/players/alice/")
    assert '<h1 id="player-name">alice</h1>' in theirs
    opponents = theirs[theirs.index('class="opponents"') : theirs.index('id="current"')]
    assert re.search(r'href="/players/botty/">botty</a> <abbr class="bot-badge"', opponents)
