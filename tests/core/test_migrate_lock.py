"""Two nodes running ``manage.py migrate`` at once on a fresh database: both succeed, and each
migration is recorded once (core/management/commands/migrate.py holds an advisory lock)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connections

from core.management.commands.migrate import DIRECT_ALIAS, lock_alias

pytestmark = pytest.mark.processes  # starts processes of its own: not in scripts/test --quick

ROOT = Path(__file__).resolve().parents[2]


def _server(database: str) -> dict[str, Any]:
    """PostgreSQL itself (the "direct" alias: the default one may be a pooler that knows only
    the databases it was told of), connected to ``database``."""
    settings = connections[DIRECT_ALIAS].settings_dict
    return {
        "host": settings["HOST"] or "127.0.0.1",
        "port": int(settings["PORT"] or 5432),
        "user": settings["USER"],
        "password": settings["PASSWORD"] or None,
        "dbname": database,
        "autocommit": True,
    }


@pytest.fixture
def fresh_database() -> Iterator[str]:
    """An empty database beside the test database, dropped afterwards."""
    name = f"{connections[DIRECT_ALIAS].settings_dict['NAME']}_migrate"[:63]
    with psycopg.connect(**_server("postgres")) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(**_server("postgres")) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _url(database: str) -> str:
    server = _server(database)
    password = f":{server['password']}" if server["password"] else ""
    return f"postgres://{server['user']}{password}@{server['host']}:{server['port']}/{database}"


@pytest.mark.postgresql
def test_two_migrates_at_once_both_succeed_and_record_each_migration_once(fresh_database):
    # Straight to PostgreSQL, as a deployment runs migrate (not through the test pass's pooler).
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "PG_PREPARED"))}
    env.update(DATABASE_URL=_url(fresh_database), DATABASE_DIRECT_URL=_url(fresh_database))
    nodes = [
        subprocess.Popen(
            [sys.executable, "manage.py", "migrate", "--no-input"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [node.communicate(timeout=600)[0] for node in nodes]

    assert [node.returncode for node in nodes] == [0, 0], outputs
    with psycopg.connect(**_server(fresh_database)) as db:
        twice = db.execute(
            "SELECT app, name FROM django_migrations GROUP BY app, name HAVING count(*) > 1"
        ).fetchall()
        recorded = db.execute("SELECT count(*) FROM django_migrations").fetchone()
    assert twice == []
    assert recorded is not None
    assert recorded[0] > 0


def test_the_lock_is_held_on_the_direct_connection_when_it_names_the_same_database():
    same = {"default": {"NAME": "dh"}, DIRECT_ALIAS: {"NAME": "dh"}, "other": {"NAME": "x"}}
    assert lock_alias("default", same) == DIRECT_ALIAS
    assert lock_alias("other", same) == "other"
    assert lock_alias("default", {"default": {"NAME": "dh"}}) == "default"
    # pytest-django migrating its test database, before "direct" mirrors it:
    assert lock_alias("default", {"default": {"NAME": "test_dh"}, DIRECT_ALIAS: {"NAME": "dh"}}) == "default"
