"""The shapes of the payment and recovery operations (api/routers/payments.py)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from ninja import Schema
from pydantic import Field

from jobgrant.service.api.schemas import FISCAL_YEAR, Amount, AmountIn, Jurisdiction
from jobgrant.service.grants.models.payments import (
    BatchState,
    LineOutcome,
    ReceivableCause,
    ReceivableState,
    RecoveryKind,
    RequestState,
)

FiscalYear = Annotated[str, Field(pattern=FISCAL_YEAR, examples=["2026-27"])]
Funder = Literal["federal", "provincial"]
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class BatchBody(Schema):
    jurisdiction: Jurisdiction
    fiscal_year: FiscalYear


class AuthorizeBody(Schema):
    note: str = Field("", max_length=2000, description="Kept in the audit trail.")


class PaymentOut(Schema):
    id: int
    document_number: str
    application: int
    claim: int
    claim_number: int
    funder: Funder
    payee: str
    business_number: str
    gross: Amount = Field(description="Approved to date − paid to date.")
    set_off: Amount = Field(description="Receivables of the payee netted from it.")
    net: Amount = Field(description="What the paying system pays.")
    state: Literal[tuple(RequestState.values)]  # type: ignore[valid-type]
    held_reason: str
    paid_on: dt.date | None


class BatchOut(Schema):
    id: int
    jurisdiction: str
    fiscal_year: str
    state: Literal[tuple(BatchState.values)]  # type: ignore[valid-type]
    built_by: str
    built_at: dt.datetime
    authorized_by: str | None
    authorized_at: dt.datetime | None
    exported_at: dt.datetime | None
    export_sha256: str
    total: Amount
    requests_count: int
    payments: list[PaymentOut] | None = Field(
        None, description="The batch's payments (one batch read by its id)."
    )


class ConfirmationLineOut(Schema):
    line: int = Field(description="The line in the file, the header being line 1.")
    document_number: str
    amount: str
    outcome: Literal[tuple(LineOutcome.values)]  # type: ignore[valid-type]
    expected_amount: Amount | None = Field(
        description="For wrong_amount: what the payment should have paid (its net)."
    )


class ConfirmationOut(Schema):
    id: int
    batch: int | None
    sha256: Sha256
    replayed: bool = Field(description="The same file was imported before: nothing changed.")
    lines: int
    reconciled: int
    reconciled_amount: Amount
    unmatched: list[ConfirmationLineOut] = Field(
        description="Every line that did not reconcile, with the reason."
    )


class ReceivableBody(Schema):
    application: int = Field(ge=1)
    funder: Funder
    cause: Literal["not_completed", "ineligible_cost"]
    amount: AmountIn
    reason: str = Field(min_length=1, max_length=2000, description="What the employer reads.")


class RecoveryOut(Schema):
    kind: Literal[tuple(RecoveryKind.values)]  # type: ignore[valid-type]
    amount: Amount
    received_on: dt.date
    reference: str


class ReceivableOut(Schema):
    id: int
    application: int
    claim: int | None
    debtor: str
    funder: Funder
    cause: Literal[tuple(ReceivableCause.values)]  # type: ignore[valid-type]
    reason: str
    amount: Amount
    recovered: Amount
    pending_set_off: Amount
    written_off: Amount
    outstanding: Amount
    state: Literal[tuple(ReceivableState.values)]  # type: ignore[valid-type]
    raised_at: dt.datetime
    due_on: dt.date
    write_off_requested_by: str | None
    written_off_by: str | None
    recoveries: list[RecoveryOut]


class RepaymentBody(Schema):
    amount: AmountIn
    received_on: dt.date | None = None
    reference: str = Field("", max_length=64)


class WriteOffBody(Schema):
    reason: str = Field(
        "",
        max_length=2000,
        description="Why (required of the first finance officer, who asks; a second approves).",
    )
