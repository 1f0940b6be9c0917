"""What a claim's actual costs are worth: the government shares of the actuals, then the caps.

The shares come from the rules kernel (`quote`, the same `evaluate` that quoted the application),
run under the agreement's policy on the file's actual costs *to date*: the lines of every
approved claim of the application (an amendment replaces the version it amends) plus this
claim's lines. This claim's money is that cumulative figure less what the approved claims already
have, per funder, so a per-trainee maximum or a yearly employer cap is met across interim claims
exactly as it is in one.

The claim's caps apply in this order, each one that lowers a figure recorded
with the figures it compared (the claim's page and the API say why from them):

1. a line <= the agreement's line - what approved claims already have for it (`line`);
2. a trainee's government money <= the policy's per-trainee maximum less what the same person
   (same SIN blind index) is funded in other approved files of the fiscal year (`trainee`);
3. the file's government money to date <= the agreement's commitment (`agreement`);
4. each funder's money to date <= its commitment in the agreement (`funder`).

When a cap lowers a trainee's or the file's government money, both funders are lowered in
proportion (the federal share rounded down, the provincial share takes the rest); a funder's
own cap lowers that funder alone. A file-level lowering is taken from the trainees last to
first. The employer's share takes what the government no longer pays.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Sum

from jobgrant.rules.evaluate import default_library
from jobgrant.rules.money import format_amount, parse_amount
from jobgrant.rules.policies import UnknownPolicyError
from jobgrant.service.grants.core.quoting import kernel_request, policy_version, run_quote
from jobgrant.service.grants.models.agreements import AgreementVersion
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.grants.models.claims import Claim, ClaimLine, ClaimShare, ClaimState
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.participants.access import government_cents
from jobgrant.service.grants.participants.workflow import CONFIRMED_SLOTS

FUNDERS = ("federal", "provincial")
KERNEL_COSTS = ("tuition", "student_fees", "materials", "exam_fees")
IN_KIND = "wages_in_kind"

Key = tuple[int, str]  # (trainee position, cost category)


@dataclass(frozen=True)
class LineIn:
    """One claimed line: a trainee slot's position, the cost category and the cents claimed."""

    position: int
    category: str
    cents: int


@dataclass
class Figures:
    """A claim's worked-out money, in cents."""

    lines: dict[Key, int]  # what counts of each line after the line cap
    trainees: dict[
        int, dict[str, int]
    ]  # position -> {actual, federal, provincial, employer} to date
    shares: dict[str, int]  # this claim's federal and provincial money
    employer_cents: int  # this claim's employer share
    caps: list[dict[str, Any]] = field(default_factory=list)
    rules_version: str = ""

    @property
    def government_cents(self) -> int:
        return sum(self.shares.values())


def approved_before(application: Application, exclude: Claim | None) -> list[Claim]:
    """The application's approved claims (the one `exclude` amends, or is, left out)."""
    claims = Claim.objects.filter(application=application, state=ClaimState.APPROVED)
    if exclude is not None:
        claims = claims.exclude(pk=exclude.pk)
        if exclude.amends_id:
            claims = claims.exclude(pk=exclude.amends_id)
    return list(claims)


def _approved_lines(claims: Iterable[Claim]) -> dict[Key, int]:
    totals: dict[Key, int] = defaultdict(int)
    rows = ClaimLine.objects.filter(claim__in=list(claims)).select_related("participant")
    for line in rows:
        totals[(line.participant.position, line.category)] += line.approved_cents or 0
    return dict(totals)


def _approved_shares(claims: Iterable[Claim]) -> tuple[dict[str, int], int]:
    claims = list(claims)
    rows = ClaimShare.objects.filter(claim__in=claims).values("funder")
    totals = {
        row["funder"]: int(row["total"] or 0) for row in rows.annotate(total=Sum("approved_cents"))
    }
    employer = sum(claim.employer_approved_cents or 0 for claim in claims)
    return {funder: totals.get(funder, 0) for funder in FUNDERS}, employer


def agreed_lines(version: AgreementVersion) -> dict[Key, int]:
    """The agreement's cost lines by (position, category); its `trainee` counts from 1."""
    return {
        (int(line["trainee"]) - 1, str(line["category"])): int(line["cents"])
        for line in version.cost_lines
    }


def work_out(
    application: Application,
    version: AgreementVersion,
    lines: list[LineIn],
    *,
    claim: Claim | None,
    request: dict[str, Any],
) -> Figures:
    """The figures of `lines` claimed against `version` (`request`: the agreement's request in
    force, whose trainees the kernel is run on)."""
    before = approved_before(application, claim)
    approved_lines = _approved_lines(before)
    approved_shares, approved_employer = _approved_shares(before)
    caps: list[dict[str, Any]] = []
    counted = _line_caps(lines, agreed_lines(version), approved_lines, caps)
    to_date = defaultdict(int, approved_lines)
    for key, cents in counted.items():
        to_date[key] += cents
    trainees = _kernel_shares(application, version, request, to_date)
    _trainee_caps(application, version, trainees, caps)
    _file_caps(version, trainees, caps)
    shares = {f: max(sum(t[f] for t in trainees.values()) - approved_shares[f], 0) for f in FUNDERS}
    employer = max(sum(t["employer"] for t in trainees.values()) - approved_employer, 0)
    return Figures(counted, trainees, shares, employer, caps, policy_version())


def _line_caps(
    lines: list[LineIn],
    agreed: dict[Key, int],
    approved: dict[Key, int],
    caps: list[dict[str, Any]],
) -> dict[Key, int]:
    counted: dict[Key, int] = {}
    for line in lines:
        key = (line.position, line.category)
        room = max(agreed.get(key, 0) - approved.get(key, 0), 0)
        counted[key] = min(line.cents, room)
        if line.cents > room:
            caps.append(
                {
                    "rule": "line",
                    "trainee": line.position + 1,
                    "category": line.category,
                    "before_cents": line.cents,
                    "after_cents": room,
                    "agreed_cents": agreed.get(key, 0),
                    "approved_cents": approved.get(key, 0),
                }
            )
    return counted


def _kernel_shares(
    application: Application,
    version: AgreementVersion,
    request: dict[str, Any],
    to_date: dict[Key, int],
) -> dict[int, dict[str, int]]:
    """Each trainee's federal, provincial and employer shares of their actuals to date."""
    actuals = copy.deepcopy(request)
    for position, trainee in enumerate(actuals.get("trainees") or []):
        trainee["costs"] = {c: format_amount(to_date.get((position, c), 0)) for c in KERNEL_COSTS}
        in_kind = to_date.get((position, IN_KIND), 0)
        if in_kind or "wages_in_kind" in trainee:
            trainee["wages_in_kind"] = format_amount(in_kind)
    quoted = run_quote(_kernel_input(application, version, actuals), explain=False)
    figures: dict[int, dict[str, int]] = {}
    for row in quoted["trainees"]:
        position = int(row["index"])
        actual = sum(to_date.get((position, c), 0) for c in (*KERNEL_COSTS, IN_KIND))
        figures[position] = {
            "actual": actual,
            **{key: parse_amount(str(row[key])) for key in ("federal", "provincial", "employer")},
        }
    return figures


def _kernel_input(
    application: Application, version: AgreementVersion, actuals: dict[str, Any]
) -> dict[str, Any]:
    """The quote input of the actuals, as a change request re-quotes: under the agreement's
    policy, each employer's yearly approvals counted without this file's own money."""
    links = list(application.employers.select_related("employer").order_by("position"))
    program = application.stream.program
    kernel = kernel_request(
        actuals, [link.employer for link in links], program, application.received_on
    )
    kernel["policy"] = version.policy
    for entry, link in zip(kernel["employers"], links, strict=True):
        others = parse_amount(str(entry["approved_this_fiscal_year"])) - link.government_cents
        entry["approved_this_fiscal_year"] = format_amount(max(others, 0))
    return kernel


def _lower(figures: dict[str, int], to: int) -> None:
    """Lower a {federal, provincial, employer} row's government money to `to` cents, in
    proportion; the employer's share takes the difference."""
    government = figures["federal"] + figures["provincial"]
    if government <= to:
        return
    federal = figures["federal"] * to // government if government else 0
    provincial = to - federal
    figures["employer"] += government - to
    figures["federal"], figures["provincial"] = federal, provincial


def per_trainee_maximum(
    application: Application, version: AgreementVersion, status: str
) -> int | None:
    """The policy's most government money for one trainee (None: no limit)."""
    library = default_library()
    try:
        policy = library.get(version.policy)
    except UnknownPolicyError:
        return None
    region = application.request.get("region") if isinstance(application.request, dict) else None
    values = library.resolve(policy, application.jurisdiction, region, application.received_on)
    federal = values["cjg.federal.max_per_trainee"].value
    provincial = values["cjg.provincial.max_per_trainee"].value
    unemployed = values["cjg.unemployed.federal_max_per_trainee"].value
    if status == "unemployed" and values["cjg.unemployed.federal_rate"].value is not None:
        federal = unemployed
    if federal is None or provincial is None:
        return None
    return int(federal) + int(provincial)


def funded_elsewhere(participant: Participant) -> int:
    """Government money the same person (same SIN blind index) gets in other approved files of
    the fiscal year, as their agreements stand (the stored quote's trainee row)."""
    if not participant.sin_index:
        return 0
    others = (
        Participant.objects.filter(
            sin_index=participant.sin_index,
            state__in=CONFIRMED_SLOTS,
            application__state=State.APPROVED,
            application__fiscal_year=participant.application.fiscal_year,
        )
        .exclude(application_id=participant.application_id)
        .select_related("application")
    )
    return sum(government_cents(other.application, other.position) for other in others)


def _trainee_caps(
    application: Application,
    version: AgreementVersion,
    trainees: dict[int, dict[str, int]],
    caps: list[dict[str, Any]],
) -> None:
    slots = {
        slot.position: slot
        for slot in Participant.objects.filter(
            application=application, state__in=CONFIRMED_SLOTS
        ).select_related("application")
    }
    statuses = [t.get("status", "") for t in (application.request.get("trainees") or [])]
    for position, figures in trainees.items():
        slot = slots.get(position)
        status = statuses[position] if position < len(statuses) else ""
        maximum = per_trainee_maximum(application, version, str(status))
        if slot is None or maximum is None:
            continue
        elsewhere = funded_elsewhere(slot)
        room = max(maximum - elsewhere, 0)
        government = figures["federal"] + figures["provincial"]
        if government > room:
            _lower(figures, room)
            caps.append(
                {
                    "rule": "trainee",
                    "trainee": position + 1,
                    "before_cents": government,
                    "after_cents": room,
                    "maximum_cents": maximum,
                    "elsewhere_cents": elsewhere,
                }
            )


def _file_caps(
    version: AgreementVersion, trainees: dict[int, dict[str, int]], caps: list[dict[str, Any]]
) -> None:
    """The file's government money to date within the agreement's commitment (both funders
    lowered in proportion), then each funder's within its own commitment."""
    commitment = version.federal_cents + version.provincial_cents
    totals = {f: sum(t[f] for t in trainees.values()) for f in FUNDERS}
    total = sum(totals.values())
    if total > commitment:
        lowered = dict(totals, employer=0)
        _lower(lowered, commitment)
        for funder in FUNDERS:
            _take(trainees, totals[funder] - lowered[funder], funder)
        caps.append({"rule": "agreement", "before_cents": total, "after_cents": commitment})
    for funder in FUNDERS:
        limit = getattr(version, f"{funder}_cents")
        total = sum(t[funder] for t in trainees.values())
        if total > limit:
            _take(trainees, total - limit, funder)
            caps.append(
                {"rule": "funder", "funder": funder, "before_cents": total, "after_cents": limit}
            )


def _take(trainees: dict[int, dict[str, int]], cents: int, funder: str) -> None:
    """Take `cents` of `funder`'s money from the trainees, the last first (to the employer)."""
    for position in sorted(trainees, reverse=True):
        if cents <= 0:
            return
        figures = trainees[position]
        taken = min(figures[funder], cents)
        figures[funder] -= taken
        figures["employer"] += taken
        cents -= taken
