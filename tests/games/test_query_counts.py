"""Requests cost a constant number of queries, whatever a game's length or the number of games.
Each API request counted here includes its token's lookup (one query), as every request of a
client that asks less than once a second does."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.authentication import forget_locally
from games import challenges
from tests.support.api_plays import advance, ordinary_play


def _new_game(api, alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    return game.pk


def _queries(call, warm: bool = True) -> int:
    """The queries of one request, its token's lookup included (accounts.authentication)."""
    if warm:
        call()  # the connection, prepared statements and per-process caches, as in a server
    forget_locally()
    with CaptureQueriesContext(connection) as captured:
        response = call()
    assert response.status_code in (200, 201), response.content
    return len(captured)


def _mover(api, game_id):
    view = api["alice"].get(f"/api/games/{game_id}/").json()
    return api["alice"] if view["to_move"] == "a" else api["bob"]


def test_the_game_view_costs_the_same_early_and_late(api, alice, bob):
    game_id = _new_game(api, alice, bob)
    early = _queries(lambda: api["charlie"].get(f"/api/games/{game_id}/"))
    advance(api, game_id, 40)
    late = _queries(lambda: api["charlie"].get(f"/api/games/{game_id}/"))
    assert early == late <= 3


def _play_queries(api, game_id) -> int:
    client = _mover(api, game_id)
    body = ordinary_play(game_id)
    return _queries(lambda: client.post(f"/api/games/{game_id}/plays/", body, format="json"), warm=False)


def test_a_play_costs_the_same_early_and_late(api, alice, bob):
    game_id = _new_game(api, alice, bob)
    early = _play_queries(api, game_id)
    # The last play of a game writes its end as well (emails, a series' next game): the plays
    # measured here are ordinary ones, in a long game still running.
    assert advance(api, game_id, 40, keep_running=True) == 40
    late = _play_queries(api, game_id)
    assert early == late <= 6


def test_the_game_list_costs_the_same_for_one_game_and_for_thirty(api, alice, bob):
    _new_game(api, alice, bob)
    one = _queries(lambda: api["alice"].get("/api/games/?mine=1"))
    for _ in range(29):
        _new_game(api, alice, bob)
    thirty = _queries(lambda: api["alice"].get("/api/games/?mine=1"))
    assert one == thirty <= 3


def test_the_events_page_costs_the_same_for_a_short_and_a_long_game(api, alice, bob):
    game_id = _new_game(api, alice, bob)
    short = _queries(lambda: api["bob"].get(f"/api/games/{game_id}/events/"))
    advance(api, game_id, 30)
    long = _queries(lambda: api["bob"].get(f"/api/games/{game_id}/events/"))
    assert short == long <= 4


def test_the_game_page_with_its_last_turns_costs_the_same_early_and_late(client, api, alice, bob):
    game_id = _new_game(api, alice, bob)
    client.force_login(alice)
    advance(api, game_id, 2, keep_running=True)  # both seats have a last turn to tell
    early = _queries(lambda: client.get(f"/games/{game_id}/"))
    advance(api, game_id, 60, keep_running=True)
    late_page = client.get(f"/games/{game_id}/").content.decode()
    late = _queries(lambda: client.get(f"/games/{game_id}/"))

    assert 'class="last-turn' in late_page
    # Seven for the table and the header's count of games waiting (read with the table's "Next
    # game", games/table.py), and two for what only a player sees: the words sent with the plays
    # (muted ones flagged in the same query) and the player's own notes.
    assert early == late <= 9


def test_a_spectators_game_page_pays_nothing_for_notes_or_messages(client, api, alice, bob, charlie):
    game_id = _new_game(api, alice, bob)
    advance(api, game_id, 2, keep_running=True)
    client.force_login(charlie)

    assert _queries(lambda: client.get(f"/games/{game_id}/")) <= 7


def test_the_waiting_players_page_reads_the_next_game_once(client, api, alice, bob):
    game_id = _new_game(api, alice, bob)
    advance(api, game_id, 2, keep_running=True)
    waiting = bob if _mover(api, game_id) is api["alice"] else alice
    client.force_login(waiting)

    assert _queries(lambda: client.get(f"/games/{game_id}/")) <= 9
