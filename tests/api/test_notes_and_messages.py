"""Private notes (GET/PUT /api/games/{id}/notes/), a word with a play (the play body's
"message"), muting (POST/DELETE /api/players/{name}/mute/): who reads what. Responses are
searched for the unique text itself, never trusted to a serializer's field list."""

from __future__ import annotations

import json

import pytest

from games.models import GameNote, Mute, PlayMessage
from tests.support.tables import start

SECRET = "zebra-secret-7f3a: bob holds two trolls"
WORD = "well played, friend-91c2"


@pytest.fixture
def game(alice, bob):
    return start(alice, bob)


def _seats(game, api):
    """(mover's name, waiter's name) as the game stands."""
    return ("alice", "bob") if game.to_move == "a" else ("bob", "alice")


def _play(client, game_id, **extra):
    view = client.get(f"/api/games/{game_id}/").json()
    body = {**view["legal_plays"][0], "expected_version": view["version"], **extra}
    return client.post(f"/api/games/{game_id}/plays/", body, format="json")


def _text(response) -> str:
    return json.dumps(response.json()) if response.content else ""


def test_it_keeps_each_players_notes_their_own(api, game):
    assert (
        api["alice"].put(f"/api/games/{game.pk}/notes/", {"text": SECRET}, format="json").status_code == 200
    )

    assert api["alice"].get(f"/api/games/{game.pk}/notes/").json()["text"] == SECRET
    assert api["bob"].get(f"/api/games/{game.pk}/notes/").json() == {"text": "", "updated_at": None}


def test_a_spectator_gets_404_for_notes_and_writes_none(api, game):
    api["alice"].put(f"/api/games/{game.pk}/notes/", {"text": SECRET}, format="json")

    assert api["charlie"].get(f"/api/games/{game.pk}/notes/").status_code == 404
    assert api["charlie"].put(f"/api/games/{game.pk}/notes/", {"text": "x"}, format="json").status_code == 404
    assert api["anon"].get(f"/api/games/{game.pk}/notes/").status_code == 401
    assert GameNote.objects.filter(game=game).count() == 1


def test_notes_over_the_limit_are_refused(api, game):
    response = api["alice"].put(f"/api/games/{game.pk}/notes/", {"text": "x" * 4001}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "note_too_long"
    assert (
        api["alice"].put(f"/api/games/{game.pk}/notes/", {"text": "x" * 4000}, format="json").status_code
        == 200
    )


def test_notes_refuse_an_unknown_key(api, game):
    response = api["alice"].put(f"/api/games/{game.pk}/notes/", {"text": "a", "txt": "b"}, format="json")

    assert response.status_code == 400
    assert not GameNote.objects.exists()


def test_notes_never_reach_the_view_events_or_record(api, game):
    mover, _ = _seats(game, api)
    api[mover].put(f"/api/games/{game.pk}/notes/", {"text": SECRET}, format="json")
    _play(api[mover], game.pk)
    api[mover].post(f"/api/games/{game.pk}/resign/")

    for who in ("alice", "bob", "charlie"):
        for path in ("", "events/", "record/"):
            response = api[who].get(f"/api/games/{game.pk}/{path}")
            assert response.status_code == 200, path
            assert SECRET not in _text(response), (who, path)


def test_a_message_of_280_characters_goes_with_the_play(api, game):
    mover, _ = _seats(game, api)

    assert _play(api[mover], game.pk, message="m" * 280).status_code == 201
    assert PlayMessage.objects.get(game=game).text == "m" * 280


def test_a_message_of_281_characters_is_refused_and_nothing_is_played(api, game):
    mover, _ = _seats(game, api)
    version = game.version

    response = _play(api[mover], game.pk, message="m" * 281)

    assert response.status_code == 400
    assert "message" in response.json()["errors"]
    game.refresh_from_db()
    assert game.version == version
    assert not PlayMessage.objects.exists()


def test_a_play_body_with_an_unknown_key_is_refused(api, game):
    mover, _ = _seats(game, api)
    version = game.version

    response = _play(api[mover], game.pk, mesage="typo")

    assert response.status_code == 400
    assert "mesage" in response.json()["errors"]
    game.refresh_from_db()
    assert game.version == version


def test_the_unknown_key_error_lists_the_allowed_keys(api, game):
    mover, _ = _seats(game, api)

    detail = _play(api[mover], game.pk, colour="red").json()["detail"]

    for key in ("cards", "choice", "expected_version", "message"):
        assert key in detail


def test_only_the_players_read_a_message_in_the_record(api, game):
    mover, waiter = _seats(game, api)
    _play(api[mover], game.pk, message=WORD)
    api[waiter].post(f"/api/games/{game.pk}/resign/")

    assert api[waiter].get(f"/api/games/{game.pk}/record/").json()["messages"][0]["text"] == WORD
    assert WORD in _text(api[mover].get(f"/api/games/{game.pk}/record/"))
    spectator = api["charlie"].get(f"/api/games/{game.pk}/record/")
    assert WORD not in _text(spectator)
    assert "messages" not in spectator.json()


def test_no_event_carries_a_message(api, game):
    mover, _waiter = _seats(game, api)
    _play(api[mover], game.pk, message=WORD)

    for who in ("alice", "bob", "charlie"):
        assert WORD not in _text(api[who].get(f"/api/games/{game.pk}/events/"))
        assert WORD not in _text(api[who].get(f"/api/games/{game.pk}/"))


def test_muting_hides_earlier_messages_in_the_record(api, game):
    mover, waiter = _seats(game, api)
    _play(api[mover], game.pk, message=WORD)
    api[waiter].post(f"/api/games/{game.pk}/resign/")

    assert api[waiter].post(f"/api/players/{mover}/mute/").json() == {
        "player": mover,
        "is_bot": False,
        "muted": True,
    }
    assert WORD not in _text(api[waiter].get(f"/api/games/{game.pk}/record/"))
    assert api[waiter].delete(f"/api/players/{mover}/mute/").json() == {
        "player": mover,
        "is_bot": False,
        "muted": False,
    }
    assert WORD in _text(api[waiter].get(f"/api/games/{game.pk}/record/"))


def test_muting_is_idempotent_and_not_for_oneself_or_nobody(api, game):
    api["bob"].post("/api/players/alice/mute/")
    api["bob"].post("/api/players/alice/mute/")

    assert Mute.objects.count() == 1
    assert api["bob"].post("/api/players/bob/mute/").status_code == 400
    assert api["bob"].post("/api/players/nobody/mute/").status_code == 404
    assert api["anon"].post("/api/players/alice/mute/").status_code == 401


def test_a_message_is_stored_as_sent_and_served_as_json_text(api, game):
    mover, waiter = _seats(game, api)
    _play(api[mover], game.pk, message="<script>alert(1)</script>")
    api[waiter].post(f"/api/games/{game.pk}/resign/")

    record = api[waiter].get(f"/api/games/{game.pk}/record/")

    assert record["Content-Type"] == "application/json"
    assert record.json()["messages"][0]["text"] == "<script>alert(1)</script>"
