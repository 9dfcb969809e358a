"""Django's migrate, under a PostgreSQL advisory lock: two nodes that run it at once (a rolling
deployment, two start scripts) take turns, and the second finds everything applied. Unlocked,
both created the same tables (a duplicate key in pg_type) and recorded a migration twice."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from django.core.management.commands import migrate
from django.db import DEFAULT_DB_ALIAS, connections

log = logging.getLogger(__name__)
# Any fixed 64-bit number, the same on every node; "dragonheart migrate" in ASCII.
MIGRATE_LOCK = 0x6472676E_6D696772
DIRECT_ALIAS = "direct"


class Command(migrate.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        with migration_lock(options["database"]):
            super().handle(*args, **options)


def lock_alias(database: str, databases: Mapping[str, Mapping[str, Any]]) -> str:
    """The connection that holds the lock: "direct" (to the primary, never through a pooler
    in transaction mode, where a session's lock would sit on a server connection that other
    clients then share) when it exists and names the database being migrated."""
    direct = databases.get(DIRECT_ALIAS)
    if database == DEFAULT_DB_ALIAS and direct is not None and direct["NAME"] == databases[database]["NAME"]:
        return DIRECT_ALIAS
    return database


@contextmanager
def migration_lock(database: str) -> Iterator[None]:
    """Hold the migrations' advisory lock while the body runs; on SQLite (one file, one
    process at a time) there is nothing to hold."""
    connection = connections[lock_alias(database, {a: connections[a].settings_dict for a in connections})]
    if connection.vendor != "postgresql":
        yield
        return
    if connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS"):
        # Through a transaction pooler the lock and its release could land on different server
        # connections, and the lock would stay held on one that other clients share. The test
        # databases are made so (one process); a deployment runs migrate on the primary.
        log.warning("migrate through a transaction pooler takes no lock: give it DATABASE_DIRECT_URL")
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [MIGRATE_LOCK])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [MIGRATE_LOCK])
