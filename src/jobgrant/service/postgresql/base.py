"""Django's PostgreSQL backend, with the parameters bound by PostgreSQL and the statements a
connection runs often prepared once (`server_side_binding`, psycopg's `prepare_threshold`):
PostgreSQL then parses and plans each of them once per connection instead of at every call,
which was most of its CPU in an approval (ADR 0056).

One change to Django's backend makes that safe for money. Django binds every integer as the
type of the field it goes with, and a bare integer in an expression (`F("allocated_cents") +
cents`) goes with an `IntegerField`: bound on the server in binary as a 4-byte integer, $28.8
million in cents came out as −$14.2 million, silently. Here every integer is bound as a
64-bit one, which PostgreSQL compares with any integer column and assigns to a narrower one only
if it fits (an error otherwise, never a wrapped number).
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base, operations
from psycopg.types.numeric import Int8


class DatabaseOperations(operations.DatabaseOperations):
    def adapt_integerfield_value(self, value: Any, internal_type: str) -> Any:
        if value is None or hasattr(value, "resolve_expression"):
            return value
        return Int8(value)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
