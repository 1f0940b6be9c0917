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
    model: type[models.Model], once: tuple[str, ...]
) -> tuple[str, list[models.Field[Any, Any]]]:
    quote = connection.ops.quote_name
    meta = model._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    columns = ", ".join(quote(str(f.column)) for f in fields)
    conflict = ""
    if once:
        named = ", ".join(quote(str(f.column)) for f in fields if f.name in once)
        conflict = f" ON CONFLICT ({named}) DO NOTHING"
    sql = (
        f"INSERT INTO {quote(str(meta.db_table))} ({columns})"
        f" VALUES ({', '.join(['%s'] * len(fields))}){conflict}"
        f" RETURNING {quote(str(meta.pk.column if meta.pk else 'id'))}"
    )
    return sql, fields


def insert(instance: models.Model, *, unless_exists: tuple[str, ...] = ()) -> bool:
    """INSERT `instance` (a new row) and set its primary key, as save(force_insert=True) does.

    With `unless_exists`, the fields of a unique constraint: nothing is written, and False is
    returned, when a row with the same values is there (any other constraint still raises)."""
    sql, fields = _statement(type(instance), unless_exists)
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
