"""After one primary: the event log split by game. A partitioned copy of the games and their
events, filled with a million events or more, and the plans of the hot queries on it.

    .venv/bin/python -m benchmarks.partitioning [--events 1000000] [--partitions 16] [--keep]

In a scratch database (dh_cap_part on the shared PostgreSQL, dropped at the end unless
--keep) it builds the two tables a play writes, shaped as games/models.py has them, both
``PARTITION BY HASH`` of the game's id with the same number of partitions, so that a game's
row and its events fall in partitions of the same number (what Citus calls co-location):

- ``game`` (id, status, version, to_move, state, turn_started_at, deadline), key (id);
- ``game_event`` (game_id, seq, kind, v, payload, actor_id, created_at), key (game_id, seq):
  the unique (game, seq) key of today's table becomes the primary key, since a partitioned
  table's unique keys must hold the partition key; today's surrogate ``id`` goes.

It fills them with real games (random play by the engine: about 216 events each, their
payloads as stored), each log written under many game ids with ``generate_series``, then runs
ANALYZE and prints ``EXPLAIN (ANALYZE, BUFFERS)`` of the queries games/event_log/ sends, as
the site sends them (literal values, and once as a prepared statement with a generic plan, as
psycopg's prepared statements may run): a game's whole log, its tail, its latest event, "was a
play recorded since", and the append with its version check (inside a transaction that is
rolled back). Last, one query that does not name the game, to show what that costs.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from typing import Any

import psycopg

from benchmarks.stack import fresh_database

SEED = 23
SAMPLE_GAMES = 200  # distinct real games; the fill writes each under many ids

SCHEMA = """
CREATE TABLE game (
    id varchar(16) NOT NULL,
    status varchar(16) NOT NULL,
    version integer NOT NULL CHECK (version >= 0),
    to_move varchar(1) NOT NULL,
    state jsonb,
    turn_started_at timestamptz,
    deadline timestamptz,
    PRIMARY KEY (id)
) PARTITION BY HASH (id);
CREATE TABLE game_event (
    game_id varchar(16) NOT NULL,
    seq integer NOT NULL CHECK (seq >= 0),
    kind varchar(32) NOT NULL,
    v smallint NOT NULL CHECK (v >= 0),
    payload jsonb NOT NULL,
    actor_id integer,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, seq)
) PARTITION BY HASH (game_id);
"""

# The statements as games/event_log/ sends them (Django's SQL, the table names changed).
READ = (
    'SELECT "game_id", "seq", "kind", "v", "payload", "actor_id", "created_at" FROM "game_event" '
    'WHERE ("game_id" = {game} AND "seq" > {after}) ORDER BY "seq" ASC'
)
LATEST = (
    'SELECT "game_id", "seq", "kind", "v", "payload", "actor_id", "created_at" FROM "game_event" '
    'WHERE "game_id" = {game} ORDER BY "seq" DESC LIMIT 1'
)
PLAYED_SINCE = (
    'SELECT 1 AS "a" FROM "game_event" WHERE ("game_id" = {game} AND "seq" > {after} AND '
    "NOT (\"kind\" IN ('vacation_started', 'vacation_ended'))) LIMIT 1"
)
# statements.update_then_insert: the game row's UPDATE guarded by the version, and the
# events inserted only if it matched, in one statement.
APPEND = """WITH "guard" AS (
    UPDATE "game" SET "version" = {version} + 2, "to_move" = 'b', "state" = "state",
           "turn_started_at" = now(), "deadline" = now() + interval '3 days'
    WHERE "id" = {game} AND "version" = {version} RETURNING 1),
"row0" AS (INSERT INTO "game_event" ("game_id", "seq", "kind", "v", "payload", "actor_id", "created_at")
    SELECT {game}, {version} + 1, 'played', 1, '{{"seat": "a", "cards": [17]}}'::jsonb, NULL, now()
    FROM "guard"),
"row1" AS (INSERT INTO "game_event" ("game_id", "seq", "kind", "v", "payload", "actor_id", "created_at")
    SELECT {game}, {version} + 2, 'turn_ended', 1, '{{"seat": "a"}}'::jsonb, NULL, now()
    FROM "guard")
SELECT (SELECT count(*) FROM "guard")"""
UNNAMED = (
    'SELECT "game_id", count(*) FROM "game_event" WHERE "created_at" > now() - interval \'1 hour\' '
    'GROUP BY "game_id"'
)


def _sample(conn: psycopg.Connection[Any]) -> None:
    """Real games into ``sample_event`` and ``sample_game``, numbered 0..SAMPLE_GAMES-1."""
    from engine.selfplay import play_game

    conn.execute(
        "CREATE UNLOGGED TABLE sample_event (log integer, seq integer, kind text, v smallint, payload jsonb)"
    )
    conn.execute("CREATE UNLOGGED TABLE sample_game (log integer, version integer, state jsonb)")
    with conn.cursor() as cursor:
        with cursor.copy("COPY sample_event FROM STDIN") as copy:
            finals = []
            for log in range(SAMPLE_GAMES):
                final, events = play_game(
                    {"a": "random", "b": "random"}, f"{SEED}:{log}", "a" if log % 2 else "b"
                )
                finals.append((log, final.version, json.dumps(final.to_snapshot())))
                for seq, event in enumerate(events, start=1):
                    payload = {k: v for k, v in event.items() if k not in ("kind", "v")}
                    copy.write_row((log, seq, event["kind"], event["v"], json.dumps(payload)))
        with cursor.copy("COPY sample_game FROM STDIN") as copy:
            for row in finals:
                copy.write_row(row)


def build(conn: psycopg.Connection[Any], partitions: int, events: int) -> int:
    """The partitioned tables, filled with at least ``events`` events; returns the games."""
    conn.execute(SCHEMA)
    for table in ("game", "game_event"):
        for i in range(partitions):
            conn.execute(
                f"CREATE TABLE {table}_p{i:02} PARTITION OF {table} "
                f"FOR VALUES WITH (MODULUS {partitions}, REMAINDER {i})"
            )
    _sample(conn)
    (per_round,) = conn.execute("SELECT count(*) FROM sample_event").fetchone() or (0,)
    games = SAMPLE_GAMES * math.ceil(events / per_round)
    # Ids like games.models.new_public_id's (12 url-safe characters), derived from n.
    conn.execute(
        """CREATE UNLOGGED TABLE ids AS
           SELECT n, translate(substr(encode(sha256(('game' || n)::bytea), 'base64'), 1, 12),
                               '+/', '-_') AS id
           FROM generate_series(0, %s - 1) AS n""",
        [games],
    )
    conn.execute(
        """INSERT INTO game
           SELECT ids.id, 'active', s.version, 'a', s.state, now(), now() + interval '3 days'
           FROM ids JOIN sample_game s ON s.log = ids.n %% %s""",
        [SAMPLE_GAMES],
    )
    conn.execute(
        """INSERT INTO game_event
           SELECT ids.id, e.seq, e.kind, e.v, e.payload, NULL,
                  now() - interval '1 day' * (ids.n %% 700) + interval '1 minute' * e.seq
           FROM ids JOIN sample_event e ON e.log = ids.n %% %s""",
        [SAMPLE_GAMES],
    )
    # Added after the fill (one validating scan instead of a check per row), as a migration
    # adding it to a filled table would.
    conn.execute('ALTER TABLE game_event ADD FOREIGN KEY ("game_id") REFERENCES game (id)')
    conn.execute("ANALYZE game, game_event")
    return games


def explain(conn: psycopg.Connection[Any], title: str, sql: str, params: dict[str, Any]) -> None:
    print(f"\n-- {title}\n{sql.format(**params)}")
    for (line,) in conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql.format(**params)).fetchall():
        print(f"   {line}")


def explain_generic(conn: psycopg.Connection[Any], title: str, sql: str, params: dict[str, Any]) -> None:
    """The same statement prepared with parameters and run with a generic plan: the game is
    not known when it is planned, so the partitions are pruned when it starts."""
    names = list(params)
    prepared = sql.format(**{name: f"${i}" for i, name in enumerate(names, start=1)})
    conn.execute("SET plan_cache_mode = force_generic_plan")
    conn.execute(f"PREPARE hot AS {prepared}")
    values = ", ".join(
        repr(params[name]) if isinstance(params[name], int) else params[name] for name in names
    )
    print(f"\n-- {title}, prepared, generic plan\nPREPARE hot AS {prepared}\nEXECUTE hot({values})")
    for (line,) in conn.execute(f"EXPLAIN (ANALYZE, BUFFERS) EXECUTE hot({values})").fetchall():
        print(f"   {line}")
    conn.execute("DEALLOCATE hot")
    conn.execute("RESET plan_cache_mode")


def plans(conn: psycopg.Connection[Any]) -> None:
    row = conn.execute(
        "SELECT id, version FROM game WHERE version > 100 ORDER BY id LIMIT 1 OFFSET 7"
    ).fetchone()
    assert row is not None
    game, version = f"'{row[0]}'", row[1]
    where = conn.execute(
        "SELECT tableoid::regclass FROM game_event WHERE game_id = %s LIMIT 1", [row[0]]
    ).fetchone()
    print(f"\nthe game {game} (version {version}) is in {where[0] if where else '?'}")
    explain(conn, "a game's whole log (event_log.read_log, rebuild_state)", READ, {"game": game, "after": 0})
    explain_generic(conn, "a game's whole log", READ, {"game": game, "after": 0})
    explain(
        conn, "its tail (turn emails, turns.py: the last 40)", READ, {"game": game, "after": version - 40}
    )
    explain(conn, "its latest event", LATEST, {"game": game})
    explain(conn, "a play since (event_log.played_since)", PLAYED_SINCE, {"game": game, "after": version - 3})
    conn.execute("BEGIN")
    explain(
        conn, "the append with its version check (rolled back)", APPEND, {"game": game, "version": version}
    )
    conn.execute("ROLLBACK")
    conn.execute("BEGIN")
    explain_generic(conn, "the append (rolled back)", APPEND, {"game": game, "version": version})
    conn.execute("ROLLBACK")
    explain(conn, "a query that does not name the game: every partition", UNNAMED, {})


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=1_000_000, help="at least this many events")
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="dh_cap_part")
    parser.add_argument("--keep", action="store_true", help="leave the scratch database")
    args = parser.parse_args()

    url = fresh_database(args.postgres, args.database)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            began = time.perf_counter()
            games = build(conn, args.partitions, args.events)
            (total,) = conn.execute("SELECT count(*) FROM game_event").fetchone() or (0,)
            sizes = conn.execute(
                """SELECT min(n), max(n), pg_size_pretty(sum(bytes)::bigint),
                          pg_size_pretty(sum(index_bytes)::bigint)
                   FROM (SELECT count(*) AS n, pg_relation_size(tableoid) AS bytes,
                                pg_indexes_size(tableoid) AS index_bytes
                         FROM game_event GROUP BY tableoid) p"""
            ).fetchone()
            assert sizes is not None
            print(
                f"{games} games, {total} events in {args.partitions} hash partitions of each table "
                f"({time.perf_counter() - began:.0f} s); events per partition {sizes[0]}–{sizes[1]}; "
                f"events' tables {sizes[2]}, their keys {sizes[3]}"
            )
            widths = conn.execute(
                """SELECT (SELECT avg(pg_column_size(g.*)) FROM game g),
                          (SELECT avg(pg_column_size(e.*)) FROM game_event e)"""
            ).fetchone()
            assert widths is not None
            print(f"average stored size: a game row {widths[0]:.0f} B, an event row {widths[1]:.0f} B")
            plans(conn)
    finally:
        if not args.keep:
            with psycopg.connect(args.postgres, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')


if __name__ == "__main__":
    main()
