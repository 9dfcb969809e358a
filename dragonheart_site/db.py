"""Reading PostgreSQL timestamps with psycopg's compiled parser.

Django registers its own loader for ``timestamptz``: a subclass of psycopg's pure-Python one
that sets the connection's time zone on each value. Parsing in Python costs 5 µs a value,
against 1.5 through the compiled loader that psycopg-binary ships and uses by default: 25 µs
of opening a game (five timestamps on the row), a millisecond of a page of 200 events. This
loader calls the compiled one and then does what Django's does, so values come back the same
(tests/games/test_db_timestamps.py compares both over random instants).
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

import psycopg
from django.db.backends.base.base import BaseDatabaseWrapper
from psycopg.adapt import Loader
from psycopg.pq import Format

TIMESTAMPTZ = psycopg.adapters.types["timestamptz"].oid
# What psycopg itself registers for timestamptz: compiled with psycopg-binary, else Python.
_PSYCOPG_LOADER = psycopg.adapters.get_loader(TIMESTAMPTZ, Format.TEXT)


def loader_for(zone: tzinfo | None) -> type[Loader]:
    class TimestamptzLoader(Loader):
        # Django reads this attribute on every cursor to see whether its own loader is set.
        timezone = zone

        def __init__(self, oid: int, context: Any = None) -> None:
            super().__init__(oid, context)
            assert _PSYCOPG_LOADER is not None
            self._load = _PSYCOPG_LOADER(oid, context).load

        def load(self, data: Any) -> Any:
            return self._load(data).replace(tzinfo=self.timezone)

    return TimestamptzLoader


def use_compiled_timestamps(sender: Any, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    """connection_created receiver: on PostgreSQL with psycopg 3, swap Django's loader."""
    if connection.vendor == "postgresql" and isinstance(connection.connection, psycopg.Connection):
        connection.connection.adapters.register_loader(TIMESTAMPTZ, loader_for(connection.timezone))
