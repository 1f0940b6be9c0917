"""The shapes of the claim operations: the bodies (read by hand: grants.claim_input checks them,
naming each field in English and French) and the answer."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from ninja import Schema
from pydantic import Field

from jobgrant.service.api.clock_schemas import ClockOut
from jobgrant.service.api.schemas import MAX_DATABASE_ID, Amount, AmountIn
from jobgrant.service.choices import CostCategory
from jobgrant.service.grants.claims.input import MAX_LINES, REASON_MAX
from jobgrant.service.grants.models.claims import ClaimState
from jobgrant.service.grants.models.payments import RequestState

Id = Annotated[int, Field(ge=1, le=MAX_DATABASE_ID)]
Category = Annotated[str, Field(json_schema_extra={"enum": list(CostCategory.values)})]
Reason = Annotated[str, Field(max_length=REASON_MAX)]


class ClaimLineBody(Schema):
    participant: Id = Field(description="The trainee's participant slot (its id).")
    category: Category
    amount: AmountIn = Field(description="The actual cost paid, in dollars.")


class ClaimBody(Schema):
    """A new claim. Without `lines`, version 1 starts from the agreement's lines not yet
    approved, for each confirmed trainee; with `amends` (an approved claim's id), a new version
    of that claim, from its approved lines."""

    is_final: bool = False
    amends: Id | None = None
    lines: list[ClaimLineBody] | None = Field(None, max_length=MAX_LINES)


class ClaimPatch(Schema):
    """A draft's (or a returned claim's) lines, all of them, and whether it is final."""

    is_final: bool | None = None
    lines: list[ClaimLineBody] | None = Field(None, max_length=MAX_LINES)


class LineDecisionBody(Schema):
    id: Id = Field(description="The line's id (lines[].id in the claim).")
    amount: AmountIn = Field(description="Approved, at most what was claimed.")
    reason: Reason = Field(
        "", description="Required when lower than claimed; the employer reads it."
    )


class ApprovalBody(Schema):
    """The approved amount per line (a line left out is approved as claimed, after the caps)."""

    reason: Reason = ""
    lines: list[LineDecisionBody] = Field(default_factory=list, max_length=MAX_LINES)


class ReasonBody(Schema):
    reason: Reason = Field(description="Required: what the employer reads.")


class ClaimLineOut(Schema):
    id: int
    participant: int
    trainee: int = Field(description="The trainee's number in the agreement, from 1.")
    category: Category
    agreed: Amount = Field(description="The agreement's amount for this line.")
    claimed: Amount
    counted: Amount | None = Field(description="What counts after the caps (null in a draft).")
    approved: Amount | None
    reason: str


class ShareOut(Schema):
    claimed: Amount
    approved: Amount | None


class Shares(Schema):
    federal: ShareOut
    provincial: ShareOut
    employer: ShareOut


class CapOut(Schema):
    rule: str = Field(json_schema_extra={"enum": ["line", "trainee", "agreement", "funder"]})
    before: Amount
    after: Amount
    why_en: str
    why_fr: str


class ReceiptOut(Schema):
    id: int
    name: str
    content_type: str = Field(
        json_schema_extra={"enum": ["application/pdf", "image/png", "image/jpeg"]}
    )
    size: int
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    invoice_number: str | None = Field(
        description="The training provider's invoice or receipt number, if one was given."
    )
    uploaded_by: str
    uploaded_at: dt.datetime
    href: str = Field(description="Where to download it (GET).")


class DeltaOut(Schema):
    """An amendment: what the version it amends approved, and what this one claims or approves."""

    amends: int
    federal: Amount = Field(description="This version's federal money less the amended one's.")
    provincial: Amount
    employer: Amount


class ClaimPaymentOut(Schema):
    """A payment of the claim's number (any version): one per funder and payment run."""

    claim: int = Field(description="The claim version the payment was made for.")
    document_number: str
    funder: str = Field(json_schema_extra={"enum": ["federal", "provincial"]})
    gross: Amount = Field(description="What the claim was owed in this run.")
    set_off: Amount = Field(description="Deducted from it for an amount owed back.")
    net: Amount = Field(description="What the paying system pays the employer.")
    state: str = Field(json_schema_extra={"enum": list(RequestState.values)})
    paid_on: dt.date | None = Field(description="The day the paying system paid it.")


class ClaimOut(Schema):
    id: int
    application: int
    number: int
    version: int
    amends: int | None
    is_final: bool
    state: str = Field(json_schema_extra={"enum": list(ClaimState.values)})
    agreement_version: int
    created_by: str
    created_at: dt.datetime
    submitted_at: dt.datetime | None
    decided_by: str | None
    decided_at: dt.datetime | None
    certified_by: str | None = Field(description="The officer who certified it (s.34).")
    certified_at: dt.datetime | None
    reason: str
    claimed: Amount = Field(description="The lines' total as claimed.")
    approved: Amount | None
    lines: list[ClaimLineOut]
    shares: Shares
    caps: list[CapOut]
    delta: DeltaOut | None
    receipts: list[ReceiptOut]
    payments: list[ClaimPaymentOut] = Field(
        description="What was paid, or is being paid, for this claim's number, oldest first."
    )
    paid: Amount = Field(description="What its number was paid to date (the payments' gross).")
    clocks: list[ClockOut] = Field(
        description="The payment's service standard, once the claim is approved."
    )


class ReceiptsOut(Schema):
    claim: int
    receipts: list[ReceiptOut]


class DiscardedOut(Schema):
    id: int = Field(description="The claim discarded (it no longer exists).")
    number: int
    discarded: bool
