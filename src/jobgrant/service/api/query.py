"""Query strings: each parameter at most once."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.datastructures import MultiValueDict
from ninja.errors import ValidationError
from ninja.parser import Parser


class OneValueEach(Parser):
    """Refuses a parameter given twice (`?offset=1&offset=2`): Django would keep the last value
    and the answer would not say which one it used."""

    def parse_querydict(
        self, data: MultiValueDict[str, Any], list_fields: list[str], request: HttpRequest
    ) -> dict[str, Any]:
        repeated = [key for key in data if key not in list_fields and len(data.getlist(key)) > 1]
        if repeated:
            raise ValidationError(
                [{"loc": ("query", key), "type": "repeated", "msg": ""} for key in repeated]
            )
        return super().parse_querydict(data, list_fields, request)
