"""The live streams over HTTP, read as a program reads them (tests/support/streams.py): a
server of its own in a thread (the embedded default's way of serving a stream: a thread per
request), the players' plays made through the API. The ASGI service serving them across
processes: tests/core/test_stream_service.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests
from django.contrib.auth.models import User

from accounts import services as account_services
from engine.cards import Seat
from games import event_log
from games.models import Game
from tests.support.streams import Received, StreamReader

PASSWORD = "dragon-heart-42"


@pytest.fixture
def people(transactional_db) -> dict[str, tuple[User, str]]:
    made = {}
    for name in ("alice", "bob", "carol"):
        user = account_services.user_create(username=name, password=PASSWORD)
        _, key = account_services.token_create(user=user, name="stream tests")
        made[name] = (user, key)
    return made


@pytest.fixture
def server(live_server, settings) -> str:
    settings.STREAM_HEARTBEAT_SECONDS = 30  # events come by their doorbell, never a heartbeat
    url: str = live_server.url
    return url


class Api:
    def __init__(self, server: str, key: str) -> None:
        self.server = server
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {key}"
        self.key = key

    def get(self, path: str) -> Any:
        answer = self.session.get(self.server + path, timeout=10)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        answer = self.session.post(self.server + path, json=body, timeout=10)
        assert answer.status_code in (200, 201), answer.text
        return answer.json()

    def stream(self, path: str = "/api/stream/", form: str = "sse", **headers: str) -> StreamReader:
        reader = StreamReader(self.server + path, {"Authorization": f"Token {self.key}", **headers}, form)
        return reader.open()


@pytest.fixture
def api(server, people) -> dict[str, Api]:
    return {name: Api(server, key) for name, (_, key) in people.items()}


@pytest.fixture
def readers() -> Any:
    """Every stream a test opens, closed at its end (a server thread would otherwise wait on
    it until its next heartbeat)."""
    opened: list[StreamReader] = []
    yield opened
    for reader in opened:
        reader.close()


def opened(readers: list[StreamReader], reader: StreamReader) -> StreamReader:
    readers.append(reader)
    assert reader.status == 200, reader.body
    return reader


def test_without_a_token_a_stream_answers_401_in_json(server):
    for path in ("/api/stream/", "/api/games/nosuchgame/stream/"):
        reader = StreamReader(server + path, {}).open()
        assert reader.status in (401, 403)
        assert reader.content_type.startswith("application/json")
        assert "detail" in json.loads(reader.body)


def test_a_game_that_does_not_exist_has_no_stream(api):
    reader = api["alice"].stream("/api/games/nosuchgame/stream/")
    assert (reader.status, json.loads(reader.body)["code"]) == (404, "not_found")


@pytest.mark.parametrize("form", ["sse", "ndjson"])
def test_a_challenge_reaches_the_open_stream_after_the_snapshot(api, readers, form):
    stream = opened(readers, api["bob"].stream(form=form))
    assert stream.content_type.startswith("text/event-stream" if form == "sse" else "application/x-ndjson")
    [synced] = stream.until("synced")
    assert (synced.id, synced.data) == (0, {})
    game = api["alice"].post("/api/games/", {"opponent": "bob", "days_per_turn": 3})
    challenge = stream.next_event()
    assert challenge is not None
    assert (challenge.id, challenge.event) == (1, "challenge")
    assert challenge.data["game_id"] == game["id"]
    assert challenge.data["challenger"] == {"username": "alice", "is_bot": False, "rating": 1500}


def test_heartbeats_come_while_nothing_happens(api, readers, settings):
    settings.STREAM_HEARTBEAT_SECONDS = 0.3
    stream = opened(readers, api["carol"].stream(form="sse"))
    stream.until("synced")
    api["alice"].post("/api/games/", {"opponent": "bob"})  # nothing for carol
    lines = [stream.read_line() for _ in range(4)]
    assert lines == [": ping", "", ": ping", ""]


def test_a_stream_resumed_from_its_last_id_misses_nothing_and_repeats_nothing(api, readers):
    stream = opened(readers, api["bob"].stream())
    stream.until("synced")
    first = api["alice"].post("/api/games/", {"opponent": "bob"})
    told = stream.next_event()
    assert told is not None
    assert told.id is not None
    stream.close()  # cut, as a network would
    api["bob"].post(f"/api/games/{first['id']}/decline/")
    second = api["carol"].post("/api/games/", {"opponent": "bob"})
    for resume in ({"Last-Event-ID": str(told.id)}, None):
        path = "/api/stream/" if resume else f"/api/stream/?after={told.id}"
        again = opened(readers, api["bob"].stream(path, **(resume or {})))
        gone, challenge = again.next_event(), again.next_event()
        assert gone is not None
        assert challenge is not None
        assert (gone.id, gone.event, gone.data) == (
            told.id + 1,
            "challenge_gone",
            {"game_id": first["id"], "reason": "declined"},
        )
        assert (challenge.id, challenge.event, challenge.data["game_id"]) == (
            told.id + 2,
            "challenge",
            second["id"],
        )


def test_a_cursor_beyond_the_newest_id_gets_reset_then_the_snapshot(api, readers):
    api["alice"].post("/api/games/", {"opponent": "bob"})
    stream = opened(readers, api["bob"].stream(**{"Last-Event-ID": "5000"}))
    events = stream.until("synced")
    assert [(e.id, e.event) for e in events] == [(None, "reset"), (None, "challenge"), (1, "synced")]


def hidden_cards(game_id: str, viewer: str) -> list[str]:
    """The cards ``viewer`` may not see now: the other hand and both piles."""
    game = Game.objects.get(pk=game_id)
    state = event_log.load_state(game)
    other: Seat = "b" if game.player_a_name == viewer else "a"
    return [*state.hands[other], *state.piles["a"], *state.piles["b"]]


TURNS_PLAYED = 16  # then a resignation: the rest of a deal is the engine's tests' to play


def test_a_game_every_turn_announced_once_with_the_view_the_api_gives_then_its_end(api, readers, settings):
    settings.STREAM_HEARTBEAT_SECONDS = 5
    streams = {name: opened(readers, api[name].stream(form="ndjson")) for name in ("alice", "bob")}
    for stream in streams.values():
        stream.until("synced")
    game = api["alice"].post("/api/games/", {"opponent": "bob"})
    api["bob"].post(f"/api/games/{game['id']}/accept/")
    watching = opened(readers, api["carol"].stream(f"/api/games/{game['id']}/stream/"))
    [state] = watching.until("state")
    assert state.id is not None
    for name, stream in streams.items():
        kinds = [e.event for e in stream.until("game_start")]
        assert kinds == ["challenge", "challenge_gone", "game_start"], name
    announced: dict[str, list[Received]] = {"alice": [], "bob": []}
    version = state.id
    while True:
        view = api["alice"].get(f"/api/games/{game['id']}/")
        if view["status"] == "finished":
            break
        name = "alice" if view["to_move"] == view["your_seat"] else "bob"
        turn = streams[name].next_event()
        if len(announced["alice"]) + len(announced["bob"]) == TURNS_PLAYED:
            # Enough turns: the player to move resigns, and the game ends as any game does.
            assert turn is not None
            assert turn.event == "your_turn"
            api[name].post(f"/api/games/{game['id']}/resign/")
            while (event := watching.next_event()) is not None and event.event != "game_ended":
                pass
            version = api["carol"].get(f"/api/games/{game['id']}/")["version"]
            continue
        assert turn is not None
        assert turn.event == "your_turn", turn
        mine = api[name].get(f"/api/games/{game['id']}/")
        assert turn.data["view"] == mine
        assert turn.data["version"] == mine["version"]
        raw = json.dumps(turn.data)
        for card in hidden_cards(game["id"], name):
            assert f'"{card}"' not in raw
        announced[name].append(turn)
        play = mine["legal_plays"][0]
        api[name].post(
            f"/api/games/{game['id']}/plays/",
            {"cards": play["cards"], "choice": play["choice"], "expected_version": mine["version"]},
        )
        # The spectator's game stream brings what the play made, as /events/ shows it to them.
        seen = []
        while version < api["carol"].get(f"/api/games/{game['id']}/")["version"]:
            event = watching.next_event()
            assert event is not None
            assert event.id == version + 1
            seen.append(event.data)
            version = event.id
        answer = api["carol"].get(f"/api/games/{game['id']}/events/?after={version - len(seen)}")
        assert seen == answer["results"][: len(seen)]
    for name, stream in streams.items():
        over = stream.next_event()
        assert over is not None
        assert over.event == "game_over", name
        assert over.data["game_id"] == game["id"]
    versions = [t.data["version"] for turns in announced.values() for t in turns]
    assert len(versions) == len(set(versions))  # each turn once
    # The spectator's stream ends with the game.
    while (event := watching.next_event()) is not None:
        version = event.id or version
    final = api["carol"].get(f"/api/games/{game['id']}/")
    assert version == final["version"]


def test_a_server_that_answers_one_request_at_a_time_refuses_streams(people, client):
    _, key = people["alice"]
    answer = client.get("/api/stream/", HTTP_AUTHORIZATION=f"Token {key}")
    assert answer.status_code == 503
    assert answer.json()["code"] == "stream_elsewhere"
