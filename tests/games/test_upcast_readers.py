"""Every reader of a log upcasts: a game whose stored events are of an older schema version
reads exactly like its twin stored at the current one.

No kind has an older version yet, so the tests plant one: version 0 of every kind, as if it had
kept its payload under "data", with the step that brings it to version 1. A reader that took
rows as they are would find none of the fields it reads."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db.models import Field

from engine import events as ev
from games import challenges, event_log, services
from games.management.commands.verify_games import problems_of
from games.models import Game, GameEvent
from notifications import emails
from tests.support.api_plays import advance
from tests.support.tables import play_to_end


def _from_v0(event: dict[str, Any]) -> dict[str, Any]:
    return {"kind": event["kind"], "v": 1, **event["data"]}


@pytest.fixture(autouse=True)
def _version_zero(monkeypatch):
    monkeypatch.setattr(ev, "UPCASTERS", {(kind, 0): _from_v0 for kind in ev.KINDS})


def _twin_of_old_version(game: Game) -> Game:
    """A copy of ``game`` (a new id) whose every stored event is at version 0."""
    values = {
        f.attname: getattr(game, f.attname)
        for f in Game._meta.concrete_fields
        if isinstance(f, Field) and f.attname not in ("id", "invite_token")
    }
    twin = Game.objects.create(**values)
    GameEvent.objects.bulk_create(
        GameEvent(game=twin, seq=row.seq, kind=row.kind, v=0, payload={"data": row.payload}, actor=row.actor)
        for row in GameEvent.objects.filter(game=game).order_by("seq")
    )
    assert set(GameEvent.objects.filter(game=twin).values_list("v", flat=True)) == {0}
    return Game.objects.get(pk=twin.pk)


@pytest.fixture
def running(api, alice, bob) -> tuple[Game, Game]:
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    assert advance(api, game.pk, 12) == 12
    game = Game.objects.get(pk=game.pk)
    return game, _twin_of_old_version(game)


@pytest.fixture
def finished(alice, bob) -> tuple[Game, Game]:
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    game = Game.objects.get(pk=game.pk)
    play_to_end(game)
    game = Game.objects.get(pk=game.pk)
    return game, _twin_of_old_version(game)


def _events(client, game: Game) -> list[dict[str, Any]]:
    results = client.get(f"/api/games/{game.pk}/events/?limit=500").json()["results"]
    return [{k: v for k, v in row.items() if k != "created_at"} for row in results]


def test_the_events_api_upcasts(api, running):
    game, twin = running
    assert _events(api["bob"], twin) == _events(api["bob"], game)
    assert _events(api["charlie"], twin) == _events(api["charlie"], game)


def test_the_record_api_upcasts(api, finished):
    game, twin = finished
    assert api["alice"].get(f"/api/games/{twin.pk}/record/").json() == (
        api["alice"].get(f"/api/games/{game.pk}/record/").json()
    )


@pytest.mark.parametrize("which", ["running", "finished"])
def test_the_history_page_upcasts(client, alice, request, which):
    game, twin = request.getfixturevalue(which)
    client.force_login(alice)
    for query in ("", "?step=5", "?since=1"):
        page, twin_page = (client.get(f"/games/{g.pk}/history/{query}") for g in (game, twin))
        assert twin_page.status_code == page.status_code == 200
        for name in ("lines", "current", "step", "last"):
            assert twin_page.context[name] == page.context[name], name
        assert _but_ids(twin_page.context["view"]) == _but_ids(page.context["view"])


def _but_ids(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in ("id", "created_at")}


def test_the_turn_email_upcasts(running, alice, bob):
    game, twin = running
    reader = game.player(game.to_move)
    assert emails.turn_context(twin, reader)["since"] == emails.turn_context(game, reader)["since"]


@pytest.mark.parametrize("which", ["running", "finished"])
def test_rebuilding_the_state_upcasts(request, which):
    game, twin = request.getfixturevalue(which)
    assert event_log.rebuild_state(twin).to_snapshot() == event_log.rebuild_state(game).to_snapshot()


@pytest.mark.parametrize("which", ["running", "finished"])
def test_the_audit_upcasts(request, which):
    game, twin = request.getfixturevalue(which)
    assert problems_of(game) == []
    assert problems_of(twin) == []


def test_the_bot_reads_an_old_log_as_a_current_one(alice, monkeypatch):
    game = challenges.game_create(creator=alice, opponent="bot:greedy", rules={"first_player": "a"})
    for _ in range(4):  # alice and the bot in turn: the log has draws the bot's view looks at
        game = Game.objects.get(pk=game.pk)
        services.game_play(game=game, user=alice, expected_version=game.version, **_first_legal(game))
        assert services.bot_play_turn(game_id=game.pk)
    game = Game.objects.get(pk=game.pk)
    services.game_play(game=game, user=alice, expected_version=game.version, **_first_legal(game))
    game = Game.objects.get(pk=game.pk)
    twin = _twin_of_old_version(game)
    moves = []
    for each in (game, twin):
        monkeypatch.setattr(services, "_table_rng", random.Random(5))
        assert services.bot_play_turn(game_id=each.pk)
        moves.append([row.as_engine_event() for row in event_log.read_events(each, after=game.version)])
    assert moves[1] == moves[0] != []


def _first_legal(game: Game) -> dict[str, Any]:
    from engine import legal_plays

    play = legal_plays(event_log.load_state(game))[0]
    return {"cards": list(play.cards), "choice": play.choice}
