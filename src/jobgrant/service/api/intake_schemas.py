"""The shapes of programs, streams and intakes at /api/v1 (ADR 0048)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from ninja import Schema
from pydantic import Field

from jobgrant.service.api.schemas import Amount, AmountIn, Jurisdiction

IntakeStateName = Literal["scheduled", "open", "closed", "ranked"]


class StreamOut(Schema):
    id: int
    code: str
    name_en: str
    name_fr: str
    selection: Literal["first_come", "ranked"]
    scoring: str = Field(description="The rules kernel's scoring criteria set; blank if none.")


class ProgramOut(Schema):
    id: int
    jurisdiction: Jurisdiction
    fiscal_year: str = Field(examples=["2026-27"])
    policy: str = Field(description="The rules kernel's policy for the program.")
    delivery: str
    streams: list[StreamOut]


class IntakeOut(Schema):
    id: int
    stream: int
    jurisdiction: Jurisdiction
    fiscal_year: str
    name_en: str
    name_fr: str
    opens_on: dt.date
    closes_on: dt.date
    state: IntakeStateName
    federal_budget: Amount = Field(description="Zero: its files take from the whole account.")
    provincial_budget: Amount
    federal_committed: Amount = Field(description="What its files committed of its budget.")
    provincial_committed: Amount
    closed_on: dt.date | None
    closing_reason: str


class IntakeBody(Schema):
    name_en: str = Field(max_length=200)
    name_fr: str = Field(max_length=200)
    opens_on: dt.date
    closes_on: dt.date
    federal_budget: AmountIn = "0.00"
    provincial_budget: AmountIn = "0.00"


class CloseIntakeBody(Schema):
    reason: str = Field(max_length=2000, description="Why it closes before its date.")


class RankIntakeBody(Schema):
    confirm: bool = Field(
        description="true: rank the intake now. A ranking, once made, is never made again."
    )
