"""Django's migrate, under a PostgreSQL advisory lock: two nodes that run it at once (a rolling
deployment, two start scripts) take turns, and the second finds everything applied. Unlocked,
both created the same tables (a duplicate key in pg_type) and recorded a migration twice."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.management.commands import migrate
from django.db import DEFAULT_DB_ALIAS, connections

# Any fixed 64-bit number, the same on every node; "dragonheart migrate" in ASCII.
MIGRATE_LOCK = 0x6472676E_6D696772
DIRECT_ALIAS = "direct"


class Command(migrate.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        with migration_lock(options["database"]):
            super().handle(*args, **options)


def lock_alias(database: str, aliases: Collection[str]) -> str:
    """The connection that holds the lock: "direct" (to the primary, never through a pooler
    in transaction mode, where a session's lock would sit on a server connection that other
    clients then share) when it exists and the default database is migrated."""
    if database == DEFAULT_DB_ALIAS and DIRECT_ALIAS in aliases:
        return DIRECT_ALIAS
    return database


@contextmanager
def migration_lock(database: str) -> Iterator[None]:
    """Hold the migrations' advisory lock while the body runs; on SQLite (one file, one
    process at a time) there is nothing to hold."""
    connection = connections[lock_alias(database, settings.DATABASES)]
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [MIGRATE_LOCK])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [MIGRATE_LOCK])
