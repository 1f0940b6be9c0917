"""Request bodies read by hand: the application, quote and transition bodies.

Their shapes are documented by Schema classes (api/schemas.py) but not validated by Ninja: the
rules kernel's reader checks them, so that each problem keeps its exact path
(`employers[0].trainees[1].costs.tuition`) and its message in both languages, as `jobgrant quote`
gives them. Amounts are read as Decimal, never as float.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from django.http import HttpRequest

from jobgrant.service.errors import ServiceError, bad_input, problem


def malformed_body(reason_en: str, reason_fr: str) -> ServiceError:
    return ServiceError(
        400,
        "MALFORMED_BODY",
        "The request body could not be read; nothing was saved.",
        "Le corps de la requête est illisible; rien n'a été enregistré.",
        problems=[problem("(body)", reason_en, reason_fr)],
    )


def json_body(request: HttpRequest) -> Any:
    """The body's JSON ({} when empty), or 400 naming why it cannot be read."""
    if not request.body:
        return {}
    try:
        return json.loads(request.body, parse_float=Decimal)
    except ValueError as error:  # JSONDecodeError, bad UTF-8, an integer of over 4,300 digits
        raise malformed_body(
            f"is not valid JSON ({error})", f"n'est pas du JSON valide ({error})"
        ) from None
    except RecursionError:  # arrays or objects nested deeper than the parser's stack
        raise malformed_body(
            "is nested too deeply", "comporte trop de niveaux d'imbrication"
        ) from None


def json_object(request: HttpRequest) -> dict[str, Any]:
    body = json_body(request)
    if not isinstance(body, dict):
        raise bad_input([problem("(body)", "must be a JSON object", "doit être un objet JSON")])
    return body


def text_field(body: dict[str, Any], key: str, max_length: int | None = None) -> str:
    """Text at `key` ("" when absent), of at most `max_length` characters."""
    value = body.get(key, "")
    if not isinstance(value, str):
        raise bad_input([problem(key, "must be text", "doit être du texte")])
    if max_length is not None and len(value) > max_length:
        raise bad_input(
            [
                problem(
                    key,
                    f"must have at most {max_length} characters",
                    f"doit compter au plus {max_length} caractères",
                )
            ]
        )
    return value
