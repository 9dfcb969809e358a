"""The few writes of a play, as statements compiled once.

A play writes three things: the game row (a conditional UPDATE), its events and the "your
turn" outbox row. Through the ORM, building the SQL for those took about as much CPU as all
the rest of the request (measured in benchmarks/api_load.py), because Django compiles every
query anew. These helpers keep the SQL text per model and column set, and still prepare every
value with the field's own ``pre_save`` and ``get_db_prep_save``, so what is stored is what
the ORM would store (tests/games/test_statements.py compares both).

On PostgreSQL ``update_then_insert`` sends the three as one statement: one round trip instead
of five (BEGIN, UPDATE, two INSERTs, COMMIT). Round trips, not SQL, were what a play still
paid most for: that one statement cost 0.4 ms less CPU in the client and 0.3 ms less in the
server than the transaction, and half its wall time (/proc figures in the note of issue 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import groupby
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    assert isinstance(field, Field), f"{name} is not a concrete field"
    return field


def _returns_key(model: type[Model]) -> bool:
    # An auto-incremented primary key is left to the database and read back.
    return bool(getattr(model._meta.pk, "db_returning", False))


@cache
def _insert_into(model: type[Model]) -> tuple[str, str, tuple[Field[Any, Any], ...]]:
    """``INSERT INTO table (columns)``, the ``RETURNING`` clause ("" if the key is not the
    database's to give) and the fields whose values the statement takes, in order."""
    pk = model._meta.pk
    assert pk is not None
    auto_pk = _returns_key(model)
    fields = tuple(f for f in model._meta.concrete_fields if not (f is pk and auto_pk))
    head = f"INSERT INTO {_quote(model._meta.db_table)} ({', '.join(_quote(f.column) for f in fields)})"
    return head, f" RETURNING {_quote(pk.column)}" if auto_pk else "", fields


def _placeholders(fields: Sequence[Field[Any, Any]]) -> str:
    return ", ".join(["%s"] * len(fields))


@cache
def _insert_statement(model: type[Model], rows: int) -> tuple[str, tuple[Field[Any, Any], ...]]:
    head, returning, fields = _insert_into(model)
    values = ", ".join([f"({_placeholders(fields)})"] * rows)
    return f"{head} VALUES {values}{returning}", fields


def _database() -> BaseDatabaseWrapper:
    # The connection itself, not django.db.connection: every attribute read through that proxy
    # looks the connection up in a context-local store, and preparing a play's values reads
    # one some fifty times (4% of a play's CPU).
    return connections[DEFAULT_DB_ALIAS]


def _insert_params(
    objs: Sequence[Model], fields: Sequence[Field[Any, Any]], db: BaseDatabaseWrapper
) -> list[Any]:
    return [f.get_db_prep_save(f.pre_save(obj, True), db) for obj in objs for f in fields]


def _saved(objs: Sequence[Model], keys: Sequence[Any], db: BaseDatabaseWrapper) -> None:
    """Mark ``objs`` as stored, with the keys the database gave the models that ask for one."""
    given = iter(keys)
    for obj in objs:
        if _returns_key(type(obj)):
            obj.pk = next(given)
        obj._state.adding = False
        obj._state.db = db.alias


def insert(objs: Sequence[Model]) -> None:
    """INSERT ``objs`` (all of one model) in one statement, as ``bulk_create`` would, and set
    their primary keys."""
    if not objs:
        return
    model = type(objs[0])
    sql, fields = _insert_statement(model, len(objs))
    db = _database()
    with db.cursor() as cursor:
        cursor.execute(sql, _insert_params(objs, fields, db))
        keys = [row[0] for row in cursor.fetchall()] if _returns_key(model) else []
    _saved(objs, keys, db)


@cache
def _update_statement(model: type[Model], columns: tuple[str, ...], where: tuple[str, ...]) -> str:
    assignments = ", ".join(f"{_quote(_field(model, name).column)} = %s" for name in columns)
    conditions = " AND ".join(f"{_quote(_field(model, name).column)} = %s" for name in where)
    return f"UPDATE {_quote(model._meta.db_table)} SET {assignments} WHERE {conditions}"


def _update_params(
    model: type[Model], where: dict[str, Any], values: dict[str, Any], db: BaseDatabaseWrapper
) -> list[Any]:
    params = [_field(model, name).get_db_prep_save(value, db) for name, value in values.items()]
    params += [_field(model, name).get_db_prep_value(value, db) for name, value in where.items()]
    return params


def update(model: type[Model], where: dict[str, Any], values: dict[str, Any]) -> int:
    """``model.objects.filter(**where).update(**values)`` for plain equality filters on
    concrete fields; returns the number of rows changed."""
    sql = _update_statement(model, tuple(values), tuple(where))
    db = _database()
    with db.cursor() as cursor:
        cursor.execute(sql, _update_params(model, where, values, db))
        return int(cursor.rowcount)


@cache
def _guarded_statement(
    model: type[Model], columns: tuple[str, ...], where: tuple[str, ...], rows: tuple[type[Model], ...]
) -> tuple[str, tuple[tuple[Field[Any, Any], ...], ...]]:
    """PostgreSQL: the UPDATE and one INSERT per row as data-modifying CTEs. Each INSERT selects
    its row from the UPDATE's result, so it adds nothing when the UPDATE matched nothing; a
    row per INSERT lets PostgreSQL type each parameter from its column (in a VALUES list an
    untyped NULL would be text)."""
    parts = [f'"guard" AS ({_update_statement(model, columns, where)} RETURNING 1)']
    results = ['(SELECT count(*) FROM "guard")']
    fields = []
    for i, row in enumerate(rows):
        head, returning, row_fields = _insert_into(row)
        parts.append(f'"row{i}" AS ({head} SELECT {_placeholders(row_fields)} FROM "guard"{returning})')
        if returning:
            results.append(f'(SELECT {_quote(row._meta.pk.column)} FROM "row{i}")')
        fields.append(row_fields)
    return f"WITH {', '.join(parts)} SELECT {', '.join(results)}", tuple(fields)


def update_then_insert(
    model: type[Model], where: dict[str, Any], values: dict[str, Any], objs: Sequence[Model]
) -> bool:
    """``update(model, where, values)`` and, only if it changed a row, ``insert`` of ``objs``
    (rows of any models, in order), all or nothing. False, and nothing written, if the update
    matched no row. On PostgreSQL it is one statement (atomic on its own, or part of the
    caller's transaction); elsewhere the same statements in one transaction."""
    db = _database()
    if db.vendor != "postgresql":
        with transaction.atomic(savepoint=False):
            if not update(model, where, values):
                return False
            for _, same in groupby(objs, key=type):
                insert(list(same))
        return True
    sql, fields = _guarded_statement(model, tuple(values), tuple(where), tuple(type(obj) for obj in objs))
    params = _update_params(model, where, values, db)
    for obj, row_fields in zip(objs, fields, strict=True):
        params += _insert_params([obj], row_fields, db)
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        changed, *keys = cursor.fetchone()
    if not changed:
        return False
    _saved(objs, keys, db)
    return True
