"""The shapes of the change-request operations: the body by kind, and the answer.

The body is documented as a union discriminated by `kind` (one schema per kind) and read by
hand (grants.change_kinds checks it, naming each field in English and French), as the application
body is. Trainees added or put in place of another have the application's trainee shape; indices
count the agreement's trainees from 0, as `trainees[0]` does in a problem's path.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from ninja import Schema
from pydantic import Field, RootModel

from jobgrant.rules.batch import COST_CATEGORIES
from jobgrant.service.api.schemas import NOTE_MAX, Amount, AmountIn, Provider, Trainee
from jobgrant.service.grants.changes.kinds import MAX_ENTRIES
from jobgrant.service.grants.models.changes import ChangeKind, ChangeState

TraineeIndex = Annotated[int, Field(ge=0, le=10_000, description="0 for the agreement's first.")]
Note = Annotated[
    str, Field(max_length=NOTE_MAX, description="Why the change is asked for (optional).")
]


class DatesChange(Schema):
    """New training dates, inside the agreement's fiscal year (either or both)."""

    kind: Literal["dates"]
    start_date: dt.date | None = None
    end_date: dt.date | None = None
    note: Note = ""


class ProviderChange(Schema):
    """Another training provider (or the same one, no longer a third party)."""

    kind: Literal["provider"]
    provider: Provider
    note: Note = ""


class Replacement(Schema):
    index: TraineeIndex
    trainee: Trainee


class TraineesChange(Schema):
    """Trainees added, removed (by index) or replaced (one for another); at least one."""

    kind: Literal["trainees"]
    add: list[Trainee] = Field(default_factory=list, max_length=MAX_ENTRIES)
    remove: list[TraineeIndex] = Field(default_factory=list, max_length=MAX_ENTRIES)
    replace: list[Replacement] = Field(default_factory=list, max_length=MAX_ENTRIES)
    note: Note = ""


class CostLine(Schema):
    trainee: TraineeIndex
    category: str = Field(json_schema_extra={"enum": list(COST_CATEGORIES)})


class Move(Schema):
    from_line: CostLine = Field(alias="from")
    to: CostLine
    amount: AmountIn


class CostReallocationChange(Schema):
    """Money moved from one cost line to another: the total stays the same."""

    kind: Literal["cost_reallocation"]
    moves: list[Move] = Field(min_length=1, max_length=MAX_ENTRIES)
    note: Note = ""


class ChangeRequestBody(
    RootModel[
        Annotated[
            DatesChange | ProviderChange | TraineesChange | CostReallocationChange,
            Field(discriminator="kind"),
        ]
    ]
):
    """A change to an approved application's agreement, by kind."""


class DecisionBody(Schema):
    reason: str = Field(
        "",
        max_length=NOTE_MAX,
        description="Why: required to deny; the employer reads it. Optional to approve.",
    )


class FieldChange(Schema):
    field: str = Field(description="Where, as in the application: `training.start_date`.")
    before: Any = Field(description="Null for a trainee added.")
    after: Any = Field(description="Null for a trainee removed.")
    change: Literal["add", "remove", "replace"] | None = Field(
        None, description="For trainees: added, removed or replaced (null otherwise)."
    )


class Money(Schema):
    federal: Amount
    provincial: Amount
    employer: Amount


class Figures(Schema):
    before: Money
    after: Money


class ChangeRequestOut(Schema):
    id: int
    application: int
    agreement: int
    kind: str = Field(json_schema_extra={"enum": list(ChangeKind.values)})
    state: str = Field(json_schema_extra={"enum": list(ChangeState.values)})
    diff: list[FieldChange]
    figures: Figures
    note: str
    requested_by: str
    requested_at: dt.datetime
    decided_by: str | None = Field(description="Null until decided, and for a self-service one.")
    decided_at: dt.datetime | None
    reason: str
    self_service: bool = Field(description="Approved by the service: a date change alone.")
    needs_acceptance: bool = Field(description="The agreement must be accepted again.")
    agreement_version: int | None = Field(description="The version the approval made.")
