"""The event store: an append-only log with no gaps, and a cache that is only a cache."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.admin.sites import site
from django.core.management import call_command
from django.db import Error, connection, transaction
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext

from games import event_log, services
from games.models import Game, GameEvent
from tests.support.tables import play_first_legal, play_to_end, snapshot, start


@pytest.fixture
def game(alice, bob):
    game = start(alice, bob)
    for _ in range(6):
        play_first_legal(game)
    return game


@pytest.fixture
def root(make_user):
    root = make_user("root")
    root.is_staff = root.is_superuser = True
    root.save()
    return root


@pytest.fixture
def admin_browser(root):
    browser = Client()
    browser.force_login(root)
    return browser


def _rebuild(*args: str) -> str:
    out = StringIO()
    call_command("rebuild_game_cache", *args, stdout=out)
    return out.getvalue()


def _corrupt(game: Game) -> None:
    wrong = {**snapshot(game), "turn": snapshot(game)["turn"] + 1}
    Game.objects.filter(pk=game.pk).update(state=wrong, to_move="b" if game.to_move == "a" else "a")


# --- The log ------------------------------------------------------------------------------------


def test_events_are_numbered_one_to_the_games_version_without_a_gap(game):
    seqs = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))

    assert game.version > 6
    assert seqs == list(range(1, game.version + 1))
    assert Game.objects.get(pk=game.pk).version == game.version


def test_each_play_records_its_player_as_the_actor(game, alice, bob):
    actors = set(GameEvent.objects.filter(game=game, kind="cards_played").values_list("actor", flat=True))

    assert actors == {alice.pk, bob.pk}
    assert GameEvent.objects.get(game=game, seq=1).actor is None  # the dealer, not a player


def test_the_whole_log_folds_to_the_cached_state_after_a_whole_game(alice, bob):
    game = start(alice, bob)
    play_to_end(game)

    stored = Game.objects.get(pk=game.pk)

    assert stored.status == "finished"
    assert event_log.rebuild_state(stored).to_snapshot() == event_log.load_state(stored).to_snapshot()
    assert event_log.rebuild_state(stored).scores() == stored.scores


def test_playing_and_resigning_never_update_or_delete_an_event(game):
    with CaptureQueriesContext(connection) as queries:
        play_first_legal(game)
        services.game_resign(game=game, user=game.player_a)

    # Anywhere in a statement: on PostgreSQL a play's writes are one statement of several parts.
    sql = "\n".join(q["sql"].upper() for q in queries)
    assert re.search(r'INSERT INTO "?GAMES_GAMEEVENT"?', sql)
    assert not re.search(r'(UPDATE|DELETE FROM) "?GAMES_GAMEEVENT"?', sql)


@pytest.mark.postgresql
def test_on_postgresql_the_database_refuses_to_change_or_delete_an_event(game):
    for sql in (
        "UPDATE games_gameevent SET kind = 'forged' WHERE game_id = %s",
        "DELETE FROM games_gameevent WHERE game_id = %s",
    ):
        with pytest.raises(Error, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [game.pk])

    assert GameEvent.objects.filter(game=game).count() == game.version
    assert not GameEvent.objects.filter(kind="forged").exists()


# --- The admin ------------------------------------------------------------------------------------


def test_the_event_admin_allows_no_add_change_or_delete_even_to_a_superuser(game, root):
    model_admin = site._registry[GameEvent]
    request = RequestFactory().get("/admin/")
    request.user = root
    event = GameEvent.objects.filter(game=game).first()

    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request, event)
    assert not model_admin.has_delete_permission(request, event)


def test_a_superuser_sees_an_event_read_only_in_the_admin(game, admin_browser):
    event = GameEvent.objects.get(game=game, seq=1)

    page = admin_browser.get(f"/admin/games/gameevent/{event.pk}/change/")

    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    assert admin_browser.get("/admin/games/gameevent/add/").status_code == 403


def test_a_superuser_cannot_delete_or_change_an_event_through_the_admin(game, admin_browser):
    event = GameEvent.objects.get(game=game, seq=1)

    deleted = admin_browser.post(f"/admin/games/gameevent/{event.pk}/delete/", {"post": "yes"})
    changed = admin_browser.post(f"/admin/games/gameevent/{event.pk}/change/", {"kind": "forged"})

    assert deleted.status_code == 403
    assert changed.status_code == 403
    assert GameEvent.objects.get(pk=event.pk).kind == "game_started"


# --- The cache and its rebuild --------------------------------------------------------------------------


def test_the_cache_check_finds_no_mismatch_in_healthy_games(game, alice, charlie):
    finished = start(alice, charlie)
    services.game_resign(game=finished, user=charlie)

    report = _rebuild("--check")

    assert "2 games replayed, 0 caches found different" in report


def test_the_cache_check_reports_a_corrupted_cache_and_exits_1(game):
    _corrupt(game)

    with pytest.raises(SystemExit) as exit_:
        _rebuild("--check")

    assert exit_.value.code == 1
    assert Game.objects.get(pk=game.pk).to_move != game.to_move  # --check changes nothing


def test_the_cache_check_names_the_game_and_the_columns_that_differ(game):
    _corrupt(game)
    out = StringIO()

    with pytest.raises(SystemExit):
        call_command("rebuild_game_cache", "--check", stdout=out)

    assert f"game {game.pk}: cache differs from the log in state, to_move" in out.getvalue()
    assert "1 caches found different" in out.getvalue()


def test_the_rebuild_rewrites_a_corrupted_cache_from_the_log(game):
    _corrupt(game)

    report = _rebuild()

    assert "1 caches rebuilt different" in report
    assert "0 caches found different" in _rebuild("--check")
    stored = Game.objects.get(pk=game.pk)
    assert (stored.to_move, stored.state) == (game.to_move, game.state)
