"""The service standards' clock on a file, as the API answers it (outcomes.clocks.Clock)."""

from __future__ import annotations

import datetime as dt

from ninja import Schema
from pydantic import Field

from jobgrant.service.grants.applications.service_standards import Standard

STATUSES = ("running", "met", "missed", "overdue")


class ReferenceOut(Schema):
    title: str
    href: str


class ClockOut(Schema):
    """One service standard on one file: what is due by when, and whether it was met."""

    standard: str = Field(json_schema_extra={"enum": [s.value for s in Standard]})
    business_days: int = Field(description="The standard: within this many business days.")
    target: str = Field(
        pattern=r"^\d+/\d+$", description="The share of files it must be met for (4/5)."
    )
    started_on: dt.date = Field(description="The day the clock started (received, approved).")
    due_on: dt.date = Field(description="The last day the standard is met.")
    done_on: dt.date | None = Field(description="The day the step was done, if it was.")
    status: str = Field(
        json_schema_extra={"enum": list(STATUSES)},
        description="running (not done, not due yet), met, missed (done late) or overdue"
        " (not done, past due).",
    )
    days_left: int | None = Field(
        description="Business days to the due day while not done (0: due today; negative:"
        " business days overdue); null once done."
    )
    days_late: int = Field(ge=0, description="Business days past the due day (0 if none).")
    claim: int | None = Field(description="The claim's number, for a payment's clock.")
    claim_version: int | None = Field(description="The claim's version, for a payment's clock.")
    reference: list[ReferenceOut] = Field(description="The sources of the standard.")
