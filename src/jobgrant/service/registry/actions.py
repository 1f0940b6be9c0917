"""Registering employers and trainees, and viewing a SIN in full: one transaction each, audited.

Input is checked in full before anything is written, and every problem is named (field, English,
French). Every refusal (a 403 for lack of permission, a 409 for a number registered already, a
422 for bad input) is recorded in the audit trail in a transaction of its own. The SIN never
reaches an audit entry, an error message or a log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction

from jobgrant.rules.codes import JURISDICTION_CODES, economic_regions
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.choices import jurisdiction_of
from jobgrant.service.errors import ServiceError, bad_input, forbidden, problem
from jobgrant.service.refusals import forbidden_for
from jobgrant.service.registry.identifiers import (
    encrypt_sin,
    format_sin,
    normalize_business_number,
    normalize_sin,
    sin_blind_index,
)
from jobgrant.service.registry.models import Employer, Trainee
from jobgrant.service.registry.naics import canadian_industries

Problems = list[dict[str, str]]
MAX_EMPLOYEES = 1_000_000


# --- Employers ---------------------------------------------------------------------------


@audited_refusals_of("employer", action="employer.register")
def register_employer(user: User, data: Any) -> Employer:
    """Register an employer; an officer may only do so in their own jurisdiction."""
    if user.role not in (Role.OFFICER, Role.ADMIN):
        raise _role_not_allowed()
    fields = _valid_employer(data)
    if not _covers(user, fields["jurisdiction"]):
        raise _other_jurisdiction()
    if Employer.objects.filter(business_number=fields["business_number"]).exists():
        raise _duplicate_business_number()
    try:
        with transaction.atomic():
            employer = Employer.objects.create(**fields)
            record(user.username, "employer.register", "employer", employer.pk, fields)
    except IntegrityError:  # registered by someone else a moment ago
        raise _duplicate_business_number() from None
    return employer


def _valid_employer(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise bad_input([problem("(body)", "must be a JSON object", "doit être un objet JSON")])
    problems = _unknown_fields(data, EMPLOYER_FIELDS)
    fields: dict[str, Any] = {}
    for key, (clean, en, fr) in EMPLOYER_FIELDS.items():
        value = clean(data.get(key))
        if value is None:
            problems.append(problem(key, en, fr))
        fields[key] = value
    problems += _region_problems(fields["jurisdiction"], fields["region"])
    if problems:
        raise bad_input(problems)
    return fields


def _text(limit: int) -> Callable[[Any], str | None]:
    def clean(value: Any) -> str | None:
        text = value.strip() if isinstance(value, str) else ""
        return text if 0 < len(text) <= limit else None

    return clean


def _business_number(value: Any) -> str | None:
    return normalize_business_number(value) if isinstance(value, str) else None


def _employees(value: Any) -> int | None:
    whole = isinstance(value, int) and not isinstance(value, bool)
    return value if whole and 1 <= value <= MAX_EMPLOYEES else None


def _naics(value: Any) -> str | None:
    code = value.strip() if isinstance(value, str) else ""
    return code if code in canadian_industries() else None


def _jurisdiction(value: Any) -> str | None:
    code = value.strip().upper() if isinstance(value, str) else ""
    return code if code in JURISDICTION_CODES else None


def _region(value: Any) -> str | None:
    code = value.strip() if isinstance(value, str) else ""
    return code if code in economic_regions() else None


_JURISDICTION_LIST = " ".join(JURISDICTION_CODES)
EMPLOYER_FIELDS: dict[str, tuple[Callable[[Any], Any], str, str]] = {
    "business_number": (
        _business_number,
        "must be a 9-digit Business Number with a valid check digit",
        "doit être un numéro d'entreprise de 9 chiffres avec un chiffre de contrôle valide",
    ),
    "name": (
        _text(200),
        "is required (200 characters at most)",
        "est obligatoire (200 caractères au plus)",
    ),
    "employees": (
        _employees,
        f"must be a whole number of employees from 1 to {MAX_EMPLOYEES:,}",
        f"doit être un nombre entier d'employés de 1 à {MAX_EMPLOYEES:,}".replace(",", " "),
    ),
    "naics": (
        _naics,
        "must be a 6-digit Canadian industry code of NAICS Canada 2022",
        "doit être un code de 6 chiffres d'une industrie canadienne du SCIAN Canada 2022",
    ),
    "jurisdiction": (
        _jurisdiction,
        f"must be a province or territory code ({_JURISDICTION_LIST})",
        f"doit être le code d'une province ou d'un territoire ({_JURISDICTION_LIST})",
    ),
    "region": (
        _region,
        "must be a 4-digit economic region code (2016 Standard Geographical Classification)",
        "doit être le code à 4 chiffres d'une région économique (CGT 2016)",
    ),
}


def _region_problems(jurisdiction: str | None, region: str | None) -> Problems:
    if jurisdiction is None or region is None:
        return []
    if economic_regions()[region].jurisdiction == jurisdiction:
        return []
    english, french = jurisdiction_of(jurisdiction)
    return [
        problem(
            "region",
            f"is not an economic region of {english}",
            f"n'est pas une région économique {french}",
        )
    ]


def _covers(user: User, jurisdiction: str) -> bool:
    return user.role == Role.ADMIN or user.federal or user.jurisdiction == jurisdiction


def _duplicate_business_number() -> ServiceError:
    return ServiceError(
        409,
        "DUPLICATE_BUSINESS_NUMBER",
        "An employer with this Business Number is already registered.",
        "Un employeur ayant ce numéro d'entreprise est déjà inscrit.",
        problems=[problem("business_number", "is already registered", "est déjà inscrit")],
    )


# --- Trainees ----------------------------------------------------------------------------

TRAINEE_FIELDS = ("given_name", "family_name", "employer", "sin")


@audited_refusals_of("trainee", action="trainee.register")
def register_trainee(user: User, data: Any) -> Trainee:
    """Register a trainee of an employer; the SIN, if given, is kept encrypted and indexed."""
    if user.role not in (Role.EMPLOYER, Role.OFFICER, Role.ADMIN):
        raise _role_not_allowed()
    fields = _valid_trainee(data)
    employer = fields["employer"]
    _check_may_act_for(user, employer)
    if fields["sin_index"] and Trainee.objects.filter(sin_index=fields["sin_index"]).exists():
        raise _duplicate_sin()
    try:
        with transaction.atomic():
            trainee = Trainee.objects.create(**fields)
            summary = {"employer": employer.pk, "sin_recorded": bool(fields["sin_index"])}
            record(user.username, "trainee.register", "trainee", trainee.pk, summary)
    except IntegrityError:  # the same SIN registered a moment ago
        raise _duplicate_sin() from None
    return trainee


def _valid_trainee(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise bad_input([problem("(body)", "must be a JSON object", "doit être un objet JSON")])
    problems = _unknown_fields(data, TRAINEE_FIELDS)
    names = {key: _text(100)(data.get(key)) for key in ("given_name", "family_name")}
    problems += [
        problem(
            key, "is required (100 characters at most)", "est obligatoire (100 caractères au plus)"
        )
        for key, value in names.items()
        if value is None
    ]
    employer = _employer(data.get("employer"))
    if employer is None:
        problems.append(
            problem(
                "employer",
                "must be the id of a registered employer",
                "doit être l'identifiant d'un employeur inscrit",
            )
        )
    sin_fields, sin_problems = _sin_fields(data.get("sin"))
    if problems or sin_problems:
        raise bad_input(problems + sin_problems)
    return {**names, "employer": employer, **sin_fields}


def _employer(value: Any) -> Employer | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    return Employer.objects.filter(pk=value).first()


def _sin_fields(value: Any) -> tuple[dict[str, Any], Problems]:
    """Encrypted SIN and blind index; no SIN (None or "") is allowed, an invalid one is not."""
    if value is None or value == "":
        return {"sin_key_id": "", "sin_ciphertext": None, "sin_index": ""}, []
    number = normalize_sin(value) if isinstance(value, str) else None
    if number is None:
        return {}, [
            problem(
                "sin",
                "must be a valid Social Insurance Number (9 digits with a valid check "
                "digit, not starting with 0 or 8)",
                "doit être un numéro d'assurance sociale valide (9 chiffres avec un chiffre de "
                "contrôle valide, ne commençant ni par 0 ni par 8)",
            )
        ]
    key_id, ciphertext = encrypt_sin(number)
    return {
        "sin_key_id": key_id,
        "sin_ciphertext": ciphertext,
        "sin_index": sin_blind_index(number),
    }, []


@audited_refusals_of("employer", action="trainee.register")
def _check_may_act_for(user: User, employer: Employer) -> None:
    """Refuse a trainee for an employer `user` may not act for: the refusal names the employer
    (a decorator of its own, as `register_trainee`'s would name no object)."""
    if not _may_act_for(user, employer):
        raise _not_your_employer()


def _may_act_for(user: User, employer: Employer) -> bool:
    """An employer's own users; officers of its jurisdiction with no tie to it; admins."""
    tied = user.employers.filter(pk=employer.pk).exists()
    if user.role == Role.EMPLOYER:
        return tied
    return _covers(user, employer.jurisdiction) and not tied


def _duplicate_sin() -> ServiceError:
    return ServiceError(
        409,
        "DUPLICATE_SIN",
        "A trainee with this Social Insurance Number is already registered.",
        "Un participant ayant ce numéro d'assurance sociale est déjà inscrit.",
        problems=[problem("sin", "is already registered", "est déjà inscrit")],
    )


# --- Viewing a SIN in full -----------------------------------------------------------------


@audited_refusals_of("trainee", action="trainee.view_sin")
def view_sin(user: User, trainee: Trainee) -> str:
    """The trainee's SIN as NNN-NNN-NNN, for holders of the view-SIN permission; audited."""
    if not (user.is_active and user.may_view_sin):
        raise _sin_view_not_allowed()
    if not trainee.sin_ciphertext:
        raise ServiceError(
            404,
            "NO_SIN",
            "No SIN is recorded for this trainee.",
            "Aucun NAS n'est enregistré pour ce participant.",
        )
    with transaction.atomic():
        summary = {"employer": trainee.employer_id}
        record(user.username, "trainee.view_sin", "trainee", trainee.pk, summary)
        return format_sin(trainee.sin())


def _sin_view_not_allowed() -> ServiceError:
    return forbidden(
        "SIN_VIEW_NOT_ALLOWED",
        "Viewing a Social Insurance Number in full needs its own permission.",
        "Voir un numéro d'assurance sociale au complet exige une autorisation particulière.",
    )


# --- Shared --------------------------------------------------------------------------------


def _unknown_fields(data: dict[str, Any], known: Any) -> Problems:
    return [
        problem(str(key), "is not a known field", "n'est pas un champ connu")
        for key in data
        if key not in known
    ]


def _role_not_allowed() -> ServiceError:
    return forbidden_for("ROLE_NOT_ALLOWED")


def _other_jurisdiction() -> ServiceError:
    return forbidden(
        "NOT_YOUR_JURISDICTION",
        "You may only register employers in your own jurisdiction.",
        "Vous ne pouvez inscrire que des employeurs de votre province ou territoire.",
    )


def _not_your_employer() -> ServiceError:
    return forbidden(
        "NOT_YOUR_ORGANIZATION",
        "You may only register trainees for an employer you act for or oversee.",
        "Vous ne pouvez inscrire des participants que pour un employeur que vous représentez "
        "ou dont vous avez la charge.",
    )
