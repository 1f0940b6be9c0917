"""A closed intake replayed under another policy: who would have been funded, and with what.

The stored applications of the intake are quoted again by the rules kernel, all in one batch,
under the other policy (a named policy or an analyst's scenario file), from what each file held
when it was made: its body, the date it was received, its employers' size as they applied. The
intake's budget is then spent in the intake's order, so that each file is funded while both
funders' budgets still hold its shares, as the approvals' commitments would have spent them:
first come, by the date received; a ranked intake by rank, down to its cut-off (the first file
that no longer fits: the files below it are not funded, as the ranking decides). The same walk
over the quotes stored at the time and the stored ranks gives "then", so that the two differ
only by the policy. A ranked intake is ranked again under the other policy (`replay_ranking`):
its score reads the kernel's figures, such as the government cost per trainee.

An employer's "approved this fiscal year" (the per-employer cap) is what its files outside the
intake had approved; within the intake, a file's employers are charged with the files the
replay funded before it, and such a file is quoted again alone with that figure.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db.models import Q, Sum

from jobgrant.rules.evaluate import default_library, evaluate
from jobgrant.rules.money import format_amount, parse_amount
from jobgrant.rules.parameters import ParameterError
from jobgrant.rules.policies import Policy, UnknownPolicyError
from jobgrant.rules.quote import cycle_collection_paused, quote
from jobgrant.rules.requests import (
    InvalidRequestError,
    QuoteRequest,
    build_batch,
    parse_quote_request,
)
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.applications import (
    Application,
    ApplicationEmployer,
    Delivery,
    Intake,
    IntakeState,
    State,
)
from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.outcomes.kpi_sql import FIRM_SIZE_BANDS
from jobgrant.service.outcomes.replay_ranking import rerank

#: The files an intake decided, or still has to: a draft or a withdrawn file asked for nothing.
REPLAYED_STATES = (State.SUBMITTED, State.RECOMMENDED, State.APPROVED, State.DENIED)
FUNDERS = (Funder.FEDERAL, Funder.PROVINCIAL)


@dataclass(frozen=True)
class Quote:
    """A file's figures under one policy, in cents; `problem` when the kernel refused it."""

    eligible: bool
    federal: int
    provincial: int
    problem: str = ""
    #: Each employer's government money (federal and provincial), in the request's order.
    by_employer: tuple[int, ...] = ()


@dataclass
class FileReplay:
    application: int
    received_on: dt.date
    state: str
    region: str
    firm_size: str
    stream: str
    then: Quote
    now: Quote
    funded_then: bool = False  # within the budget, walking the intake with the stored quotes
    funded_now: bool = False  # within the budget, walking it with the other policy's quotes
    # A ranked intake's: the file's place and score as decided, and under the other policy
    # (None: not ranked, for instance not eligible).
    rank_then: int | None = None
    score_then: int | None = None
    rank_now: int | None = None
    score_now: int | None = None

    @property
    def change(self) -> str:
        if self.funded_now == self.funded_then:
            return "same"
        return "gains" if self.funded_now else "loses"


@dataclass
class Replay:
    intake: Intake
    policy: str
    budget: dict[str, int]
    files: list[FileReplay] = field(default_factory=list)
    #: Each file's input to the kernel under the other policy (as its last quote read it).
    requests: list[dict[str, Any]] = field(default_factory=list)
    exhausted_then: dt.date | None = None
    exhausted_now: dt.date | None = None
    #: The intake is ranked: its budget is spent by rank down to the cut-off, each time.
    ranked: bool = False
    #: The file indexes in the order each walk spends the budget (a ranked intake's "now" is
    #: its order under the other policy).
    order_then: list[int] = field(default_factory=list)
    order_now: list[int] = field(default_factory=list)

    def in_order(self, when: str) -> list[FileReplay]:
        return [self.files[i] for i in getattr(self, f"order_{when}")]

    def moved(self) -> list[FileReplay]:
        """A ranked intake's files whose rank the other policy changes."""
        return [f for f in self.files if self.ranked and f.rank_now != f.rank_then]

    def funded(self, when: str) -> list[FileReplay]:
        return [f for f in self.files if getattr(f, f"funded_{when}")]

    def money(self, when: str) -> dict[str, int]:
        """The government money the funded files get, per funder, in cents."""
        files = self.funded(when)
        return {funder: sum(getattr(getattr(f, when), funder) for f in files) for funder in FUNDERS}

    def mix(self, attribute: str) -> dict[str, dict[str, int]]:
        """Files funded then and now, and their government money, by firm size, stream or region."""
        table: dict[str, dict[str, int]] = defaultdict(
            lambda: {"files_then": 0, "files_now": 0, "cents_then": 0, "cents_now": 0}
        )
        for file in self.files:
            row = table[getattr(file, attribute)]
            for when in ("then", "now"):
                if getattr(file, f"funded_{when}"):
                    figures = getattr(file, when)
                    row[f"files_{when}"] += 1
                    row[f"cents_{when}"] += figures.federal + figures.provincial
        return dict(sorted(table.items()))


def replay(intake_id: int, policy_name: str) -> Replay:
    """The intake replayed under `policy_name` (raises ServiceError 404 or 422, in EN and FR)."""
    intake = _closed_intake(intake_id)
    policy = _policy(policy_name)
    applications = _applications(intake)
    result = Replay(intake, policy.name, intake_budget(intake))
    outside = _approved_outside(intake, applications)
    with cycle_collection_paused():
        requests = [_request(a, outside) for a in applications]
        now = _batch_quotes(requests, policy)
    result.requests = requests
    for application, quoted in zip(applications, now, strict=True):
        result.files.append(_file(application, quoted))
    result.order_then = result.order_now = list(range(len(result.files)))
    if intake.state == IntakeState.RANKED:
        _rank_again(result, applications)
    result.exhausted_then = _spend(result, "then")
    payers = [[e.employer_id for e in a.employers.all()] for a in applications]
    result.exhausted_now = _spend(result, "now", Requote(requests, payers, policy_name))
    return result


def _rank_again(result: Replay, applications: list[Application]) -> None:
    """A ranked intake: the stored ranks, and the files ranked again under the other policy."""
    result.ranked = True
    government = [
        file.now.federal + file.now.provincial if file.now.eligible else None
        for file in result.files
    ]
    again = rerank(result.intake, applications, government)
    for application, file in zip(applications, result.files, strict=True):
        stored = getattr(application, "intake_rank", None)
        if stored is not None:
            file.rank_then, file.score_then = stored.rank, stored.score
    if again is None:  # no criteria set to score with: the stored order, as decided
        for file in result.files:
            file.rank_now, file.score_now = file.rank_then, file.score_then
        return
    for position, file in enumerate(result.files):
        file.rank_now, file.score_now = again.ranks[position], again.scores[position]
    result.order_now = again.order


@dataclass(frozen=True)
class Requote:
    """What the walk needs to quote a file again when its employers were funded earlier in
    the intake: the requests, each one's employers (their ids), the policy as named."""

    requests: list[dict[str, Any]]
    employers: list[list[int]]
    policy: str


def _closed_intake(intake_id: int) -> Intake:
    intake = Intake.objects.select_related("stream__program").filter(pk=intake_id).first()
    if intake is None:
        raise ServiceError(
            404,
            "NO_SUCH_INTAKE",
            f"There is no intake {intake_id}.",
            f"Il n'y a pas d'appel de demandes {intake_id}.",
        )
    if intake.state not in (IntakeState.CLOSED, IntakeState.RANKED):
        raise ServiceError(
            422,
            "INTAKE_NOT_CLOSED",
            "Only a closed intake can be replayed: this one still receives applications.",
            "Seul un appel de demandes clos peut être rejoué\u00a0: celui-ci reçoit encore "
            "des demandes.",
        )
    return intake


def _policy(name: str) -> Policy:
    try:
        return default_library().get(name)
    except (UnknownPolicyError, ParameterError, OSError) as error:
        known = ", ".join(default_library().policies)
        raise ServiceError(
            422,
            "UNKNOWN_POLICY",
            f"{name!r} is neither a policy ({known}) nor a readable scenario file ({error}).",
            f"{name!r} n'est ni une politique ({known}) ni un fichier de scénario lisible "
            f"({error}).",
        ) from None


def _applications(intake: Intake) -> list[Application]:
    """The intake's files in its order: by rank once ranked, else first come."""
    files = (
        Application.objects.filter(intake=intake, state__in=REPLAYED_STATES)
        .select_related("stream", "intake_rank")
        .prefetch_related("employers")
        .order_by("received_on", "id")
    )
    return sorted(files, key=spending_order)


def spending_order(application: Application) -> tuple[int, dt.date, int]:
    """The order an intake's budget is spent in: a ranked file by its rank (before the files
    the ranking left out), then first come: the date received and the file's number."""
    ranked = getattr(application, "intake_rank", None)
    place = ranked.rank if ranked is not None else 1 << 62
    return (place, application.received_on, application.pk)


def intake_budget(intake: Intake) -> dict[str, int]:
    """The intake's budget per funder; where it has none of its own (zero), its budget
    accounts' allocation: a first-come intake spends the whole account."""
    own = {
        Funder.FEDERAL: intake.federal_budget_cents,
        Funder.PROVINCIAL: intake.provincial_budget_cents,
    }
    program = intake.stream.program
    accounts = dict(
        BudgetAccount.objects.filter(
            jurisdiction=program.jurisdiction,
            fiscal_year=program.fiscal_year,
            stream=intake.stream.code,
        ).values_list("funder", "allocated_cents")
    )
    return {funder: own[funder] or int(accounts.get(funder, 0)) for funder in FUNDERS}


def _approved_outside(intake: Intake, applications: list[Application]) -> dict[str, int]:
    """Per employer (and region): the government money its files outside the intake had
    approved in the same fiscal year, in cents."""
    employers = {e.employer_id for a in applications for e in a.employers.all()}
    rows = (
        ApplicationEmployer.objects.filter(
            employer_id__in=employers,
            application__state=State.APPROVED,
            application__fiscal_year=intake.stream.program.fiscal_year,
        )
        .filter(~Q(application__intake=intake) | Q(application__intake__isnull=True))
        .values("employer_id", "application__request__region")
        .annotate(total=Sum("government_cents"))
    )
    return {
        employer_key(row["employer_id"], row["application__request__region"]): int(row["total"])
        for row in rows
    }


def employer_key(employer_id: int, region: object) -> str:
    """An employer's cap is per fiscal year, and per region where the request names one."""
    return f"{employer_id}:{region if isinstance(region, str) else ''}"


def _request(application: Application, approved: dict[str, int]) -> dict[str, Any]:
    """The kernel's input as the application made it, with `approved` as each employer's
    figure approved this fiscal year."""
    payload = application.request
    region = payload.get("region")
    request = {k: v for k, v in payload.items() if k != "employers"}
    request["application_date"] = application.received_on.isoformat()
    if application.delivery != Delivery.SEPARATE_AGREEMENT:
        request["delivery"] = application.delivery
    request["employers"] = [
        {
            "id": stored.reference,
            "employees": stored.employees,
            "approved_this_fiscal_year": format_amount(
                approved.get(employer_key(stored.employer_id, region), 0)
            ),
        }
        for stored in application.employers.all()
    ]
    return request


def _batch_quotes(requests: list[dict[str, Any]], policy: Policy) -> list[Quote]:
    """Every request quoted under `policy` in one evaluation; a request the kernel refuses
    (a date before the policy starts, a field it does not know) gets its problem instead."""
    quotes: list[Quote | None] = [None] * len(requests)
    parsed: list[QuoteRequest] = []
    positions: list[int] = []
    start = default_library().start_date(policy)
    for position, raw in enumerate(requests):
        try:
            request = parse_quote_request(raw)
        except InvalidRequestError as error:
            quotes[position] = _refused("; ".join(p.line() for p in error.problems))
            continue
        if min(request.application_date, request.start_date) < start:
            quotes[position] = _refused(f"before the policy starts ({start.isoformat()})")
            continue
        parsed.append(request)
        positions.append(position)
    if parsed:
        batch, _ = build_batch(parsed)
        evaluation = evaluate(batch, policy)
        federal = evaluation.applications.federal.tolist()
        provincial = evaluation.applications.provincial.tolist()
        eligible = evaluation.eligible.tolist()
        government = (evaluation.employers.federal + evaluation.employers.provincial).tolist()
        first = 0  # build_batch lays out each request's employers in order, one after another
        for row, position in enumerate(positions):
            last = first + len(parsed[row].employers)
            by_employer = tuple(government[first:last])
            quotes[position] = Quote(
                bool(eligible[row]), federal[row], provincial[row], "", by_employer
            )
            first = last
    return [q if q is not None else _refused("not quoted") for q in quotes]


def _refused(problem: str) -> Quote:
    return Quote(False, 0, 0, problem)


def quote_alone(request: dict[str, Any], policy: str) -> Quote:
    """One request quoted by itself, as `jobgrant quote --policy` would: what the batch must
    equal, file by file."""
    try:
        result = quote(request, policy=policy)
    except InvalidRequestError as error:
        return _refused("; ".join(p.line() for p in error.problems))
    totals = result["totals"]
    by_employer = tuple(
        parse_amount(e["federal"]) + parse_amount(e["provincial"]) for e in result["employers"]
    )
    return Quote(
        result["eligible"],
        parse_amount(totals["federal"]),
        parse_amount(totals["provincial"]),
        "",
        by_employer,
    )


def _file(application: Application, now: Quote) -> FileReplay:
    employers = list(application.employers.all())
    size = employers[0].employees if employers else None
    return FileReplay(
        application=application.pk,
        received_on=application.received_on,
        state=application.state,
        region=str(application.request.get("region") or ""),
        firm_size=firm_size_band(size),
        stream=application.stream.code,
        then=Quote(application.eligible, application.federal_cents, application.provincial_cents),
        now=now,
    )


def firm_size_band(employees: int | None) -> str:
    """The KPIs' firm-size band of an employer of `employees` (the lead employer's, for a
    consortium), "unknown" where the size was not recorded."""
    if employees is None:
        return "unknown"
    for band, low, high in FIRM_SIZE_BANDS:
        if employees >= low and (high is None or employees <= high):
            return band
    return "unknown"


def _spend(result: Replay, when: str, requote: Requote | None = None) -> dt.date | None:
    """Walk the files in the walk's order, funding each eligible one while both funders'
    budgets hold its shares (a ranked intake: down to the first that does not fit, its cut-off);
    return the date the budget ran out (the date received of the first eligible file that no
    longer fit), or None. With `requote`, a file whose employers were funded earlier in the
    walk is quoted again with those approvals added (the per-employer cap)."""
    left = dict(result.budget)
    charged: dict[str, int] = defaultdict(int)
    exhausted: dt.date | None = None
    for position in getattr(result, f"order_{when}"):
        file = result.files[position]
        if requote is not None:
            file.now = _requoted(file, requote, position, charged)
        figures: Quote = getattr(file, when)
        shares = {Funder.FEDERAL: figures.federal, Funder.PROVINCIAL: figures.provincial}
        if not figures.eligible:
            continue
        below_cut_off = result.ranked and exhausted is not None
        if not below_cut_off and all(shares[f] <= left[f] for f in FUNDERS):
            for funder in FUNDERS:
                left[funder] -= shares[funder]
            setattr(file, f"funded_{when}", True)
            if requote is not None:
                _charge(requote, position, figures, charged)
        elif exhausted is None:
            exhausted = file.received_on
    return exhausted


def _keys(requote: Requote, position: int) -> list[str]:
    region = requote.requests[position].get("region")
    return [employer_key(pk, region) for pk in requote.employers[position]]


def _requoted(file: FileReplay, requote: Requote, position: int, charged: dict[str, int]) -> Quote:
    extra = [charged.get(key, 0) for key in _keys(requote, position)]
    if not any(extra):
        return file.now
    request = requote.requests[position]
    for employer, cents in zip(request["employers"], extra, strict=True):
        before = parse_amount(employer["approved_this_fiscal_year"])
        employer["approved_this_fiscal_year"] = format_amount(before + cents)
    return quote_alone(request, requote.policy)


def _charge(requote: Requote, position: int, figures: Quote, charged: dict[str, int]) -> None:
    """Each employer of a funded file is charged the government money the file gives it."""
    for key, cents in zip(_keys(requote, position), figures.by_employer, strict=True):
        charged[key] += cents


@dataclass(frozen=True)
class PolicyChoice:
    """A policy an analyst may replay an intake under, on the page: a shipped policy or a rules
    scenario of scenarios/ (the page never reads a path it is sent)."""

    key: str  # the policy's name, or the scenario file's name without .yaml
    argument: str  # what `replay` is given: the name, or the scenario file's path
    title_en: str
    title_fr: str


def policy_choices(scenarios: Path) -> list[PolicyChoice]:
    """The shipped policies, then the rules scenarios (files naming a base policy) in
    `scenarios`, each with its title; files that are not rules scenarios are left out."""
    library = default_library()
    found = [
        PolicyChoice(name, name, policy.layer.title_en, policy.layer.title_fr)
        for name, policy in library.policies.items()
    ]
    for path in sorted(scenarios.glob("*.yaml")):
        try:
            policy = library.get(str(path))
        except (UnknownPolicyError, ParameterError, OSError, ValueError):
            continue  # a funding or simulation scenario: not a rules overlay
        found.append(
            PolicyChoice(path.stem, str(path), policy.layer.title_en, policy.layer.title_fr)
        )
    return found


def replayable_intakes() -> list[Intake]:
    """The intakes that can be replayed (closed or ranked), the latest first."""
    return list(
        Intake.objects.filter(state__in=[IntakeState.CLOSED, IntakeState.RANKED])
        .select_related("stream__program")
        .order_by("-closes_on", "-id")
    )
