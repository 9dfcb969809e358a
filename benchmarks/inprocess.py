"""CPU per request of the busiest API requests, in one process, without an HTTP server.

    .venv/bin/python -m benchmarks.inprocess [--requests 2000] [--repeats 3] [--profile play]

The site's WSGI application is called directly (production settings, PostgreSQL with
persistent connections, Redis), so the figures are the Django side of a request alone: what
gunicorn, the kernel and the load generator add is left out, and so is the machine's noise
from them. For each kind of request it prints this process's CPU per request and the CPU of
its PostgreSQL backend (read from /proc), the median of ``--repeats`` runs:

- ``health``: ``GET /api/health/``, the site's bare view (middleware, DRF, no database);
- ``game``: ``GET /api/games/{id}/`` of a game of about 250 events, by a seated player;
- ``play``: ``POST /api/games/{id}/plays/``, random legal plays from the engine, each by the
  player to move in one of many fresh games (the same plan as benchmarks/plays.lua).

``--profile KIND`` runs that kind once more under cProfile and prints the functions that
took the most time. Runs are cheap enough to alternate an A/B comparison on a noisy machine.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from benchmarks.stack import fresh_database, planned_plays, site_env

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _process_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid``."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _environ(method: str, path: str, token: str, body: bytes = b"") -> dict[str, Any]:
    return {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1",
        "HTTP_ACCEPT": "*/*",
        "HTTP_AUTHORIZATION": f"Token {token}",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }


class Site:
    def __init__(self) -> None:
        from django.core.wsgi import get_wsgi_application

        self.app = get_wsgi_application()

    def call(self, environ: dict[str, Any]) -> tuple[str, bytes]:
        answer: list[str] = []

        def start_response(status: str, headers: Any, exc_info: Any = None) -> Callable[[bytes], object]:
            answer.append(status)
            return lambda data: None

        body = b"".join(self.app(environ, start_response))
        return answer[0], body


def _players(count: int) -> list[tuple[Any, str]]:
    from django.contrib.auth.models import User

    from accounts.services import token_create

    players = []
    for i in range(count):
        user = User.objects.create_user(f"player{i}", password=None)
        players.append((user, token_create(user=user, name="bench")[1]))
    return players


def _new_game(a: tuple[Any, str], b: tuple[Any, str]) -> Any:
    from games import challenges

    game = challenges.game_create(creator=a[0], opponent=b[0].username)
    return challenges.game_accept(game=game, user=b[0])


def _measure(requests: Callable[[], Iterator[dict[str, Any]]], site: Site, count: int) -> tuple[float, float]:
    """CPU ms per request of this process and of its PostgreSQL backend."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    environs = list(zip(range(count), requests(), strict=False))
    mine, theirs = time.process_time(), _process_cpu(backend)
    for _, environ in environs:
        status, body = site.call(environ)
        assert status[0] == "2", (status, body[:300])
    return (
        1000 * (time.process_time() - mine) / len(environs),
        1000 * (_process_cpu(backend) - theirs) / len(environs),
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=2000, help="requests per run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kinds", default="health,game,play", help="which requests to measure")
    parser.add_argument("--profile", choices=["health", "game", "play"])
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="dragonheart_inprocess")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--settings", default="dragonheart_site.settings", help="for A/B trials of settings")
    args = parser.parse_args()

    os.environ.update(
        site_env(
            fresh_database(args.postgres, args.database), args.redis, DJANGO_SETTINGS_MODULE=args.settings
        )
    )
    import django

    django.setup()
    from django.core.cache import cache
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    cache.clear()
    site = Site()
    # A game lasts about 60 plays: enough fresh games for every run, the warm-up and a profile.
    players = _players(2 * (10 + args.requests * (args.repeats + 2) // 40))
    pairs = [(players[i], players[i + 1]) for i in range(0, len(players), 2)]
    rng = random.Random(1)

    # The game to open: played through the API until about 250 events.
    a, b = pairs[0]
    long_game = _new_game(a, b)
    tokens = {"a": a[1], "b": b[1]}
    for seat, body in planned_plays(long_game.state, rng):
        if body["expected_version"] >= 250:
            break
        site.call(
            _environ("POST", f"/api/games/{long_game.pk}/plays/", tokens[seat], json.dumps(body).encode())
        )
    long_game.refresh_from_db()
    print(f"the game to open has {long_game.version} events; {args.requests} requests a run")

    def health() -> Iterator[dict[str, Any]]:
        while True:
            yield _environ("GET", "/api/health/", a[1])

    def game() -> Iterator[dict[str, Any]]:
        while True:
            yield _environ("GET", f"/api/games/{long_game.pk}/", a[1])

    unused = iter(pairs[1:])

    def play() -> Iterator[dict[str, Any]]:
        # Fresh games, one after another, each played to its end (made before the clock starts).
        for x, y in unused:
            fresh = _new_game(x, y)
            path = f"/api/games/{fresh.pk}/plays/"
            tokens = {"a": x[1], "b": y[1]}
            for seat, body in planned_plays(fresh.state, rng):
                yield _environ("POST", path, tokens[seat], json.dumps(body).encode())
        raise SystemExit("out of games: raise the number of players")

    kinds: dict[str, Callable[[], Iterator[dict[str, Any]]]] = {"health": health, "game": game, "play": play}
    _measure(game, site, 200)  # warm: prepared statements, caches, imports
    _measure(play, site, 200)
    for name in args.kinds.split(","):
        requests = kinds[name]
        runs = [_measure(requests, site, args.requests) for _ in range(args.repeats)]
        mine = statistics.median(r[0] for r in runs)
        backend = statistics.median(r[1] for r in runs)
        spread = ", ".join(f"{r[0]:.3f}" for r in runs)
        print(f"{name:7} CPU ms per request: this process {mine:.3f} ({spread}); PostgreSQL {backend:.3f}")
    if args.profile:
        profiler = cProfile.Profile(time.process_time)  # CPU, not waits
        profiler.enable()
        _measure(kinds[args.profile], site, args.requests)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(os.environ.get("SORT", "tottime")).print_stats(45)
        print(out.getvalue())


if __name__ == "__main__":
    main()
