"""What an agreement version says, and the document that says it, in English and in French.

`terms_of` reads the approved application into a version's terms (cost lines per trainee and
category, the schedule, the shares, the due dates from their dated, sourced parameters);
`named_employers` reads the names the document shows; `terms_hash` is the SHA-256 of all of it,
as canonical JSON (`terms_document`): what the issue's audit entry and message carry.
`render_document` writes the document of a version in one language (plain semantic HTML with no
page around it, written by grants.agreements.html) from the stored terms and names only;
`content_hash` is the SHA-256 of both renderings. A version is rendered once, when it is first
read or by the worker (ADR 0040), and stored: the page, the PDF and the acceptance all use the
stored text, so what was accepted is exactly what was read, whatever later changes to the writer
or its translations.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from babel.dates import format_datetime
from babel.numbers import format_decimal
from django.db import connection
from django.utils import timezone, translation

from jobgrant.rules.evaluate import default_library
from jobgrant.rules.money import AmountError, format_money, parse_amount
from jobgrant.rules.parameters import ParameterError
from jobgrant.rules.policies import DEFAULT_POLICY, Policy, PolicyLibrary, UnknownPolicyError
from jobgrant.service.choices import CostCategory, Setting, TraineeStatus
from jobgrant.service.grants.agreements import html as agreement_html
from jobgrant.service.grants.models.agreements import AgreementVersion
from jobgrant.service.grants.models.applications import Application, ApplicationEmployer
from jobgrant.service.language import LOCALES, in_language, long_date
from jobgrant.service.registry.models import Employer

COST_CATEGORIES = ("tuition", "student_fees", "materials", "exam_fees")
PARAMETERS = {
    "accept_by": "cjg.agreement.accept_within_days",
    "participants_by": "cjg.agreement.participants_before_start_days",
    "first_claim_by": "cjg.agreement.first_claim_within_days_of_start",
    "completion_report_by": "cjg.agreement.completion_report_within_days_of_end",
}


@dataclass(frozen=True)
class DueDates:
    accept_by: dt.datetime
    participants_by: dt.date
    first_claim_by: dt.date
    completion_report_by: dt.date
    parameters: list[dict[str, Any]]


def parameter_of(
    name: str, application: Application, on: dt.date, policy: Policy | None = None
) -> Any:
    """A parameter as the policy of the application (`policy`, when the caller has read it) sets
    it there on `on`: its value (None for no limit), the date it took effect and the sources it
    cites."""
    library = default_library()
    policy = policy or _policy_of(library, application)
    region = application.request.get("region") if isinstance(application.request, dict) else None
    layers = library.layers(policy, application.jurisdiction)
    return library._resolve_one(name, layers, application.jurisdiction, region, on)


def _parameter(
    name: str, application: Application, on: dt.date, policy: Policy | None = None
) -> dict[str, Any]:
    """A due-date parameter as the policy of the application sets it there on `on`, with the
    source it cites."""
    found = parameter_of(name, application, on, policy)
    return {
        "name": name,
        "value": int(found.value or 0),
        "effective": found.effective.isoformat(),
        "reference": [reference.as_dict() for reference in found.reference],
    }


def _policy_of(library: PolicyLibrary, application: Application) -> Policy:
    """The application's policy: by its name, else as its program names it (a scenario file's
    path), else the default policy (its due dates are the shipped parameters'). The program is
    only read when the application's own name is not a policy (every approval asks)."""

    def named() -> Iterator[str]:
        yield application.policy
        yield application.stream.program.policy

    for name in named():
        try:
            return library.get(name)
        except (UnknownPolicyError, ParameterError):
            continue
    return library.get(DEFAULT_POLICY)


def due_dates(
    application: Application, issued_at: dt.datetime, schedule: dict[str, Any]
) -> DueDates:
    """accept_by = issue + N days; participants by start − N; first claim by start + N;
    completion report by end + N; each N read on the day of issue."""
    today = timezone.localtime(issued_at).date()
    policy = _policy_of(default_library(), application)
    read = {key: _parameter(name, application, today, policy) for key, name in PARAMETERS.items()}
    start = dt.date.fromisoformat(schedule["start_date"])
    end = dt.date.fromisoformat(schedule["end_date"])

    def days(key: str) -> dt.timedelta:
        return dt.timedelta(days=read[key]["value"])

    return DueDates(
        accept_by=issued_at + days("accept_by"),
        participants_by=start - days("participants_by"),
        first_claim_by=start + days("first_claim_by"),
        completion_report_by=end + days("completion_report_by"),
        parameters=[{"due": key, **value} for key, value in read.items()],
    )


def terms_of(application: Application) -> dict[str, Any]:
    """Version 1's terms: what the approval agreed to, from the stored request and quote."""
    request = application.request if isinstance(application.request, dict) else {}
    training = request.get("training") or {}
    trainees = request.get("trainees") or []
    quoted = {row["index"]: row for row in application.quote.get("trainees", [])}
    lines, shares = [], []
    for index, trainee in enumerate(trainees):
        costs = trainee.get("costs") or {}
        amounts = [(c, parse_amount(str(costs.get(c, "0.00")))) for c in COST_CATEGORIES]
        amounts.append(("wages_in_kind", parse_amount(str(trainee.get("wages_in_kind", "0.00")))))
        lines += [
            {
                "trainee": index + 1,
                "employer_id": trainee.get("employer_id", ""),
                "category": c,
                "cents": v,
            }
            for c, v in amounts
            if v
        ]
        figures = quoted.get(index, {})
        shares.append(
            {
                "trainee": index + 1,
                "employer_id": trainee.get("employer_id", ""),
                "status": trainee.get("status", ""),
                **{
                    f"{key}_cents": parse_amount(str(figures.get(key, "0.00")))
                    for key in ("eligible_cost", "federal", "provincial", "employer")
                },
            }
        )
    totals = application.quote.get("totals", {})
    return {
        "cost_lines": lines,
        "trainee_shares": shares,
        "schedule": {
            "course": training.get("course", ""),
            "provider": (training.get("provider") or {}).get("name", ""),
            "setting": training.get("setting", ""),
            "start_date": training.get("start_date", ""),
            "end_date": training.get("end_date", ""),
            "hours": str(training.get("hours", "")),
        },
        "eligible_cents": parse_amount(str(totals.get("eligible_cost", "0.00"))),
        "federal_cents": application.federal_cents,
        "provincial_cents": application.provincial_cents,
        "employer_cents": application.employer_cents,
        "policy": application.policy,
        "policy_version": application.policy_version,
    }


def _document_context(
    version: AgreementVersion, language: str, links: list[ApplicationEmployer]
) -> dict[str, Any]:
    """Everything the document shows, already written for `language` (money, dates, labels)."""
    names = {link.reference: link.employer.name for link in links}
    categories, statuses, settings = (
        dict(CostCategory.choices),
        dict(TraineeStatus.choices),
        dict(Setting.choices),
    )

    def money(cents: int) -> str:
        return format_money(cents, language)

    schedule = dict(version.schedule)
    schedule["hours"] = hours_text(schedule.get("hours", ""), language)
    return {
        "language": language,
        "number": version.agreement.application_id,
        "version": version.number,
        "issued_on": long_date(timezone.localtime(version.created_at).date(), language),
        "applicant": links[0].employer.name if links else "",
        "business_number": links[0].employer.business_number if links else "",
        "partners": [link.employer.name for link in links[1:]],
        "schedule": schedule,
        "setting": settings.get(schedule.get("setting", ""), schedule.get("setting", "")),
        "start": long_date(dt.date.fromisoformat(schedule["start_date"]), language),
        "end": long_date(dt.date.fromisoformat(schedule["end_date"]), language),
        "lines": [
            {
                "trainee": line["trainee"],
                "employer": names.get(line["employer_id"], line["employer_id"]),
                "category": categories.get(line["category"], line["category"]),
                "amount": money(line["cents"]),
            }
            for line in version.cost_lines
        ],
        "trainees": [
            {
                "trainee": row["trainee"],
                "employer": names.get(row["employer_id"], row["employer_id"]),
                "status": statuses.get(row.get("status", ""), row.get("status", "")),
                "eligible": money(row["eligible_cost_cents"]),
                "federal": money(row["federal_cents"]),
                "provincial": money(row["provincial_cents"]),
                "employer_share": money(row["employer_cents"]),
            }
            for row in version.trainee_shares
        ],
        "eligible": money(version.eligible_cents),
        "federal": money(version.federal_cents),
        "provincial": money(version.provincial_cents),
        "employer_share": money(version.employer_cents),
        "government": money(version.federal_cents + version.provincial_cents),
        "accept_by": format_datetime(
            timezone.localtime(version.accept_by),
            format=in_language(en="MMMM d, y 'at' h:mm a zzz", fr="d MMMM y 'à' HH 'h' mm zzz"),
            locale=LOCALES[language],
        ),
        "participants_by": long_date(version.participants_by, language),
        "first_claim_by": long_date(version.first_claim_by, language),
        "completion_report_by": long_date(version.completion_report_by, language),
        "parameters": version.due_date_parameters,
        "policy": version.policy,
        "policy_version": version.policy_version,
    }


def hours_text(raw: object, language: str) -> str:
    """Hours as the language writes them: a whole number without decimals ("120", not
    "120.00"), a fraction with the language's decimal sign ("7.5", "7,5"). What is not a number
    of hours is written as it is."""
    try:
        hundredths = parse_amount(raw if isinstance(raw, str | int) else str(raw))
    except AmountError:
        return str(raw)
    return format_decimal(Decimal(hundredths) / 100, locale=LOCALES[language])


def render_document(
    version: AgreementVersion, language: str, links: list[ApplicationEmployer] | None = None
) -> str:
    """The document of `version` in `language`: the canonical text that is stored and hashed.
    `links`, the application's employers in order, are read once for both languages."""
    if links is None:
        links = employers_of(version)
    with translation.override(language):
        html = agreement_html.write(_document_context(version, language, links))
    return "\n".join(line.rstrip() for line in html.strip().splitlines()) + "\n"


_EMPLOYERS_SQL = (
    f'SELECT a."reference", e."name", e."business_number"'
    f' FROM "{ApplicationEmployer._meta.db_table}" a'
    f' JOIN "{Employer._meta.db_table}" e ON e."id" = a."employer_id"'
    ' WHERE a."application_id" = %s ORDER BY a."position"'
)


def named_employers(application_id: int) -> list[dict[str, str]]:
    """The application's employers in order, with what the document names of each (their
    reference, name and business number; a plain statement, read in every approval, and stored
    with the version so that the document names them as they were at issue)."""
    with connection.cursor() as cursor:
        cursor.execute(_EMPLOYERS_SQL, [application_id])
        rows = cursor.fetchall()
    return [{"reference": ref, "name": name, "business_number": bn} for ref, name, bn in rows]


def employers_of(version: AgreementVersion) -> list[ApplicationEmployer]:
    """The employers the document of `version` names: those stored with it, else (a version
    made before they were stored, whose document was rendered when it was made) as they are."""
    named = version.named_employers
    if named is None:
        named = named_employers(version.agreement.application_id)
    return [
        ApplicationEmployer(
            reference=one["reference"],
            employer=Employer(name=one["name"], business_number=one["business_number"]),
        )
        for one in named
    ]


def _moment(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).isoformat()


def terms_document(version: AgreementVersion) -> dict[str, Any]:
    """Everything the document of `version` is written from, as plain JSON values: the terms,
    the due dates with their parameters, the employers' names, and the version's identity."""
    return {
        "application": version.agreement.application_id,
        "version": version.number,
        "created_at": _moment(version.created_at),
        "cost_lines": version.cost_lines,
        "trainee_shares": version.trainee_shares,
        "schedule": version.schedule,
        "eligible_cents": version.eligible_cents,
        "federal_cents": version.federal_cents,
        "provincial_cents": version.provincial_cents,
        "employer_cents": version.employer_cents,
        "policy": version.policy,
        "policy_version": version.policy_version,
        "accept_by": _moment(version.accept_by),
        "participants_by": version.participants_by.isoformat(),
        "first_claim_by": version.first_claim_by.isoformat(),
        "completion_report_by": version.completion_report_by.isoformat(),
        "due_date_parameters": version.due_date_parameters,
        "named_employers": version.named_employers,
    }


def terms_hash(version: AgreementVersion) -> str:
    """SHA-256 of `terms_document` as canonical JSON (sorted keys, no spaces, UTF-8)."""
    canonical = json.dumps(
        terms_document(version), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def content_hash(content_en: str, content_fr: str) -> str:
    """SHA-256 of both languages' documents, as canonical JSON {"en": …, "fr": …}."""
    canonical = json.dumps({"en": content_en, "fr": content_fr}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()
