"""The completion report's and the follow-ups' schemas for /api/v1 (Ninja). A wage is an hourly
wage in dollars, a decimal string at this edge ("24.50") and integer cents inside; a yes-or-no is
a JSON boolean."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from ninja import Schema
from pydantic import Field

from jobgrant.service.api.schemas import Amount, AmountIn
from jobgrant.service.grants.models.applications import Counterfactual
from jobgrant.service.grants.models.completion import (
    LIKERT_ITEMS,
    EmploymentType,
    FollowUpState,
    NotCompletedReason,
    ReportState,
)

Noc = Annotated[str, Field(pattern=r"^\d{5}$", examples=["72410"])]


class TraineeOutcomeBody(Schema):
    """One confirmed trainee's outcome when the training ended."""

    participant: int = Field(description="The trainee's participant id.", examples=[17])
    completed: bool
    not_completed_reason: str | None = Field(
        None,
        json_schema_extra={"enum": list(NotCompletedReason.values)},
        description="Required when completed is false.",
    )
    employed_at_end: bool
    with_this_employer: bool | None = Field(None, description="Required when employed.")
    employment_type: str | None = Field(
        None, json_schema_extra={"enum": list(EmploymentType.values)}
    )
    noc: Noc | None = Field(None, description="NOC 2021 unit group; required when employed.")
    hourly_wage_before: AmountIn | None = None
    hourly_wage_after: AmountIn | None = None


class RatingBody(Schema):
    employer: int = Field(description="The employer's id (one of the file's employers).")
    item: str = Field(json_schema_extra={"enum": list(LIKERT_ITEMS)})
    score: int = Field(ge=1, le=5, description="1 strongly disagree … 5 strongly agree.")


class CompletionReportBody(Schema):
    """The whole draft: it replaces what was saved (trainees and ratings left out are removed).
    Starts the report when the file has none."""

    trainees: list[TraineeOutcomeBody] = Field(default_factory=list)
    ratings: list[RatingBody] = Field(default_factory=list)
    feedback: str = Field("", max_length=4000)
    counterfactual: str | None = Field(
        None,
        json_schema_extra={"enum": list(Counterfactual.values)},
        description="Would this training have happened without the grant? yes (as planned),"
        " yes-later, yes-smaller or no; optional.",
    )


class TraineeOutcomeOut(Schema):
    participant: int
    trainee: int = Field(description="The trainee's index in the application.")
    completed: bool
    not_completed_reason: str | None
    employed_at_end: bool
    with_this_employer: bool | None
    employment_type: str | None
    noc: str | None
    hourly_wage_before: Amount | None
    hourly_wage_after: Amount | None


class RatingOut(Schema):
    employer: int
    item: str
    score: int


class CompletionReportOut(Schema):
    application: int
    state: str = Field(json_schema_extra={"enum": list(ReportState.values)})
    questions_version: str = Field(examples=["2013-03-21"])
    due_on: dt.date
    training_ended_on: dt.date
    submitted_at: dt.datetime | None
    trainees: list[TraineeOutcomeOut]
    ratings: list[RatingOut]
    feedback: str
    counterfactual: str = Field("", description="The counterfactual answer; empty: none.")
    missing: list[str] = Field(description="What submitting still needs (empty when ready).")


class FollowUpOut(Schema):
    id: int
    participant: int
    trainee: int
    milestone: int = Field(json_schema_extra={"enum": [3, 12]})
    respondent: str = Field(json_schema_extra={"enum": ["trainee", "employer"]})
    state: str = Field(json_schema_extra={"enum": list(FollowUpState.values)})
    due_on: dt.date
    sent_at: dt.datetime | None
    responded_at: dt.datetime | None
    employed: bool | None = Field(description="The answer (the employer's rows only).")
    same_employer: bool | None
    weekly_hours: int | None
    hourly_wage: Amount | None


class FollowUpList(Schema):
    application: int
    items: list[FollowUpOut]


class FollowUpAnswerBody(Schema):
    participant: int
    employed: bool
    same_employer: bool | None = Field(None, description="Required when employed.")
    weekly_hours: int | None = Field(None, ge=1, le=168, description="Required when employed.")
    hourly_wage: AmountIn | None = None


class FollowUpAnswersBody(Schema):
    """The employer's answers at one milestone, one per trainee (those left out stay open)."""

    answers: list[FollowUpAnswerBody] = Field(min_length=1)
