"""What the claims call when an amendment takes back money already paid.

An amendment approved below what was paid on its claim (all its versions) makes the excess owed
back. The claim's approval calls, in its own transaction:

- `paid_to_date(claim, funder)`: what the paying system paid on this claim number (every
  version), net of what was already raised back on it;
- `overpaid(claim, funder, cents)` for the part of the lowered approval that was paid: it
  raises a receivable (the ledger moves the cents from disbursed to receivable, which lowers
  payable and the commitment with them), due 14 days later, and tells the employer. The part
  that was approved but not yet paid is lowered with `ledger.operations.lower_approval`, not
  here.

Payment batches count such receivables (cause "amendment") when they work out approved to date −
paid to date, so nothing is paid twice or taken back twice.
"""

from __future__ import annotations

from django.db.models import Sum
from django.utils import translation

from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.claims import Claim
from jobgrant.service.grants.models.payments import (
    PaymentRequest,
    Receivable,
    ReceivableCause,
    RequestState,
)
from jobgrant.service.grants.payments.recovery import raise_receivable
from jobgrant.service.language import in_language, language_of

AMENDMENT_REASON_EN = "Claim {number} was amended to less than was already paid on it."
AMENDMENT_REASON_FR = (
    "La demande de remboursement {number} a été modifiée sous ce qui avait déjà été versé."
)


def paid_to_date(claim: Claim, funder: str) -> int:
    """Paid on this claim number (every version) by `funder`, net of amendment receivables."""
    paid = PaymentRequest.objects.filter(
        application_id=claim.application_id,
        claim__number=claim.number,
        funder=funder,
        state=RequestState.PAID,
    ).aggregate(total=Sum("gross_cents"))["total"]
    taken_back = Receivable.objects.filter(
        application_id=claim.application_id,
        claim__number=claim.number,
        funder=funder,
        cause=ReceivableCause.AMENDMENT,
    ).aggregate(total=Sum("amount_cents"))["total"]
    return int(paid or 0) - int(taken_back or 0)


def overpaid(claim: Claim, funder: str, cents: int, *, actor: str = "") -> Receivable:
    """Raise the receivable for `cents` paid on `claim` above its amended approval (inside the
    caller's transaction)."""
    application = Application.objects.select_related("created_by", "stream").get(
        pk=claim.application_id
    )
    with translation.override(language_of(application.created_by)):
        reason = in_language(en=AMENDMENT_REASON_EN, fr=AMENDMENT_REASON_FR)
    reason = reason.format(number=claim.number)
    return raise_receivable(
        application,
        funder,
        cents,
        cause=ReceivableCause.AMENDMENT,
        reason=reason,
        actor=actor or (claim.certified_by.username if claim.certified_by else "claims"),
        claim=claim,
    )
