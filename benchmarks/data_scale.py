"""Does a full database slow the pages down? The same requests, empty and with 100,000 games.

    .venv/bin/python -m benchmarks.data_scale [--finished 100000] [--running 1000] [--requests 200]
    .venv/bin/python -m benchmarks.data_scale --again    # the full database of the last run, again

On a scratch PostgreSQL database (production settings, DEBUG off), two players, alice and bob,
get their own games: 20 finished and 3 running between them, and one long game in progress.
The script then measures, in-process (Django's test client, no network), alice's lobby, the
game page, the history page of a finished game, alice's player page, the leaderboard, alice
in the API, and a play through the API: the server time of each request (p50, p95), its
number of queries and the time spent in them. Every game is rated, so that the player pages
and the leaderboard read as many ratings as such a site would hold.

Then it fills the database beside them — 10,000 other players, ``--finished`` finished games
and ``--running`` running ones, each with its whole event log (real games of random play,
about 216 events each, written with COPY) — runs ANALYZE, and measures the same requests
again. It prints both columns and their ratio. alice's own games stay the same, so what is
compared is the effect of everyone else's data.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.stack import ROOT, fresh_database, prepare, site_env

USERS = 10_000
DISTINCT_LOGS = 400  # the fill cycles through this many real games


def _logs(count: int, seed: int) -> list[tuple[Any, Sequence[Mapping[str, Any]]]]:
    from engine.selfplay import play_game

    return [
        play_game({"a": "random", "b": "random"}, f"{seed}:{i}", "a" if i % 2 else "b") for i in range(count)
    ]


def _fill(
    players: list[int], names: dict[int, str], finished: int, running: int, seed: int, *, report: bool
) -> None:
    """COPY ``finished`` finished and ``running`` running games between random pairs of
    ``players``, with their event logs."""
    from django.db import connection

    from engine import fold
    from games.models import new_public_id

    rng = random.Random(seed)
    logs = _logs(DISTINCT_LOGS, seed)
    now = datetime.now(tz=UTC)
    began = time.perf_counter()
    game_columns = (
        "id, status, created_by_id, player_a_id, player_b_id, player_a_name, player_b_name, bot, "
        "private, options, number, version, first, to_move, state, winner, end_reason, scores, "
        "created_at, started_at, turn_started_at, finished_at, rated"
    )
    game_rows: list[tuple[Any, ...]] = []
    event_rows: list[tuple[Any, ...]] = []
    total = finished + running
    with connection.cursor() as cursor:
        # A bulk load into a scratch database: skip the per-row foreign-key checks (every id
        # written here was made here). Needs a superuser, which the local PostgreSQL gives.
        cursor.execute("SET session_replication_role = replica")
        raw = cursor.connection
        for i in range(total):
            final, log = logs[i % len(logs)]
            is_running = i >= finished
            if is_running:
                log = log[: max(2, len(log) // 2)]
                state = fold(log)
            else:
                state = final
            a, b = rng.sample(players, 2)
            game_id = new_public_id()
            started = now - timedelta(days=rng.uniform(1, 700))
            ended = started + timedelta(days=rng.uniform(0.1, 30))
            game_rows.append(
                (
                    game_id,
                    "active" if is_running else "finished",
                    a,
                    a,
                    b,
                    names[a],
                    names[b],
                    "",
                    False,
                    json.dumps(log[0]["options"]),
                    1,
                    state.version,
                    log[0]["first"],
                    state.to_move or "",
                    json.dumps(state.to_snapshot()),
                    state.winner or "",
                    state.end_reason or "",
                    json.dumps(state.scores()) if state.over else None,
                    started,
                    started,
                    ended if is_running else started,
                    None if is_running else ended,
                    True,  # with a clock, as most games between people are
                )
            )
            event_rows.extend(
                (game_id, seq, event["kind"], event["v"], _payload(event), started)
                for seq, event in enumerate(log, start=1)
            )
            if len(event_rows) > 200_000 or i == total - 1:
                # One COPY at a time on a connection: the games, then their events.
                _copy(raw, f"games_game ({game_columns})", game_rows)
                _copy(raw, "games_gameevent (game_id, seq, kind, v, payload, created_at)", event_rows)
                game_rows, event_rows = [], []
            if report and (i + 1) % 10_000 == 0:
                print(f"  {i + 1} games written, {time.perf_counter() - began:.0f} s", flush=True)
        cursor.execute("SET session_replication_role = DEFAULT")
    _rate_all()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def _rate_all() -> None:
    """The ratings of every finished rated game, as ``manage.py rebuild_ratings --fix`` writes
    them (the fill bypasses the services that rate a game as it ends)."""
    from games.management.commands.rebuild_ratings import rated_results
    from ratings import services as ratings

    ratings.overwrite(*ratings.replay(rated_results()))


def _payload(event: Mapping[str, Any]) -> str:
    return json.dumps({k: v for k, v in event.items() if k not in ("kind", "v")})


def _copy(raw: Any, target: str, rows: list[tuple[Any, ...]]) -> None:
    with raw.cursor() as cursor, cursor.copy(f"COPY {target} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _users(count: int, prefix: str) -> tuple[list[int], dict[int, str]]:
    from django.contrib.auth import get_user_model
    from django.db import connection

    user_model = get_user_model()
    table = user_model._meta.db_table
    now = datetime.now(tz=UTC)
    with connection.cursor() as cursor:
        raw = cursor.connection
        with (
            raw.cursor() as copy_cursor,
            copy_cursor.copy(
                f"COPY {table} (password, is_superuser, username, first_name, last_name, email, "
                "is_staff, is_active, date_joined) FROM STDIN"
            ) as copy,
        ):
            for i in range(count):
                name = f"{prefix}{i}"
                copy.write_row(("!", False, name, "", "", f"{name}@scale.invalid", False, True, now))
    rows = user_model.objects.filter(username__startswith=prefix).values_list("pk", "username")
    return [pk for pk, _ in rows], dict(rows)


@contextmanager
def _sql_timer() -> Iterator[list[float]]:
    from django.db import connection

    spent: list[float] = []

    def wrapper(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            spent.append(time.perf_counter() - began)

    with connection.execute_wrapper(wrapper):
        yield spent


def _measure(prepare: Callable[[], Callable[[], Any]], requests: int) -> dict[str, float]:
    """Time ``requests`` requests, each made by the callable that ``prepare`` returns (what
    ``prepare`` itself does is not timed)."""
    for _ in range(10):
        prepare()()
    times, sql_times, counts = [], [], []
    for _ in range(requests):
        request = prepare()
        with _sql_timer() as spent:
            began = time.perf_counter()
            request()
            times.append(time.perf_counter() - began)
        sql_times.append(sum(spent))
        counts.append(len(spent))
    times.sort()
    return {
        "p50": 1000 * statistics.median(times),
        "p95": 1000 * times[int(0.95 * len(times))],
        "sql": 1000 * statistics.median(sql_times),
        "queries": statistics.median(counts),
        "buffers": _buffers(prepare()),
    }


def _buffers(request: Callable[[], Any]) -> int:
    """Shared buffers (8 kB pages) that the request's reads touch, by EXPLAIN (ANALYZE,
    BUFFERS) of each SELECT it made: a cost that does not depend on how busy the machine is."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        request()
    total = 0
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            if not query["sql"].lstrip().upper().startswith("SELECT"):
                continue
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + query["sql"])
            plan = cursor.fetchone()[0]
            plan = json.loads(plan) if isinstance(plan, str) else plan
            top = plan[0]["Plan"]
            total += top.get("Shared Hit Blocks", 0) + top.get("Shared Read Blocks", 0)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--finished", type=int, default=100_000)
    parser.add_argument("--running", type=int, default=1_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="dragonheart_scale_bench")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/10")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--again",
        action="store_true",
        help="measure the full database a previous run left, without filling one (a quieter moment)",
    )
    args = parser.parse_args()

    database = (
        args.postgres.rsplit("/", 1)[0] + "/" + args.database
        if args.again
        else fresh_database(args.postgres, args.database)
    )
    env = site_env(database, args.redis)
    prepare(env)
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.cache import cache
    from django.test import Client
    from rest_framework.test import APIClient

    from accounts import services as accounts
    from engine.rules import legal_plays
    from games import challenges, event_log
    from games.models import Game, GameEvent

    cache.clear()
    if args.again:
        alice, bob = (User.objects.get(username=name) for name in ("alice", "bob"))
        long_game = Game.objects.filter(player_a=alice, status=Game.Status.ACTIVE).latest("created_at")
    else:
        alice = accounts.user_create(email_confirmed=True, username="alice", password="scale-dragon-heart-42")
        bob = accounts.user_create(email_confirmed=True, username="bob", password="scale-dragon-heart-42")
        _fill([alice.pk, bob.pk], {alice.pk: "alice", bob.pk: "bob"}, 20, 3, args.seed, report=False)
        long_game = challenges.game_create(creator=alice, opponent="bob")
        challenges.game_accept(game=long_game, user=bob)
    finished = Game.objects.filter(player_a=alice, status=Game.Status.FINISHED).first()
    assert finished is not None
    pages = Client()
    pages.force_login(alice)
    api = {}
    for user in (alice, bob):
        api[user.pk] = APIClient()
        api[user.pk].credentials(HTTP_AUTHORIZATION=f"Token {accounts.token_create(user=user, name='s')[1]}")

    def play() -> Callable[[], None]:
        nonlocal long_game
        game = Game.objects.get(pk=long_game.pk)
        if game.status != Game.Status.ACTIVE:
            long_game = game = challenges.game_create(creator=alice, opponent="bob")
            challenges.game_accept(game=game, user=bob)
            game.refresh_from_db()
        state = event_log.load_state(game)
        choice = legal_plays(state)[0]
        mover = alice.pk if state.to_move == "a" else bob.pk
        body = {"cards": list(choice.cards), "choice": choice.choice, "expected_version": game.version}

        def post() -> None:
            response = api[mover].post(f"/api/games/{game.pk}/plays/", body, format="json")
            assert response.status_code == 201, response.content

        return post

    def suite() -> dict[str, dict[str, float]]:
        def page(url: str) -> Callable[[], Callable[[], None]]:
            def get() -> None:
                assert pages.get(url).status_code == 200

            return lambda: get

        return {
            "lobby": _measure(page("/"), args.requests),
            "game page": _measure(page(f"/games/{long_game.pk}/"), args.requests),
            "history page": _measure(page(f"/games/{finished.pk}/history/"), args.requests),
            "player page": _measure(page("/players/alice/"), args.requests),
            "leaderboard": _measure(page("/players/"), args.requests),
            "player (API)": _measure(page("/api/players/alice/"), args.requests),
            "play (API)": _measure(play, args.requests),
        }

    if args.again:
        full = suite()
        print(f"again, with {Game.objects.count()} games: times in ms (p50, p95, median time in SQL)")
        for name, m in full.items():
            print(f"{name:<14}{_row(m)}")
        return
    empty = suite()
    print(f"filling: {USERS} players, {args.finished} finished and {args.running} running games", flush=True)
    began = time.perf_counter()
    players, names = _users(USERS, "scale")
    _fill(players, names, args.finished, args.running, args.seed + 1, report=True)
    events = Game.objects.count(), GameEvent.objects.count()
    print(f"filled in {time.perf_counter() - began:.0f} s: {events[0]} games, {events[1]} events")
    full = suite()
    print("times in ms (p50, p95, median time in SQL), queries, buffers read by the SELECTs")
    print(f"{'':<14}{'empty database':<42}{'with ' + str(events[0]) + ' games':<42}ratio p50 / sql")
    for name in empty:
        e, f = empty[name], full[name]
        print(f"{name:<14}{_row(e)}{_row(f)}{f['p50'] / e['p50']:.2f} / {f['sql'] / e['sql']:.2f}")


def _row(m: dict[str, float]) -> str:
    times = f"{m['p50']:5.1f} {m['p95']:5.1f} {m['sql']:4.1f}"
    return f"{times}  {m['queries']:2.0f} q {m['buffers']:4.0f} buf     "


if __name__ == "__main__":
    main()
