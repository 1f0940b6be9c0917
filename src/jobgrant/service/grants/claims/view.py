"""A claim as its pages and the API show it: lines beside the agreement, money per funder,
the caps that lowered a figure, an amendment's delta, the receipts. Reads only; cents."""

from __future__ import annotations

from typing import Any

from jobgrant.service.grants.claims.figures import FUNDERS, agreed_lines
from jobgrant.service.grants.models.claims import Claim, ClaimLine, ClaimShare, ClaimState, Receipt


def trainee_name(line: ClaimLine) -> str:
    slot = line.participant
    return f"{slot.given_name} {slot.family_name}".strip() or slot.email


def lines_of(claim: Claim) -> list[dict[str, Any]]:
    agreed = agreed_lines(claim.agreement_version)
    counted = (claim.figures or {}).get("lines", {})
    rows = []
    for line in ClaimLine.objects.filter(claim=claim).select_related("participant"):
        position = line.participant.position
        rows.append(
            {
                "line": line,
                "id": line.pk,
                "participant": line.participant_id,
                "trainee": position + 1,
                "name": trainee_name(line),
                "category": line.category,
                "agreed_cents": agreed.get((position, line.category), 0),
                "claimed_cents": line.claimed_cents,
                "counted_cents": counted.get(str(line.pk)),
                "approved_cents": line.approved_cents,
                "reason": line.reason,
            }
        )
    return rows


def shares_of(claim: Claim) -> dict[str, dict[str, int | None]]:
    found = {share.funder: share for share in ClaimShare.objects.filter(claim=claim)}
    shares: dict[str, dict[str, int | None]] = {
        funder: {
            "claimed": found[funder].claimed_cents if funder in found else 0,
            "approved": found[funder].approved_cents if funder in found else None,
        }
        for funder in FUNDERS
    }
    shares["employer"] = {
        "claimed": claim.employer_claimed_cents,
        "approved": claim.employer_approved_cents,
    }
    return shares


def delta_of(claim: Claim, shares: dict[str, dict[str, int | None]]) -> dict[str, int] | None:
    """An amendment's money less the version it amends (approved if decided, else claimed)."""
    if claim.amends is None:
        return None
    before = shares_of(claim.amends)
    side = "approved" if claim.state in (ClaimState.APPROVED, ClaimState.SUPERSEDED) else "claimed"
    return {
        key: int(shares[key][side] or 0) - int(before[key]["approved"] or 0)
        for key in (*FUNDERS, "employer")
    }


def receipts_of(claim: Claim) -> list[Receipt]:
    return list(Receipt.objects.filter(claim=claim).select_related("uploaded_by"))


def describe(claim: Claim) -> dict[str, Any]:
    shares = shares_of(claim)
    return {
        "claim": claim,
        "lines": lines_of(claim),
        "shares": shares,
        "caps": list(claim.caps or []),
        "delta": delta_of(claim, shares),
        "receipts": receipts_of(claim),
    }
