"""The decisions taken against an intake's ranking: each with its rank, its reason and its two
signatories (the officer who asked, the program manager who signed off), for the page, the CSV
and the API alike."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from django.db.models import QuerySet

from jobgrant.service.grants.models.ranking import IntakeRank, OverrideState, RankOverride


@dataclass(frozen=True)
class OutOfRank:
    application: int
    employer: str
    rank: int
    score: int
    within_budget: bool
    decision: str
    reason: str
    requested_by: str
    requested_at: str  # ISO 8601, UTC
    signed_off_by: str
    signed_off_at: str
    decided_at: str


def decisions_out_of_rank(overrides: QuerySet[RankOverride], intake_id: int) -> list[OutOfRank]:
    """The decisions taken against the ranking of one intake, among `overrides` (the reader's
    visible ones), in rank order."""
    taken = (
        overrides.filter(application__intake_id=intake_id, state=OverrideState.APPLIED)
        .select_related("requested_by", "signed_off_by")
        .order_by("application_id")
    )
    ranks = {
        r.application_id: r
        for r in IntakeRank.objects.filter(intake_id=intake_id).only(
            "application_id", "rank", "score", "within_budget"
        )
    }
    rows = [_row(o, ranks[o.application_id]) for o in taken if o.application_id in ranks]
    return sorted(rows, key=lambda row: row.rank)


def _row(override: RankOverride, rank: IntakeRank) -> OutOfRank:
    lead = override.application.employers.order_by("position").select_related("employer").first()
    signer = override.signed_off_by
    return OutOfRank(
        application=override.application_id,
        employer=lead.employer.name if lead else "",
        rank=rank.rank,
        score=rank.score,
        within_budget=rank.within_budget,
        decision=override.decision,
        reason=override.reason,
        requested_by=override.requested_by.username,
        requested_at=override.requested_at.isoformat(),
        signed_off_by=signer.username if signer else "",
        signed_off_at=override.signed_off_at.isoformat() if override.signed_off_at else "",
        decided_at=override.applied_at.isoformat() if override.applied_at else "",
    )


CSV_COLUMNS = tuple(OutOfRank.__dataclass_fields__)


def as_csv(rows: list[OutOfRank]) -> str:
    """One line per decision; the column names are the fields' (stable, for programs)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([_cell(getattr(row, c)) for c in CSV_COLUMNS])
    return out.getvalue()


def _cell(value: object) -> str:
    text = "true" if value is True else "false" if value is False else str(value)
    # A cell a spreadsheet would run as a formula is written as text (CSV injection).
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def count_out_of_rank(overrides: QuerySet[RankOverride]) -> int:
    return overrides.filter(state=OverrideState.APPLIED).count()
