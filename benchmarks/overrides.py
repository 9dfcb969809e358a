"""Each override and fast path (the table in core/__init__.py) timed beside the library code
it replaces, in one process.

    .venv/bin/python -m benchmarks.overrides [--number 4000] [--repeats 5] [--only csp,renderer]

For each pair it prints the CPU of this process per call (``time.process_time``, the best of
``--repeats`` runs) of ours and of the library's, ours as a share of the library's, and the
µs saved. What both sides of a pair do that is neither (the view a middleware wraps, the
request it is given, the rows a write is given) is timed apart and taken off both. The
database is a fresh test database (the settings' SQLite by default; DATABASE_URL for
PostgreSQL, whose server CPU is not counted), the cache the settings' (REDIS_URL for Redis),
DEBUG off, and a game of about 250 events to read and play in.

Not a test: the figures move with the machine, and the comparison tests say whether the
outputs agree. A micro-benchmark shows what one call costs, not what a request pays: see
benchmarks/inprocess.py for that.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import time
import timeit
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

Call = Callable[[], object]
NO_EXPRESSION: Any = None  # a column read whole, as the ORM reads a model's row


@dataclass
class Pair:
    name: str
    ours: Call
    library: Call
    baseline: Call | None = None  # what both calls include that is neither's; taken off both
    library_baseline: Call | None = None  # the library's own, where it differs
    scale: int = 1  # slower pairs run --number / scale calls


def _cpu_us(call: Call, number: int, repeats: int) -> float:
    """µs of this process's CPU per call: the best of ``repeats`` runs of ``number`` calls."""
    return min(timeit.repeat(call, number=number, repeat=repeats, timer=time.process_time)) / number * 1e6


def _report(pair: Pair, number: int, repeats: int) -> None:
    calls = max(1, number // pair.scale)
    base = _cpu_us(pair.baseline, calls, repeats) if pair.baseline else 0.0
    library_base = _cpu_us(pair.library_baseline, calls, repeats) if pair.library_baseline else base
    ours = max(0.0, _cpu_us(pair.ours, calls, repeats) - base)
    library = max(0.0, _cpu_us(pair.library, calls, repeats) - library_base)
    share = f"{100 * ours / library:5.0f}%" if library else "    -"
    print(f"{pair.name:42} {ours:9.1f} {library:9.1f} {share:>12} {library - ours:9.1f}")


def _django() -> str:
    """Django set up as the tests have it (DEBUG off), on a fresh test database; returns the
    name of the database it replaced, for destroy_test_db."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dragonheart_site.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")  # not a line per email the game's plays send
    os.environ.setdefault("THROTTLE_PLAYS", "100000/minute")  # the game is played in a second
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment()
    if connection.vendor != "sqlite":  # never the test database a test run may be using
        connection.settings_dict.setdefault("TEST", {})["NAME"] = "dragonheart_bench_overrides"
    name: str = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    return name


# --- Middleware and rendering: no database --------- ---------------------------------------


def _view(request: Any) -> Any:
    from django.http import HttpResponse

    return HttpResponse()


def _csp() -> Iterator[Pair]:
    from csp.middleware import CSPMiddleware as Library
    from django.test import RequestFactory

    from core.middleware import CSPMiddleware

    request = RequestFactory().get("/api/games/abc/")
    ours, library = CSPMiddleware(_view), Library(_view)
    yield Pair("CSPMiddleware", lambda: ours(request), lambda: library(request), lambda: _view(request))


# --- What reads and writes a game: the test database ----------------------------------------


@dataclass
class World:
    game: Any
    user: Any
    token: str
    view: dict[str, Any]  # the game as its player's API call gets it


def _world(events: int) -> World:
    """Two players and their game, played through the API (its contract, not the services'
    signatures) until ``events`` events; the player to move is the one measured."""
    from rest_framework.test import APIClient

    from accounts.services import token_create, user_create
    from benchmarks.stack import planned_plays
    from games import selectors
    from games.models import Game

    players: dict[str, tuple[Any, str, APIClient]] = {}
    for seat, name in (("a", "alice"), ("b", "bob")):  # the creator sits in seat a
        user = user_create(email_confirmed=True, username=name, password="bench-dragon-heart-42")
        token = token_create(user=user, name="bench")[1]
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        players[seat] = (user, token, client)
    answer = players["a"][2].post("/api/games/", {"opponent": "bob"}, format="json")
    assert answer.status_code == 201, answer.content
    pk = answer.json()["id"]
    assert players["b"][2].post(f"/api/games/{pk}/accept/").status_code == 200
    state = Game.objects.get(pk=pk).state
    assert state is not None  # an accepted game is dealt
    for seat, body in planned_plays(state, random.Random(1)):
        if body["expected_version"] >= events:
            break
        answer = players[seat][2].post(f"/api/games/{pk}/plays/", body, format="json")
        assert answer.status_code == 201, answer.content
    game = selectors.game_by_id(pk)
    assert game is not None
    user, token, client = players[seat]
    return World(game, user, token, client.get(f"/api/games/{pk}/").json())


def _renderer(world: World) -> Iterator[Pair]:
    from rest_framework.renderers import JSONRenderer as Library

    from core.renderers import JSONRenderer

    ours, library, view = JSONRenderer(), Library(), world.view
    yield Pair(
        "JSONRenderer (a game view)",
        lambda: ours.render(view, "application/json", {}),
        lambda: library.render(view, "application/json", {}),
    )


def _game_row(world: World) -> Iterator[Pair]:
    from games import selectors
    from games.models import Game

    pk = world.game.pk
    yield Pair(
        "game_by_id",
        lambda: selectors.game_by_id(pk),
        lambda: Game.objects.filter(pk=pk).first(),
        scale=10,
    )


def _writes(world: World) -> Iterator[Pair]:
    """A play's writes: the game's conditional UPDATE of its cached columns, two events, an
    outbox row; as update_then_insert sends them, and through the ORM in one transaction."""
    from django.db import transaction
    from django.utils import timezone

    from games import event_log
    from games.event_log import statements
    from games.models import Game, GameEvent
    from outbox.models import Notification

    game, user = world.game, world.user
    where = {"id": game.pk, "version": game.version}
    fields = event_log.cache_fields(event_log.load_state(game))
    seqs = itertools.count(100_000)

    def rows() -> list[Any]:
        seq, now = next(seqs), timezone.now()
        return [
            GameEvent(game_id=game.pk, seq=seq, kind="play", v=1, payload={"cards": ["a01"]}, actor=user),
            GameEvent(game_id=game.pk, seq=next(seqs), kind="turn", v=1, payload={}, created_at=now),
            Notification(user=user, game=game, kind=Notification.Kind.YOUR_TURN, key=f"bench:{seq}"),
        ]

    def orm() -> None:
        first, second, note = rows()
        with transaction.atomic():
            assert Game.objects.filter(**where).update(**fields) == 1
            GameEvent.objects.bulk_create([first, second])
            Notification.objects.bulk_create([note])

    yield Pair(
        "update_then_insert (a play's writes)",
        lambda: statements.update_then_insert(Game, where, fields, rows()),
        orm,
        rows,
        scale=10,
    )


def _token(world: World) -> Iterator[Pair]:
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from accounts.authentication import TokenAuthentication, forget_locally

    request = Request(APIRequestFactory().get("/api/games/", HTTP_AUTHORIZATION=f"Token {world.token}"))
    authentication = TokenAuthentication()

    def looked_up() -> object:
        forget_locally()
        return authentication.authenticate(request)

    yield Pair(
        "TokenAuthentication memo (a hit)",
        lambda: authentication.authenticate(request),
        looked_up,
        forget_locally,
        scale=10,
    )


def _throttle(world: World) -> Iterator[Pair]:
    """A play's throttle check; DRF's reads and writes the list of the client's requests in
    the window, here ten of them (a client playing every few seconds)."""
    from django.core.cache import cache, caches
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory
    from rest_framework.throttling import ScopedRateThrottle
    from rest_framework.views import APIView

    from core.throttling import WindowScopedRateThrottle

    class View(APIView):
        throttle_scope = "plays"

    request = Request(APIRequestFactory().post("/api/games/abc/plays/"))
    request.user = world.user
    ours, library, view = WindowScopedRateThrottle(), ScopedRateThrottle(), View()
    ScopedRateThrottle.THROTTLE_RATES = {**ScopedRateThrottle.THROTTLE_RATES, "plays": "1000000/minute"}
    key = f"throttle_plays_{world.user.pk}"

    def history() -> None:
        cache.set(key, [time.time()] * 10, 60)

    def drf() -> bool:
        history()
        return library.allow_request(request, view)

    yield Pair(
        f"WindowScopedRateThrottle ({type(caches['default']).__name__})",
        lambda: ours.allow_request(request, view),
        drf,
        library_baseline=history,
        scale=4,
    )


PURE: dict[str, Callable[[], Iterator[Pair]]] = {
    "csp": _csp,
}
WITH_A_GAME: dict[str, Callable[[World], Iterator[Pair]]] = {
    "renderer": _renderer,
    "game_row": _game_row,
    "writes": _writes,
    "token": _token,
    "throttle": _throttle,
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--number", type=int, default=4000, help="calls per run (slower pairs fewer)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--events", type=int, default=250, help="events of the game read and played in")
    parser.add_argument("--only", default="", help=f"some of: {','.join([*PURE, *WITH_A_GAME])}")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else {*PURE, *WITH_A_GAME}
    name = _django()
    from django.db import connection

    try:
        world = _world(args.events) if only & set(WITH_A_GAME) else None
        print(f"{connection.vendor}; µs of this process's CPU per call, best of {args.repeats} runs")
        print(f"{'':42} {'ours':>9} {'library':>9} {'ours/library':>12} {'saved':>9}")
        pairs = [pair for key, make in PURE.items() if key in only for pair in make()]
        if world is not None:
            pairs += [pair for key, make in WITH_A_GAME.items() if key in only for pair in make(world)]
        for pair in pairs:
            _report(pair, args.number, args.repeats)
    finally:
        connection.creation.destroy_test_db(name, verbosity=0)


if __name__ == "__main__":
    main()
