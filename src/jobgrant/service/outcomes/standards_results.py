"""The service standards' results, for the public: per fiscal quarter, jurisdiction and standard,
how many files were due, how many met the standard, the share met and the target share.

A clock counts in the fiscal quarter of its due day, once its result is known: met as soon as
the step is done in time, missed as soon as the due day has passed without it. So a quarter's
figures never change once it is over, and a file left waiting is counted as missed in the
quarter it fell due (never hidden until someone acts on it). Every file counts, whoever reads:
the figures are counts of files, never a person's data, and name no employer.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.db.models import CharField, F, Min, OuterRef, Subquery
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.utils import timezone

from jobgrant.rules.codes import JURISDICTION_CODES, fiscal_year_label, fiscal_year_start
from jobgrant.service.grants.applications.service_standards import Place, Standard
from jobgrant.service.grants.models.applications import Application, State, StateChange
from jobgrant.service.grants.models.claims import Claim, ClaimState
from jobgrant.service.grants.models.payments import PaymentRequest
from jobgrant.service.notifications.models import Message, MessageState
from jobgrant.service.outcomes.clocks import (
    DECISIONS,
    FIRST_STEPS,
    RECEIPT_MESSAGE,
    ClaimFacts,
    Clock,
    FileFacts,
    clocks_of,
    settled,
)

CANADA = "CA"  # the row of every jurisdiction together


@dataclass(frozen=True)
class Result:
    fiscal_year: str  # 2024-25
    quarter: int  # 1 (April to June) ... 4 (January to March)
    jurisdiction: str  # a province's code, or CANADA
    standard: Standard
    due: int  # files whose result is known
    met: int
    target: Fraction

    @property
    def share(self) -> Fraction:
        return Fraction(self.met, self.due)

    @property
    def target_met(self) -> bool:
        return self.share >= self.target


def fiscal_quarter(day: dt.date) -> tuple[str, int]:
    """("2024-25", 1) for a day from April to June 2024."""
    return fiscal_year_label(fiscal_year_start(day)), (day.month - 4) % 12 // 3 + 1


def results(today: dt.date | None = None) -> list[Result]:
    """Every quarter's results, per jurisdiction and for Canada, oldest quarter first."""
    today = today or timezone.localdate()
    groups: dict[tuple[str, int, str, Standard], list[Clock]] = defaultdict(list)
    for clock in all_clocks(today):
        if clock.met is None:
            continue  # still running: its result is not known yet
        year, quarter = fiscal_quarter(clock.due_on)
        for place in (clock.jurisdiction, CANADA):
            groups[(year, quarter, place, clock.standard)].append(clock)
    order = {code: i for i, code in enumerate((*JURISDICTION_CODES, CANADA))}
    keys = sorted(groups, key=lambda k: (k[0], k[1], list(Standard).index(k[3]), order[k[2]]))
    return [_result(key, groups[key]) for key in keys]


def _result(key: tuple[str, int, str, Standard], clocks: list[Clock]) -> Result:
    year, quarter, place, standard = key
    met = sum(1 for clock in clocks if clock.met)
    # The target the files were held to (the same for all of them unless a province set its
    # own): the most common one.
    target = Counter(clock.target for clock in clocks).most_common(1)[0][0]
    return Result(year, quarter, place, standard, len(clocks), met, target)


def all_clocks(today: dt.date) -> Iterator[Clock]:
    """The clocks of every file past the draft, from facts read in a few queries."""
    claims = _claims_by_file()
    for row in _files():
        facts = FileFacts(
            place=Place((row["policy"], row["program_policy"]), row["jurisdiction"], row["region"]),
            received_on=_local(row["submitted"]),
            acknowledged_on=_earliest(_local(row["receipt_sent"]), _local(row["first_step"])),
            decided_on=_local(row["decided"]),
            withdrawn=row["state"] == State.WITHDRAWN,
            claims=tuple(claims.get(row["id"], ())),
        )
        yield from clocks_of(facts, today)


def _first(to_states: Iterable[str]) -> Subquery:
    changes = StateChange.objects.filter(application=OuterRef("pk"), to_state__in=to_states)
    return Subquery(changes.order_by().values("application").annotate(at=Min("at")).values("at"))


def _files() -> Iterable[Mapping[str, Any]]:
    receipts = Message.objects.filter(
        kind=RECEIPT_MESSAGE,
        subject_type="grants.application",
        subject_id=Cast(OuterRef("pk"), CharField()),
        state=MessageState.SENT,
    )
    return (
        Application.objects.exclude(state=State.DRAFT)
        .annotate(
            program_policy=F("stream__program__policy"),
            region=KT("request__region"),
            submitted=_first([State.SUBMITTED]),
            first_step=_first(FIRST_STEPS),
            decided=_first(DECISIONS),
            receipt_sent=Subquery(receipts.order_by("sent_at").values("sent_at")[:1]),
        )
        .values(
            "id",
            "state",
            "jurisdiction",
            "policy",
            "program_policy",
            "region",
            "submitted",
            "first_step",
            "decided",
            "receipt_sent",
        )
        .order_by("id")
    )


def _claims_by_file() -> dict[int, list[ClaimFacts]]:
    requests: dict[int, list[tuple[str, dt.date | None]]] = defaultdict(list)
    for claim_id, state, paid_on in PaymentRequest.objects.values_list(
        "claim_id", "state", "paid_on"
    ):
        requests[claim_id].append((state, paid_on))
    found: dict[int, list[ClaimFacts]] = defaultdict(list)
    claims = (
        Claim.objects.filter(
            state__in=(ClaimState.APPROVED, ClaimState.SUPERSEDED), certified_at__isnull=False
        )
        .select_related("amends")
        .prefetch_related("shares", "amends__shares")
        .order_by("application_id", "number", "version")
    )
    for claim in claims:
        facts = settled(claim, requests.get(claim.pk, []))
        if facts is not None:
            found[claim.application_id].append(facts)
    return found


def _local(moment: object) -> dt.date | None:
    return timezone.localdate(moment) if isinstance(moment, dt.datetime) else None


def _earliest(*days: dt.date | None) -> dt.date | None:
    known = [day for day in days if day is not None]
    return min(known) if known else None
