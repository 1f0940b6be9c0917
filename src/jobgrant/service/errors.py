"""The service's refusals, each with a status code and messages in both official languages."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ServiceError(Exception):
    """A refusal the API answers as application/problem+json."""

    status: int
    code: str
    message_en: str
    message_fr: str
    extra: dict[str, object] = field(default_factory=dict)
    problems: list[dict[str, str]] = field(default_factory=list)  # field-level problems
    # Set once the refusal is in the audit trail, so that no later net records it twice.
    audited: bool = field(default=False, compare=False, repr=False)


def forbidden(code: str, en: str, fr: str) -> ServiceError:
    return ServiceError(403, code, en, fr)


def not_found() -> ServiceError:
    return ServiceError(404, "NOT_FOUND", "No such application.", "Aucune demande de ce genre.")


def bad_input(problems: list[dict[str, str]]) -> ServiceError:
    return ServiceError(
        422,
        "INVALID_INPUT",
        "The request has problems; nothing was saved.",
        "La requête comporte des erreurs; rien n'a été enregistré.",
        problems=problems,
    )


def problem(path: str, en: str, fr: str) -> dict[str, str]:
    return {"field": path, "message_en": en, "message_fr": fr}
