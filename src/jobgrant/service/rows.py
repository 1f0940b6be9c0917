"""Inserting one row with one plain statement, for the rows every approval and submit writes.

The ORM's INSERT builds its SQL anew each time (an agreement version has a dozen JSON and date
columns: about 2 ms of CPU); the statement for a model is built once here, and each insert only
converts its values as the ORM's own fields do (`get_db_prep_save`, so JSON, dates and times are
stored exactly as `save()` stores them). INSERT … RETURNING works on PostgreSQL and SQLite.
Imports nothing of the service's apps, so any layer may use it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.db import connection, models


@cache
def _statement(
    model: type[models.Model], once: tuple[str, ...], replacing: tuple[str, ...] = ()
) -> tuple[str, list[models.Field[Any, Any]]]:
    quote = connection.ops.quote_name
    meta = model._meta
    # Every column but a key the database numbers (an auto field); a key set in Python (a UUID
    # with its default) is written with the row.
    fields = [f for f in meta.concrete_fields if not (f.primary_key and f.db_returning)]
    columns = ", ".join(quote(str(f.column)) for f in fields)
    sql = (
        f"INSERT INTO {quote(str(meta.db_table))} ({columns})"
        f" VALUES ({', '.join(['%s'] * len(fields))}){_on_conflict(fields, once, replacing)}"
        f" RETURNING {quote(str(meta.pk.column if meta.pk else 'id'))}"
    )
    return sql, fields


def _on_conflict(
    fields: list[models.Field[Any, Any]], once: tuple[str, ...], replacing: tuple[str, ...]
) -> str:
    """What a row whose `once` or `replacing` fields are taken does: nothing, or replace the
    other columns of the row there."""
    if not once and not replacing:
        return ""
    quote = connection.ops.quote_name
    named = ", ".join(quote(str(f.column)) for f in fields if f.name in once + replacing)
    if not replacing:
        return f" ON CONFLICT ({named}) DO NOTHING"
    others = [quote(str(f.column)) for f in fields if f.name not in replacing]
    return f" ON CONFLICT ({named}) DO UPDATE SET " + ", ".join(
        f"{column} = EXCLUDED.{column}" for column in others
    )


def insert(
    instance: models.Model,
    *,
    unless_exists: tuple[str, ...] = (),
    replacing: tuple[str, ...] = (),
) -> bool:
    """INSERT `instance` (a new row) and set its primary key, as save(force_insert=True) does.

    With `unless_exists`, the fields of a unique constraint: nothing is written, and False is
    returned, when a row with the same values is there (any other constraint still raises).
    With `replacing`, such fields too: a row with the same values is given every other column
    of `instance` and keeps its primary key, which `instance` takes (update_or_create's effect,
    in one statement rather than a read and a write in two savepoints)."""
    sql, fields = _statement(type(instance), unless_exists, replacing)
    values = [f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        row = cursor.fetchone()
    if row is None:
        return False
    instance.pk = row[0]
    instance._state.adding = False
    instance._state.db = connection.alias
    return True


# --- Many rows ----------------------------------------------------------------------------------

#: Rows per multi-row VALUES statement off PostgreSQL: inside SQLite's limit on bound parameters
#: for a dozen columns.
VALUES_CHUNK = 1000


@cache
def _columns(model: type[models.Model], names: tuple[str, ...]) -> tuple[str, str]:
    """(quoted table, quoted columns) of `names` (field names or attnames) of `model`."""
    quote = connection.ops.quote_name
    meta = model._meta
    known = {f.name: f.column for f in meta.concrete_fields}
    known |= {f.attname: f.column for f in meta.concrete_fields}
    return quote(str(meta.db_table)), ", ".join(quote(str(known[name])) for name in names)


def _key(model: type[models.Model]) -> str:
    return str(model._meta.pk.column) if model._meta.pk else "id"


def insert_many(
    model: type[models.Model],
    names: tuple[str, ...],
    values: list[tuple[Any, ...]],
    *,
    returning: bool = False,
) -> list[int]:
    """INSERT `values` (one tuple of plain database values per row, in the order of `names`)
    into `model`'s table; with `returning`, the new primary keys in the order of the rows.

    On PostgreSQL the rows go in by COPY (the keys taken from the table's sequence first, in one
    statement). A multi-row INSERT of a thousand rows has thousands of placeholders, which
    psycopg parses and quotes one by one in Python (its cache of parsed statements stops at 50
    parameters): 20,000 payments cost 7 s of CPU that way; COPY formats its rows in C.
    Elsewhere (SQLite) a thousand rows per INSERT … VALUES."""
    if not values:
        return []
    if connection.vendor == "postgresql":
        return _copy(model, names, values, returning=returning)
    table, columns = _columns(model, names)
    key = _key(model)
    tail = f" RETURNING {connection.ops.quote_name(key)}" if returning else ""
    row = "(" + ", ".join(["%s"] * len(names)) + ")"
    found: list[int] = []
    with connection.cursor() as cursor:
        for start in range(0, len(values), VALUES_CHUNK):
            chunk = values[start : start + VALUES_CHUNK]
            cursor.execute(
                f"INSERT INTO {table} ({columns}) VALUES {', '.join([row] * len(chunk))}{tail}",
                [value for one in chunk for value in one],
            )
            if returning:
                found += [pk for (pk,) in cursor.fetchall()]
    if returning and len(found) != len(values):
        raise RuntimeError(f"the database returned {len(found)} keys for {len(values)} rows")
    return found


def _copy(
    model: type[models.Model],
    names: tuple[str, ...],
    values: list[tuple[Any, ...]],
    *,
    returning: bool,
) -> list[int]:
    table, columns = _columns(model, names)
    key = _key(model)
    keys: list[int] = []
    with connection.cursor() as cursor:
        if returning:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [model._meta.db_table, key, len(values)],
            )
            keys = sorted(pk for (pk,) in cursor.fetchall())
            columns = f"{connection.ops.quote_name(key)}, {columns}"
        with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            if returning:
                for pk, row in zip(keys, values, strict=True):
                    copy.write_row((pk, *row))
            else:
                for row in values:
                    copy.write_row(row)
    return keys
