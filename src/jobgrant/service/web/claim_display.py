"""What the claim pages show of a claim: labels, the caps' sentences, a notice after an action.
Reads only."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from jobgrant.service.choices import CostCategory
from jobgrant.service.grants.claims.reasons import why
from jobgrant.service.grants.claims.view import shares_of
from jobgrant.service.grants.models.claims import Claim, ClaimState
from jobgrant.service.grants.models.payments import PaymentRequest, RequestState
from jobgrant.service.grants.payments.paid import claim_payments, claim_status
from jobgrant.service.ledger.models import Funder


def state_label(state: str) -> str:
    return str(ClaimState(state).label)


def claim_row(claim: Claim) -> dict[str, Any]:
    shares = shares_of(claim)
    government = [shares[f] for f in ("federal", "provincial")]
    approved = (
        sum(int(s["approved"] or 0) for s in government)
        if claim.state in (ClaimState.APPROVED, ClaimState.SUPERSEDED)
        else None
    )
    return {
        "claim": claim,
        "state_label": state_label(claim.state),
        "claimed_cents": claim.claimed_cents,
        "government_claimed_cents": sum(int(s["claimed"] or 0) for s in government),
        "government_approved_cents": approved,
    }


def payment_rows(payments: list[PaymentRequest]) -> list[dict[str, Any]]:
    """Each payment with its funder's and its state's label."""
    return [
        {
            "payment": payment,
            "funder_label": str(Funder(payment.funder).label),
            "state_label": str(RequestState(payment.state).label),
        }
        for payment in payments
    ]


def paid_context(claim: Claim) -> dict[str, Any]:
    """What the claim's page shows of its payments: the rows, and where the money stands."""
    payments = claim_payments(claim)
    return {"payments": payment_rows(payments), "paid": claim_status(claim, payments)}


def decorated(shown: dict[str, Any]) -> dict[str, Any]:
    """describe()'s answer with what a page prints: labels, and each cap's sentence."""
    for line in shown["lines"]:
        line["category_label"] = str(CostCategory(line["category"]).label)
    money = [
        {
            "key": key,
            "label": str(Funder(key).label) if key != "employer" else _("Employer"),
            **values,
        }
        for key, values in shown["shares"].items()
    ]
    caps = [{**cap, "why": why(cap)} for cap in shown["caps"]]
    delta = shown["delta"]
    return {
        **shown,
        "money": money,
        "caps": caps,
        "delta_rows": (
            [
                {"label": row["label"], "cents": delta[row["key"]]}
                for row in money
                if row["key"] in delta
            ]
            if delta is not None
            else None
        ),
        "state_label": state_label(shown["claim"].state),
    }


def notice(found: dict[str, Any] | None, claim: Claim) -> str:
    if not found or found.get("claim") != claim.pk:
        return ""
    texts = {
        "started": _(
            "Claim %(number)s is started. Check the amounts, attach the receipts, then submit it."
        ),
        "saved": ngettext(
            "The claim is saved, with %(count)s file attached.",
            "The claim is saved, with %(count)s files attached.",
            int(found.get("count") or 0),
        )
        if found.get("count")
        else _("The claim is saved."),
        "submitted": _(
            "Claim %(number)s is submitted. An officer will assess it; you will receive an "
            "email with the decision."
        ),
        "returned": _("Claim %(number)s is returned to the employer."),
        "denied": _("Claim %(number)s is denied."),
        "approved": _("Claim %(number)s is approved and certified."),
    }
    return texts.get(str(found.get("kind")), "") % {
        "number": claim.number,
        "count": found.get("count") or 0,
    }
