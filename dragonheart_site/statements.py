"""The few writes of a play, as statements compiled once.

A play writes three things: the game row (a conditional UPDATE), its events and the "your
turn" outbox row. Through the ORM, building the SQL for those took about as much CPU as all
the rest of the request (measured in benchmarks/api_load.py), because Django compiles every
query anew. These helpers keep the SQL text per model and column set, and still prepare every
value with the field's own ``pre_save`` and ``get_db_prep_save``, so what is stored is what
the ORM would store (tests/games/test_statements.py compares both).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from django.db import connection
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
def _insert_statement(model: type[Model], rows: int) -> tuple[str, tuple[Field[Any, Any], ...]]:
    pk = model._meta.pk
    assert pk is not None
    auto_pk = _returns_key(model)
    fields = tuple(f for f in model._meta.concrete_fields if not (f is pk and auto_pk))
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    sql = (
        f"INSERT INTO {_quote(model._meta.db_table)} ({', '.join(_quote(f.column) for f in fields)}) "
        f"VALUES {', '.join([row] * rows)}"
    )
    if auto_pk:
        sql += f" RETURNING {_quote(pk.column)}"
    return sql, fields


def insert(objs: Sequence[Model]) -> None:
    """INSERT ``objs`` (all of one model) in one statement, as ``bulk_create`` would, and set
    their primary keys."""
    if not objs:
        return
    model = type(objs[0])
    sql, fields = _insert_statement(model, len(objs))
    params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for obj in objs for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        keys = cursor.fetchall() if _returns_key(model) else []
    for obj, key in zip(objs, keys, strict=False):
        obj.pk = key[0]
    for obj in objs:
        obj._state.adding = False
        obj._state.db = connection.alias


@cache
def _update_statement(model: type[Model], columns: tuple[str, ...], where: tuple[str, ...]) -> str:
    assignments = ", ".join(f"{_quote(_field(model, name).column)} = %s" for name in columns)
    conditions = " AND ".join(f"{_quote(_field(model, name).column)} = %s" for name in where)
    return f"UPDATE {_quote(model._meta.db_table)} SET {assignments} WHERE {conditions}"


def update(model: type[Model], where: dict[str, Any], values: dict[str, Any]) -> int:
    """``model.objects.filter(**where).update(**values)`` for plain equality filters on
    concrete fields; returns the number of rows changed."""
    sql = _update_statement(model, tuple(values), tuple(where))
    params = [_field(model, name).get_db_prep_save(value, connection) for name, value in values.items()]
    params += [_field(model, name).get_db_prep_value(value, connection) for name, value in where.items()]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)
