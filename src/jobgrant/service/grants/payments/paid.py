"""What was paid for a claim or a file, as the employer's pages and the API show it: each payment
request with its document number, funder, amount, state and the day it was paid. Reads only;
cents. A claim's payments are those of its number (all its versions): an amendment's page shows
what the versions before it were paid too.
"""

from __future__ import annotations

from dataclasses import dataclass

from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.claims import Claim, ClaimShare, ClaimState
from jobgrant.service.grants.models.payments import (
    OPEN_REQUEST_STATES,
    ConfirmationLine,
    LineOutcome,
    PaymentRequest,
    RequestState,
)

GOVERNMENT = ("federal", "provincial")


@dataclass(frozen=True)
class PaymentStatus:
    """Where a claim's approved money stands: `paid_cents` of `approved_cents` paid (each
    payment's gross: a set-off is paid too, to the debt it settles), `waiting` while a payment
    request is in a run not yet confirmed, `held` while one is on hold."""

    approved_cents: int
    paid_cents: int
    waiting: bool
    held: bool

    @property
    def paid_in_full(self) -> bool:
        return self.approved_cents > 0 and self.paid_cents >= self.approved_cents


def claim_payments(claim: Claim) -> list[PaymentRequest]:
    """The payment requests of the claim's number (every version), oldest first."""
    return list(
        PaymentRequest.objects.filter(
            claim__application_id=claim.application_id, claim__number=claim.number
        )
        .select_related("claim")
        .order_by("id")
    )


def application_payments(application: Application) -> list[PaymentRequest]:
    """The payment requests of a file, oldest first."""
    return list(
        PaymentRequest.objects.filter(application_id=application.pk)
        .select_related("claim")
        .order_by("id")
    )


def claim_status(claim: Claim, payments: list[PaymentRequest]) -> PaymentStatus:
    """The claim's approved government money against what its number was paid."""
    approved = 0
    if claim.state == ClaimState.APPROVED:
        approved = sum(
            share.approved_cents or 0
            for share in ClaimShare.objects.filter(claim=claim, funder__in=GOVERNMENT)
        )
    paid = sum(p.gross_cents for p in payments if p.state == RequestState.PAID)
    return PaymentStatus(
        approved_cents=approved,
        paid_cents=paid,
        waiting=any(p.state in OPEN_REQUEST_STATES for p in payments),
        held=any(p.state == RequestState.HELD for p in payments),
    )


def paid_by_funder(application: Application) -> dict[str, int]:
    """What the file's payments paid to date, per funder (gross: a set-off is paid too)."""
    paid = dict.fromkeys(GOVERNMENT, 0)
    for funder, cents in PaymentRequest.objects.filter(
        application_id=application.pk, state=RequestState.PAID
    ).values_list("funder", "gross_cents"):
        paid[funder] = paid.get(funder, 0) + cents
    return paid


def expected_cents(line: ConfirmationLine) -> int | None:
    """What a confirmation line of the wrong amount should have paid: its payment's net."""
    if line.outcome != LineOutcome.WRONG_AMOUNT or line.request is None:
        return None
    return int(line.request.net_cents)
