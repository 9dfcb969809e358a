"""The bot kit on the real site: it reads the real API as the engine shows its bots the game,
and plays a whole match against the site's own bot (moved by a real Celery worker) through a
connection that a proxy cuts at seeded random moments, every game to its end, no turn missed
and none played twice."""

from __future__ import annotations

import contextlib
import random
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts import services as account_services
from engine.botkit import Api, Backoff, Policy, Runner, engine_bot, seat_view_from_api
from engine.bots import make_bot
from engine.visibility import seat_view
from games import event_log
from games.models import Game, GameEvent, IdempotentPlay, Series
from tests.support.celery_worker import wait_for

# "direct" too: the live server's doorbells (core/live.py) look for new events on that alias.
pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "direct"])
PASSWORD = "dragon-heart-42"


def account(name: str) -> tuple[Any, str]:
    user = account_services.user_create(email_confirmed=True, username=name, password=PASSWORD)
    _, key = account_services.token_create(user=user, name="bot kit")
    return user, key


def test_the_converter_reads_the_real_api_as_the_engine_sees_the_game() -> None:
    _, key = account("kit")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    rules = {"dragon_loss_return": "always_one"}  # the card put back comes up more often
    created = client.post("/api/games/", {"opponent": "bot:greedy", "rules": rules}, format="json")
    game_id = created.json()["id"]
    turns = 0
    while (view := client.get(f"/api/games/{game_id}/").json())["status"] != "finished":
        events = client.get(f"/api/games/{game_id}/events/", {"limit": 500}).json()["results"]
        game = Game.objects.get(pk=game_id)
        converted = seat_view_from_api(view, events)
        assert converted == seat_view(event_log.load_state(game), "a", event_log.read_log(game))
        play = make_bot("greedy", random.Random(turns)).choose(converted)
        body = {"cards": list(play.cards), "choice": play.choice, "expected_version": view["version"]}
        assert client.post(f"/api/games/{game_id}/plays/", body, format="json").status_code == 201
        turns += 1
    assert turns > 10


# --- a flaky connection ------------------------------------------------------------------------


class FlakyProxy:
    """A TCP proxy on 127.0.0.1 to ``upstream`` that cuts each connection (both ways, at once)
    after a number of the server's bytes drawn from a seeded generator, up to ``most``: a
    stream after a few events, now and then a play's answer (the play was made, its answer is
    lost), a page of events, an acceptance; short answers mostly pass."""

    def __init__(self, upstream: tuple[str, int], seed: str, most: int = 60_000) -> None:
        self.upstream = upstream
        self.rng = random.Random(seed)
        self.most = most
        self.cuts = 0
        self.connections = 0
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.closing = threading.Event()
        self.threads: list[threading.Thread] = []

    def _accept(self) -> None:
        while not self.closing.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            with self.lock:
                self.connections += 1
                budget = self.rng.randrange(self.most)
            self._spawn(self._serve, client, budget)

    def _spawn(self, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        with self.lock:
            self.threads.append(thread)

    def _serve(self, client: socket.socket, budget: int) -> None:
        try:
            server = socket.create_connection(self.upstream)
        except OSError:
            client.close()
            return
        up = threading.Thread(target=self._pump, args=(client, server, None), daemon=True)
        up.start()
        self._pump(server, client, budget)
        up.join()
        for end in (client, server):
            end.close()

    def _pump(self, source: socket.socket, sink: socket.socket, budget: int | None) -> None:
        try:
            while data := source.recv(65536):
                if budget is not None and len(data) >= budget:
                    sink.sendall(data[:budget])
                    self._cut(source, sink)
                    return
                if budget is not None:
                    budget -= len(data)
                sink.sendall(data)
            sink.shutdown(socket.SHUT_WR)  # the end of one direction, passed on
        except OSError:
            self._cut(source, sink)

    def _cut(self, *ends: socket.socket) -> None:
        with self.lock:
            self.cuts += 1
        for end in ends:
            with contextlib.suppress(OSError):  # already closed by the other side
                end.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> FlakyProxy:
        self._spawn(self._accept)
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        with self.lock:
            threads = list(self.threads)
        for thread in threads:
            thread.join(timeout=10)
        self.listener.close()


@pytest.fixture
def site(live_server, settings, celery_on_redis) -> str:
    """The site, its bot moved by a real worker at once; heartbeats every second, so that the
    kit's read timeout below is never reached by an idle stream, only by a cut one."""
    settings.STREAM_HEARTBEAT_SECONDS = 1.0
    url: str = live_server.url
    return url


@pytest.fixture
def kit_runner() -> Iterator[list[Runner]]:
    started: list[Runner] = []
    yield started
    for runner in started:
        runner.stop()


def test_the_kit_plays_a_whole_match_against_the_sites_bot_through_a_flaky_connection(site, kit_runner):
    user, key = account("botty")
    direct = Api(site, key)
    assert direct.post("/api/account/bot/").body == {"username": "botty", "is_bot": True}
    series = {"kind": "match", "target": 2}
    created = direct.post("/api/games/", {"opponent": "bot:greedy", "series": series})
    assert created.status == 201, created.body
    series_id = created.body["series"]
    host, port = site.removeprefix("http://").split(":")
    with FlakyProxy((host, int(port)), seed="botkit-live") as proxy:
        api = Api(proxy.url, key, timeout=5.0, rng=random.Random(1))
        api.backoff = Backoff(first=0.05, cap=1.0)
        runner = Runner(api, engine_bot("greedy", seed="botkit-live"), Policy(), rng=random.Random(2))
        kit_runner.append(runner)
        thread = threading.Thread(target=runner.run, daemon=True)
        thread.start()
        finished = wait_for(lambda: Series.objects.get(pk=series_id).over, seconds=600)
        runner.stop()
        thread.join(timeout=30)
    assert finished, dict(runner.tally)
    games = list(Game.objects.filter(series_id=series_id).order_by("number"))
    assert len(games) >= 2
    ended = {(g.status, g.end_reason) for g in games}
    assert ended <= {("finished", "deck_exhausted"), ("finished", "third_voyage")}
    # The connection was cut, often, and the kit lost no turn and played none twice: every
    # play it made carried a key of its own, none was refused, none was stale.
    assert proxy.cuts > 5
    assert runner.tally["reconnects"] > 3
    plays = GameEvent.objects.filter(
        game__series_id=series_id, actor=user, kind__in=("cards_played", "turn_passed")
    )
    assert IdempotentPlay.objects.filter(user=user).count() == plays.count() > 20
    assert (runner.tally["refused"], runner.tally["stale"], runner.tally["errors"]) == (0, 0, 0)
    assert runner.tally["played"] + runner.tally["replayed"] == plays.count()
