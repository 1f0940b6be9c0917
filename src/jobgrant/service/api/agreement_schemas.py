"""The shapes of the agreement's operations (api/routers/agreements.py)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from ninja import Schema
from pydantic import Field

from jobgrant.service.api.schemas import Amount
from jobgrant.service.grants.models.agreements import CONFIRMATIONS, AgreementState

AGREEMENT_STATES: tuple[str, ...] = tuple(AgreementState.values)
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class CostLineOut(Schema):
    trainee: int = Field(description="The trainee's number in the application, from 1.")
    employer_id: str
    category: str
    amount: Amount


class TraineeSharesOut(Schema):
    trainee: int
    employer_id: str
    status: str
    eligible_cost: Amount
    federal: Amount
    provincial: Amount
    employer: Amount


class SharesOut(Schema):
    eligible_cost: Amount
    federal: Amount
    provincial: Amount
    employer: Amount


class ScheduleOut(Schema):
    course: str
    provider: str
    setting: str
    start_date: str
    end_date: str
    hours: str


class DueDatesOut(Schema):
    accept_by: dt.datetime
    participants_by: dt.date
    first_claim_by: dt.date
    completion_report_by: dt.date


class AcceptanceOut(Schema):
    signatory: str
    title: str
    by: str
    at: dt.datetime
    sha256: Sha256


class AgreementLinks(Schema):
    pdf_en: str
    pdf_fr: str


class AgreementOut(Schema):
    application: int
    state: str = Field(json_schema_extra={"enum": list(AGREEMENT_STATES)})
    version: int
    accept_by: dt.datetime
    due: DueDatesOut
    cost_lines: list[CostLineOut]
    trainees: list[TraineeSharesOut]
    shares: SharesOut
    schedule: ScheduleOut
    policy: str
    policy_version: str
    sha256: Sha256 = Field(description="SHA-256 of the version's English and French documents.")
    accepted: AcceptanceOut | None
    links: AgreementLinks


class AcceptBody(Schema):
    signatory: str = Field(max_length=200, examples=["Ada Tremblay"])
    title: str = Field(max_length=200, examples=["Owner"])
    confirmations: list[str] = Field(
        json_schema_extra={"items": {"type": "string", "enum": list(CONFIRMATIONS)}},
        examples=[list(CONFIRMATIONS)],
        description="All three are required: agreement, cost_schedule, general_terms.",
    )
    sha256: str | None = Field(
        default=None,
        pattern="^[0-9a-f]{64}$",
        description="The agreement's sha256 as read: if the text offered is not that one any"
        " more (a new version was made), nothing is accepted (409 AGREEMENT_CHANGED).",
    )


class ReasonBody(Schema):
    reason: str = Field(max_length=2000, examples=["The course was cancelled."])


class AgreementTransitioned(Schema):
    application: int
    state: str = Field(json_schema_extra={"enum": list(AGREEMENT_STATES)})
    version: int
