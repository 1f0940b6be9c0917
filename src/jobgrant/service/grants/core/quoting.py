"""From an API application to a rules-kernel quote, with the registry's facts filled in."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from django.db.models import Sum

from jobgrant.rules.codes import JURISDICTION_CODES, fiscal_year
from jobgrant.rules.evaluate import default_library
from jobgrant.rules.money import format_amount
from jobgrant.rules.quote import quote
from jobgrant.rules.requests import InvalidRequestError, parse_quote_request
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.choices import jurisdiction_names
from jobgrant.service.errors import ServiceError, bad_input, problem
from jobgrant.service.grants.core import access
from jobgrant.service.grants.core.evaluation_answers import for_the_kernel
from jobgrant.service.grants.core.streams import STREAM, chosen_intake, stream_problems
from jobgrant.service.grants.models.applications import (
    ApplicationEmployer,
    Delivery,
    Intake,
    IntakeState,
    Program,
    State,
)
from jobgrant.service.registry.identifiers import normalize_business_number
from jobgrant.service.registry.models import Employer

RULES_DIR = Path(__file__).resolve().parents[3] / "rules"
EMPLOYER_CAP = "cjg.employer.max_government_per_fiscal_year"
DECIDED_BY_PROGRAM = ("policy", "delivery", "application_date")


@cache
def policy_version() -> str:
    """A digest of every parameter and policy file: which rules produced a stored quote."""
    digest = hashlib.sha256()
    for path in sorted(RULES_DIR.glob("p*/**/*.yaml")):
        digest.update(path.relative_to(RULES_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@lru_cache(maxsize=4096)
def employer_cap_may_apply(
    policy: str, jurisdiction: str, region: str | None, received: dt.date
) -> bool:
    """Whether the policy may cap the government money an employer gets in a fiscal year, for an
    application in `jurisdiction` (or its `region`) received on `received`: only then can
    approvals made since an application was quoted change its eligibility.

    True for anything but a shipped policy (a scenario file can change under the same name).
    Answers are kept per process, as the shipped policies are (`default_library`)."""
    library = default_library()
    chosen = library.policies.get(policy)
    if chosen is None:
        return True
    return any(
        library.resolve(chosen, jurisdiction, place, received)[EMPLOYER_CAP].value is not None
        for place in {region, None}
    )


LONGEST_TRAINING = "cjg.training.max_duration_days"


def longest_training(program: Program, on: dt.date) -> int | None:
    """The most days a training may last (first and last day counted) under the program's
    policy in its jurisdiction on `on`; None where the policy sets no limit or is not a shipped
    one (a scenario file's limit is checked by its quote)."""
    library = default_library()
    chosen = library.policies.get(program.policy)
    if chosen is None:
        return None
    value = library.resolve(chosen, program.jurisdiction, None, on)[LONGEST_TRAINING].value
    return None if value is None else int(value)


def registered_employers(payload: dict[str, Any]) -> list[Employer]:
    """The employers named by business number, in order (422 naming each unknown one)."""
    entries = payload.get("employers")
    if not isinstance(entries, list) or not entries:
        raise bad_input(
            [
                problem(
                    "employers",
                    "must list at least one employer",
                    "doit contenir au moins un employeur",
                )
            ]
        )
    employers, problems = [], []
    for i, entry in enumerate(entries):
        raw_bn = entry.get("business_number", "") if isinstance(entry, dict) else ""
        bn = normalize_business_number(str(raw_bn))
        found = Employer.objects.filter(business_number=bn).first() if bn else None
        if found is None:
            problems.append(
                problem(
                    f"employers[{i}].business_number",
                    "is not a registered employer's business number",
                    "n'est pas le numéro d'entreprise d'un employeur inscrit",
                )
            )
        else:
            employers.append(found)
    if problems:
        raise bad_input(problems)
    return employers


def approved_this_fiscal_year(employer: Employer, year: str, region: str | None) -> int:
    """Government money already approved for the employer in the fiscal year, in cents."""
    rows = ApplicationEmployer.objects.filter(
        employer=employer, application__state=State.APPROVED, application__fiscal_year=year
    )
    if region:
        rows = rows.filter(application__request__region=region)
    return int(rows.aggregate(total=Sum("government_cents"))["total"] or 0)


def kernel_request(
    payload: dict[str, Any], employers: list[Employer], program: Program | None, received: dt.date
) -> dict[str, Any]:
    """The quote input: the payload plus policy, delivery, date and the registry's figures."""
    request = {k: v for k, v in for_the_kernel(payload).items() if k not in ("employers", STREAM)}
    request["application_date"] = received.isoformat()
    request["employers"] = []
    year = _training_fiscal_year(payload) or fiscal_year(received)
    region = payload.get("region")
    for entry, employer in zip(payload["employers"], employers, strict=True):
        approved = approved_this_fiscal_year(
            employer, year, region if isinstance(region, str) else None
        )
        request["employers"].append(
            {
                "id": entry.get("id"),
                "employees": employer.employees,
                "approved_this_fiscal_year": format_amount(approved),
            }
        )
    return with_program(request, program) if program is not None else request


def with_program(request: dict[str, Any], program: Program) -> dict[str, Any]:
    """A quote input with what the program decides: its policy and, unless each employer signs
    its own agreement, its delivery."""
    decided = {**request, "policy": program.policy}
    if program.delivery != Delivery.SEPARATE_AGREEMENT:
        decided["delivery"] = program.delivery
    return decided


def _training_fiscal_year(payload: dict[str, Any]) -> str | None:
    training = payload.get("training")
    start = training.get("start_date") if isinstance(training, dict) else None
    try:
        return fiscal_year(dt.date.fromisoformat(start)) if isinstance(start, str) else None
    except ValueError:
        return None


def run_quote(request: dict[str, Any], *, explain: bool = True) -> dict[str, Any]:
    """The kernel's quote (with its explanation by default), or 422 naming each bad field."""
    try:
        return quote(request, explain=explain)
    except InvalidRequestError as error:
        raise bad_input(
            [problem(p.path, p.message("en"), p.message("fr")) for p in error.problems]
        ) from None


def program_for(payload: dict[str, Any], received: dt.date) -> Program:
    """The program with an open intake for the jurisdiction and the training's fiscal year."""
    return program_and_intakes(payload, received)[0]


def program_and_intakes(payload: dict[str, Any], received: dt.date) -> tuple[Program, list[Intake]]:
    """`program_for`'s program, with its intakes open on `received` (never none)."""
    jurisdiction = payload.get("jurisdiction")
    year = _training_fiscal_year(payload)
    program = Program.objects.filter(jurisdiction=jurisdiction, fiscal_year=year).first()
    intakes = open_intakes(program, received) if program is not None else []
    if program is None or not intakes:
        code = str(jurisdiction or "")
        english, french = jurisdiction_names(code) if code in JURISDICTION_CODES else (code, code)
        raise ServiceError(
            422,
            "NO_OPEN_INTAKE",
            f"No intake is open in {english} for training in {year}.",
            f"Aucun appel de demandes n'est ouvert pour une formation en {year} ({french}).",
            problems=[
                problem(
                    "training.start_date",
                    "falls in a fiscal year with no open intake",
                    "tombe dans un exercice sans appel de demandes ouvert",
                )
            ],
        )
    return program, intakes


def open_intake(program: Program, received: dt.date) -> Intake | None:
    """The program's first intake receiving applications on `received` (its window holds the
    date and it was not closed early), by stream; None when none is open."""
    found = open_intakes(program, received)
    return found[0] if found else None


def open_intakes(program: Program, received: dt.date) -> list[Intake]:
    """The program's intakes receiving applications on `received`, one per stream at most (a
    stream's windows never overlap), in the order the streams were made."""
    return list(
        Intake.objects.filter(
            stream__program=program, opens_on__lte=received, closes_on__gte=received
        )
        .exclude(state__in=[IntakeState.CLOSED, IntakeState.RANKED])
        .select_related("stream")
        .order_by("stream_id", "opens_on", "id")
    )


# --- A quote of an application's body, as applying would compute it ------------------------


@dataclass(frozen=True)
class Quoted:
    """What an application with this body would get: its employers, program, the intake of the
    stream it is made to (chosen, or the only one open) and quote."""

    employers: list[Employer]
    program: Program
    intake: Intake
    result: dict[str, Any]


def quote_application(
    user: User, payload: Any, received: dt.date, *, explain: bool = True
) -> Quoted:
    """The quote of an application body, checked as applying checks it, saving nothing.

    An employer may quote only for an employer it acts for (the quote reads the government money
    already approved for that employer); the back-office roles may quote for any registered one.
    Raises ServiceError: 422 naming each bad field, 403 for someone else's employer."""
    employers = checked_employers(payload)
    if user.role != Role.EMPLOYER:
        return quote_checked(payload, employers, received, explain=explain)
    access.check_employer_may_act(user, employers[0])
    quoted = quote_checked(payload, employers, received, explain=explain)
    mine = set(access.employers_acted_for(user).values_list("pk", flat=True))
    others = {
        str(entry.get("id"))
        for entry, employer in zip(payload["employers"], employers, strict=True)
        if employer.pk not in mine
    }
    withhold_figures_of(quoted.result, others)
    return quoted


#: What the registry says of an employer that its partners may not learn from a quote.
WITHHELD_INPUTS = ("employees", "approved_this_fiscal_year")
WITHHELD = "withheld"


def withhold_figures_of(result: dict[str, Any], employer_ids: set[str]) -> None:
    """Blank, in the explanation, the registry's figures of the employers `employer_ids` (the
    partners an employer names but does not act for): the inputs stay named, their value
    "withheld"."""
    if not employer_ids:
        return
    owner_of_trainee = [str(t.get("employer_id")) for t in result.get("trainees", [])]
    owner_of_employer = [str(e.get("id")) for e in result.get("employers", [])]
    for entry in result.get("explanation") or []:
        owner = _owner(str(entry.get("target", "")), owner_of_trainee, owner_of_employer)
        inputs = entry.get("inputs") or {}
        if owner in employer_ids:
            for key in WITHHELD_INPUTS:
                if key in inputs:
                    inputs[key] = WITHHELD


def _owner(target: str, trainees: list[str], employers: list[str]) -> str | None:
    """The employer an explained figure belongs to ("trainees[1].in_kind", "employers[0]...")."""
    for prefix, owners in (("trainees[", trainees), ("employers[", employers)):
        if target.startswith(prefix):
            index = target[len(prefix) :].partition("]")[0]
            if index.isdigit() and int(index) < len(owners):
                return owners[int(index)]
    return None


def checked_employers(payload: Any) -> list[Employer]:
    """The registered employers of a body that names no field the program decides."""
    if not isinstance(payload, dict):
        raise bad_input([problem("(body)", "must be a JSON object", "doit être un objet JSON")])
    _refuse_program_fields(payload)
    return registered_employers(payload)


def quote_checked(
    payload: dict[str, Any], employers: list[Employer], received: dt.date, *, explain: bool
) -> Quoted:
    """The quote of a body whose employers are known: every field checked before the program is
    looked up, so that a bad body is told about its fields rather than about intakes; then the
    stream (`stream`: its id or code, or none when only one is open on `received`)."""
    # The registry's figures are read once: the shape is checked on them, then the quote made.
    request = kernel_request(payload, employers, None, received)
    _validate_shape(request, stream_problems(payload))
    program, intakes = program_and_intakes(payload, received)
    intake = chosen_intake(intakes, payload.get(STREAM), received)
    result = run_quote(with_program(request, program), explain=explain)
    return Quoted(employers, program, intake, result)


def _refuse_program_fields(payload: dict[str, Any]) -> None:
    problems = [
        problem(
            key,
            "is decided by the program, not by the applicant",
            "est fixé par le programme, pas par le demandeur",
        )
        for key in DECIDED_BY_PROGRAM
        if key in payload
    ]
    entries = payload.get("employers")
    # Not a list (true, a number, an object): registered_employers names that problem next.
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        for key in entry if isinstance(entry, dict) else ():
            if key not in ("id", "business_number"):
                problems.append(
                    problem(
                        f"employers[{i}].{key}", "is not a known field", "n'est pas un champ connu"
                    )
                )
    if problems:
        raise bad_input(problems)


def _validate_shape(request: dict[str, Any], more: list[dict[str, str]]) -> None:
    """422 naming every field of the body the kernel's reader refuses, and the `more` problems
    found before it."""
    try:
        parse_quote_request(request)
    except InvalidRequestError as error:
        raise bad_input(
            [*more, *(problem(p.path, p.message("en"), p.message("fr")) for p in error.problems)]
        ) from None
    if more:
        raise bad_input(more)
