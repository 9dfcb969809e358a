"""The live streams' logic (games/streams.py), in process: the account stream's snapshot and
cursors, the game stream's redaction and end, the two ways of driving a stream (a thread, an
event loop) and the bytes of each format. Over HTTP, as clients read them:
tests/api/test_streams.py."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from accounts import services as account_services
from core.live import Hub
from games import challenges, event_log, streams
from games.models import Game
from outbox import account_events
from outbox.models import AccountEvent
from tests.support.clients import client_for
from tests.support.tables import play_first_legal, play_to_end, start, to_move, waiting


@pytest.fixture
def alice(db) -> User:
    return account_services.user_create(username="alice", password="dragon-heart-42")


@pytest.fixture
def bob(db) -> User:
    return account_services.user_create(username="bob", password="dragon-heart-42")


def parsed(messages: list[streams.Message]) -> list[tuple[int | None, str, dict[str, Any]]]:
    return [(m.id, m.event, json.loads(m.data)) for m in messages]


# --- The account's stream -----------------------------------------------------------------


def test_without_a_cursor_the_snapshot_lists_challenges_then_turns_then_synced(alice, bob):
    carol = account_services.user_create(username="carol", password="dragon-heart-42")
    to_bob = challenges.game_create(creator=carol, opponent="bob")
    own = challenges.game_create(creator=bob, opponent=None)
    game = start(alice, bob)
    if to_move(game) != bob:
        play_first_legal(game)
        game.refresh_from_db()
    stream = streams.AccountStream(bob, None)
    told = parsed(stream.opening())
    assert [(i, kind) for i, kind, _ in told] == [
        (None, "challenge"),
        (None, "challenge"),
        (None, "your_turn"),
        (account_events.newest(bob.pk), "synced"),
    ]
    assert {(d["game_id"], d["direction"]) for _, _, d in told[:2]} == {(to_bob.pk, "in"), (own.pk, "out")}
    turn = told[2][2]
    assert (turn["game_id"], turn["version"]) == (game.pk, game.version)
    assert turn["view"] == client_for(bob).get(f"/api/games/{game.pk}/").json()
    # Nothing the snapshot showed comes again.
    assert stream.more() == []


def test_a_cursor_sends_every_event_after_it_in_order(alice, bob):
    game = start(alice, bob)
    play_first_legal(game)
    seqs = list(AccountEvent.objects.filter(user=bob).order_by("seq").values_list("seq", flat=True))
    stream = streams.AccountStream(bob, "1")
    assert stream.opening() == []
    assert [m.id for m in stream.more()] == seqs[1:]
    assert stream.more() == []


@pytest.mark.parametrize("cursor", ["abc", "-1", "1.5", "99", " 1", "٣"])
def test_a_cursor_that_is_no_number_or_beyond_the_newest_gets_reset_then_the_snapshot(alice, bob, cursor):
    start(alice, bob)
    told = parsed(streams.AccountStream(bob, cursor).opening())
    assert told[0] == (None, "reset", {})
    assert told[-1][:2] == (account_events.newest(bob.pk), "synced")


def test_a_cursor_older_than_what_is_kept_gets_reset(alice, bob, settings):
    start(alice, bob)
    newest = account_events.newest(bob.pk)
    # Everything older than the kept days is forgotten, all of bob's events here.
    AccountEvent.objects.update(
        created_at=timezone.now() - timedelta(days=settings.STREAM_EVENTS_KEPT_DAYS + 1)
    )
    assert account_events.prune() > 0
    assert parsed(streams.AccountStream(bob, "0").opening())[0][1] == "reset"
    # The newest id itself is still a good cursor, and ids go on counting from it.
    assert streams.AccountStream(bob, str(newest)).opening() == []
    challenges.game_create(creator=alice, opponent="bob")
    assert account_events.newest(bob.pk) == newest + 1


def test_the_stream_of_one_account_never_carries_anothers_events(alice, bob):
    start(alice, bob)
    stream = streams.AccountStream(alice, "0")
    stream.opening()
    mine = {m.id for m in stream.more()}
    assert mine == set(AccountEvent.objects.filter(user=alice).values_list("seq", flat=True))
    assert AccountEvent.objects.filter(user=bob).exists()
    assert stream.more() == []  # nothing left, bob's events included


# --- A game's stream ----------------------------------------------------------------------


def test_a_game_stream_starts_with_the_viewers_state_then_sends_each_event_by_version(alice, bob):
    game = start(alice, bob)
    stream = streams.GameStream(game, bob, None)
    [(version, kind, state)] = parsed(stream.opening())
    assert (version, kind) == (game.version, "state")
    assert state == client_for(bob).get(f"/api/games/{game.pk}/").json()
    play_first_legal(game)
    told = parsed(stream.more())
    answer = client_for(bob).get(f"/api/games/{game.pk}/events/?after={version}").json()["results"]
    assert [data for _, _, data in told] == answer
    assert [i for i, _, _ in told] == [e["seq"] for e in answer]
    assert [k for _, k, _ in told] == [e["kind"] for e in answer]


def test_a_spectators_game_stream_shows_no_hand_and_no_deck(alice, bob):
    carol = account_services.user_create(username="carol", password="dragon-heart-42")
    game = start(alice, bob)
    stream = streams.GameStream(Game.objects.get(pk=game.pk), carol, "0")
    stream.opening()
    for _ in range(6):
        play_first_legal(game)
        game.refresh_from_db()
    sent = "".join(m.data for m in stream.more())
    state = event_log.load_state(game)
    hidden = [*state.hands["a"], *state.hands["b"], *state.piles["a"], *state.piles["b"]]
    assert hidden
    for card in hidden:
        assert f'"{card}"' not in sent


def test_a_game_stream_ends_with_its_game_after_the_last_event(alice, bob):
    game = start(alice, bob)
    stream = streams.GameStream(game, alice, None)
    stream.opening()
    assert not stream.done
    play_to_end(game)
    told = stream.more()
    while not stream.done:
        told += stream.more()
    assert told[-1].event == "game_ended"
    # After the end, the stream of a finished game opens and is done at once.
    finished = streams.GameStream(Game.objects.get(pk=game.pk), alice, None)
    finished.opening()
    assert finished.done


def test_a_game_stream_of_a_declined_challenge_ends(alice, bob):
    game = challenges.game_create(creator=alice, opponent="bob")
    stream = streams.GameStream(game, alice, None)
    stream.opening()
    challenges.game_decline(game=game, user=bob)
    assert stream.more() == []
    assert stream.done


# --- Driving a stream: formats, heartbeats, doorbells ---------------------------------------


class Scripted:
    """A stream with no database: opens with one event, then sends what a test queues."""

    keys = frozenset({"t1"})

    def __init__(self) -> None:
        self.queued: list[streams.Message] = []
        self.done = False
        self.beats = 0

    def opening(self) -> list[streams.Message]:
        return [streams.Message("synced", "{}", 7)]

    def more(self) -> list[streams.Message]:
        sent, self.queued = self.queued, []
        return sent

    def beat(self) -> None:
        self.beats += 1


def test_sse_and_ndjson_carry_the_same_id_event_and_data():
    message = streams.Message("your_turn", '{"game_id":"g1","n":[1,2]}', 12)
    assert (
        streams.render(message, streams.SSE)
        == b'id: 12\nevent: your_turn\ndata: {"game_id":"g1","n":[1,2]}\n\n'
    )
    line = json.loads(streams.render(message, streams.NDJSON))
    assert line == {"id": 12, "event": "your_turn", "data": {"game_id": "g1", "n": [1, 2]}}
    unlogged = json.loads(streams.render(streams.Message("reset", "{}"), streams.NDJSON))
    assert unlogged == {"event": "reset", "data": {}}
    assert streams.heartbeat(streams.SSE) == b": ping\n\n"
    assert streams.heartbeat(streams.NDJSON) == b"\n"


@pytest.mark.parametrize("form", [streams.SSE, streams.NDJSON])
def test_a_thread_sends_the_opening_then_heartbeats_then_what_a_ring_brings(settings, form):
    settings.STREAM_HEARTBEAT_SECONDS = 0.05
    doorbells = Hub(listening=False)
    stream = Scripted()
    body = streams.sync_body(stream, form, doorbells)
    assert next(body) == streams.render(streams.Message("synced", "{}", 7), form)
    assert next(body) == streams.heartbeat(form)
    assert stream.beats == 1
    stream.queued.append(streams.Message("game_over", '{"game_id":"g"}', 8))
    doorbells.ring(["t1"])
    assert next(body) == streams.render(streams.Message("game_over", '{"game_id":"g"}', 8), form)
    body.close()
    assert doorbells.subscribers() == 0


def test_a_ring_wakes_a_waiting_thread_before_its_heartbeat(settings):
    settings.STREAM_HEARTBEAT_SECONDS = 30
    doorbells = Hub(listening=False)
    stream = Scripted()
    body = streams.sync_body(stream, streams.SSE, doorbells)
    next(body)
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(next(body)))
    reader.start()
    stream.queued.append(streams.Message("challenge", "{}", 8))
    doorbells.ring(["t1"])
    reader.join(timeout=10)
    assert chunks == [b"id: 8\nevent: challenge\ndata: {}\n\n"]
    assert stream.beats == 0
    body.close()


def test_an_event_loop_drives_a_stream_the_same_way(settings):
    settings.STREAM_HEARTBEAT_SECONDS = 0.05
    doorbells = Hub(listening=False)
    stream = Scripted()

    async def read() -> list[bytes]:
        body = streams.async_body(stream, streams.NDJSON, doorbells)
        chunks = [await anext(body), await anext(body)]
        stream.queued.append(streams.Message("game_over", "{}", 8))
        doorbells.ring(["t1"])
        chunks.append(await anext(body))
        stream.done = True
        await body.aclose()
        return chunks

    # On a loop of its own, in a thread of its own: whatever ran before in this process may
    # have left a loop running in the main thread, where asyncio.run refuses to start.
    with ThreadPoolExecutor(max_workers=1) as pool:
        chunks = pool.submit(asyncio.run, read()).result()
    assert [json.loads(c) if c.strip() else None for c in chunks] == [
        {"id": 7, "event": "synced", "data": {}},
        None,
        {"id": 8, "event": "game_over", "data": {}},
    ]
    assert doorbells.subscribers() == 0


def test_a_stream_ends_when_its_game_does():
    doorbells = Hub(listening=False)
    stream = Scripted()
    stream.done = True
    assert list(streams.sync_body(stream, streams.SSE, doorbells)) == [b"id: 7\nevent: synced\ndata: {}\n\n"]


def test_the_turn_a_snapshot_showed_is_not_announced_again(alice, bob):
    game = start(alice, bob)
    player = to_move(game)
    stream = streams.AccountStream(player, None)
    turns = [m for m in stream.opening() if m.event == "your_turn"]
    assert len(turns) == 1
    play_first_legal(game)  # the player plays: the turn is over, the other's begins
    game.refresh_from_db()
    assert [m.event for m in stream.more()] == []
    assert waiting(game) == player
