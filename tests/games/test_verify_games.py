"""`manage.py verify_games`: the audit of every log against the rules and the cache."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from games import challenges, services
from games.models import Game, GameEvent
from tests.support.api_plays import advance


def _verify() -> tuple[int, str]:
    out = io.StringIO()
    try:
        call_command("verify_games", stdout=out)
    except SystemExit as exit_:
        return int(exit_.code or 0), out.getvalue()
    return 0, out.getvalue()


@pytest.fixture
def played(api, alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    advance(api, game.pk, 12)
    return Game.objects.get(pk=game.pk)


def test_healthy_games_verify_cleanly(played, alice, bob):
    resigned = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=resigned, user=bob)
    services.game_resign(game=resigned, user=bob)
    code, out = _verify()
    assert code == 0, out
    assert "2 games verified, 0 problems" in out


def test_an_event_the_rules_would_not_write_is_reported(played):
    forged = {"seat": played.to_move, "space": "chest", "cards": ["a00"]}
    GameEvent.objects.create(game=played, seq=played.version + 1, kind="cards_captured", v=1, payload=forged)
    Game.objects.filter(pk=played.pk).update(version=played.version + 1)
    code, out = _verify()
    assert code == 1
    assert f"game {played.pk}: the rules write a different log" in out


def test_a_gap_in_the_log_is_reported(played):
    Game.objects.filter(pk=played.pk).update(version=played.version + 1)
    code, out = _verify()
    assert code == 1
    assert "sequence numbers" in out


def test_a_cache_that_differs_from_the_log_is_reported(played):
    Game.objects.filter(pk=played.pk).update(to_move="b" if played.to_move == "a" else "a")
    code, out = _verify()
    assert code == 1
    assert "the cache differs from the log in to_move" in out


@pytest.mark.parametrize(
    ("column", "value"), [("deal_commitment", "0" * 64), ("deal_salt", "0" * 64), ("deal_salt", "damaged")]
)
def test_a_finished_game_whose_deal_does_not_open_onto_its_decks_is_reported(alice, bob, column, value):
    game = challenges.game_create(creator=alice, opponent="bob")
    challenges.game_accept(game=game, user=bob)
    services.game_resign(game=game, user=bob)
    Game.objects.filter(pk=game.pk).update(**{column: value})
    code, out = _verify()
    assert code == 1
    assert f"game {game.pk}: the deal's" in out
