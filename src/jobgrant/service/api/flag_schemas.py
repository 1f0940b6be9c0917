"""The shapes of the risk flags' answers and the clearing's body (api/routers/risk_flags.py)."""

from __future__ import annotations

from typing import Any, Literal

from ninja import Field, Schema

FlagKindName = Literal[
    "related_provider",
    "price_above_usual",
    "prepared_by_provider",
    "receipt_reused",
    "shared_bank_account",
    "trainee_across_years",
    "provider_receivables",
]
FlagStateName = Literal["open", "cleared", "lapsed"]


class RiskFlagOut(Schema):
    id: int
    application: int
    claim: int | None = Field(description="The claim whose receipt raised it (receipts only).")
    kind: FlagKindName
    subject: str = Field(description="What the flag is about within its kind.")
    state: FlagStateName
    why_en: str = Field(description="Why it was raised, with the figures compared, in English.")
    why_fr: str = Field(description="The same sentence in French.")
    figures: dict[str, Any] = Field(
        description="The figures compared (money in cents), with the threshold's parameter and "
        "its sources where one applies."
    )
    raised_at: str
    cleared_by: str | None
    cleared_at: str | None
    clear_reason: str


class FlagCountOut(Schema):
    kind: FlagKindName
    total: int
    open: int


class ProviderCountOut(Schema):
    name: str
    total: int
    open: int


class RiskFlagListOut(Schema):
    counts: list[FlagCountOut] = Field(description="Per kind, every flag that matches.")
    providers: list[ProviderCountOut] = Field(description="The providers with the most flags.")
    total: int = Field(description="Flags the caller may read (0 for an analyst: counts only).")
    flags: list[RiskFlagOut] = Field(description="The newest first, at most 200.")


class ClearFlagBody(Schema):
    reason: str = Field(
        max_length=2000, description="What the officer checked and found; kept in the audit trail."
    )
