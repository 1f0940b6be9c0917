"""Every refusal the API makes, as application/problem+json naming the field, in both languages.

Ninja's own refusals (a parameter or body that fails its Schema, a body it cannot parse, a missing
token) are turned into the same problems as the service's."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError

from jobgrant.service.api.bodies import malformed_body
from jobgrant.service.api.problems import problem_response
from jobgrant.service.errors import ServiceError, bad_input, problem

# Pydantic's error types, in words (English, French); {name} is filled from the error's context.
MESSAGES: dict[str, tuple[str, str]] = {
    "missing": ("is required", "est obligatoire"),
    "repeated": ("must be given once", "ne doit figurer qu'une fois"),
    "string_type": ("must be text", "doit être du texte"),
    "string_too_short": (
        "must have at least {min_length} characters",
        "doit compter au moins {min_length} caractères",
    ),
    "string_too_long": (
        "must have at most {max_length} characters",
        "doit compter au plus {max_length} caractères",
    ),
    "string_pattern_mismatch": ("must match {pattern}", "doit correspondre à {pattern}"),
    "int_parsing": ("must be a whole number", "doit être un nombre entier"),
    "int_type": ("must be a whole number", "doit être un nombre entier"),
    "int_from_float": ("must be a whole number", "doit être un nombre entier"),
    "int_parsing_size": ("must be a whole number", "doit être un nombre entier"),
    "greater_than_equal": ("must be {ge} or more", "doit être d'au moins {ge}"),
    "less_than_equal": ("must be {le} or less", "doit être d'au plus {le}"),
    "bool_parsing": ("must be true or false", "doit être true ou false"),
    "bool_type": ("must be true or false", "doit être true ou false"),
    "dict_type": ("must be a JSON object", "doit être un objet JSON"),
    "model_type": ("must be a JSON object", "doit être un objet JSON"),
    "model_attributes_type": ("must be a JSON object", "doit être un objet JSON"),
}


def install(api: NinjaAPI) -> None:
    api.exception_handler(ServiceError)(service_error)
    api.exception_handler(AuthenticationError)(unauthenticated)
    api.exception_handler(ValidationError)(invalid)
    api.exception_handler(HttpError)(http_error)


def service_error(request: HttpRequest, error: ServiceError) -> HttpResponse:
    return problem_response(error)


def unauthenticated(request: HttpRequest, error: Exception) -> HttpResponse:
    return problem_response(
        ServiceError(
            401,
            "UNAUTHENTICATED",
            "Sign in, or send Authorization: Bearer TOKEN.",
            "Connectez-vous ou envoyez Authorization: Bearer JETON.",
        )
    )


def invalid(request: HttpRequest, error: ValidationError) -> HttpResponse:
    return problem_response(bad_input([_field_problem(e) for e in error.errors]))


def http_error(request: HttpRequest, error: HttpError) -> HttpResponse:
    """Ninja raises HttpError(400) for a body its parser cannot read (bad JSON, nesting deeper
    than the parser's stack); no handler of ours raises it."""
    if error.status_code == 400:
        return problem_response(malformed_body("is not valid JSON", "n'est pas du JSON valide"))
    return problem_response(
        ServiceError(
            error.status_code,
            "REQUEST_REFUSED",
            f"The request was refused ({error.message}).",
            f"La requête a été refusée ({error.message}).",
        )
    )


def _field_problem(error: dict[str, Any]) -> dict[str, str]:
    english, french = MESSAGES.get(error.get("type", ""), (error.get("msg", "is invalid"), ""))
    context = {key: str(value) for key, value in (error.get("ctx") or {}).items()}
    english = english.format_map(_Lenient(context))
    french = french.format_map(_Lenient(context)) if french else f"est invalide ({english})"
    return problem(field_path(error.get("loc", ())), english, french)


def field_path(loc: Iterable[Any]) -> str:
    """Ninja's ("body", "credentials", "username") or ("query", "offset") as the paths the rules
    kernel writes: `username`, `offset`, `trainees[0].status`."""
    source, *parts = list(loc) or ["(request)"]
    if source == "body":
        parts = parts[1:]  # the body parameter's own name means nothing to the caller
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}" if path else str(part)
    return path or ("(body)" if source == "body" else "(request)")


class _Lenient(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"
