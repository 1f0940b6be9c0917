"""The pages' `<id:...>` path parameter: a database id, 1 to 2^63 − 1.

Django's `<int:...>` matches any run of digits, and an id past the database's 64-bit integers
reached the query and failed there (OverflowError on SQLite, an out-of-range error on
PostgreSQL): a 500. An id that cannot exist does not match the route: 404.
"""

from __future__ import annotations

from django.urls import register_converter

MAX_DATABASE_ID = 2**63 - 1


class DatabaseId:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 1 <= number <= MAX_DATABASE_ID:
            raise ValueError(value)  # the route does not match: 404
        return number

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(DatabaseId, "id")
