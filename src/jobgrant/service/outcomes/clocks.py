"""Each file's clocks: for every service standard that applies to it, what is due by when, how
many business days are left, and whether it was met or missed.

A clock starts on a recorded day and stops on another:
- acknowledge: from the day the application was received (its submission) to the day the
  receipt message was sent to the employer, or the first decision-path step when no message
  could be sent (no address on file);
- decide: from the day it was received to the day it was approved or denied;
- pay: from the day a claim was approved (certified) to the day its last payment was confirmed
  paid, for each approved claim with government money to pay.
A file withdrawn before a clock stopped leaves that standard: its clock is not shown nor counted.

`file_clocks` reads one file's facts (a few queries); `clocks_of` works from facts read in bulk
by the public results (outcomes.standards_results): both use the same `_clock`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from django.db.models import Min, Q
from django.utils import timezone

from jobgrant.rules.business_days import calendar
from jobgrant.service.grants.applications.service_standards import (
    STANDARD_LABELS,
    Place,
    Standard,
    Terms,
    due_on,
    place_of,
    terms_of,
)
from jobgrant.service.grants.models.applications import Application, State, StateChange
from jobgrant.service.grants.models.claims import Claim, ClaimState
from jobgrant.service.grants.models.payments import PaymentRequest, RequestState
from jobgrant.service.notifications.models import Message, MessageState

RECEIPT_MESSAGE = "application_received"
DECISIONS = (State.APPROVED, State.DENIED)
FIRST_STEPS = (State.RECOMMENDED, *DECISIONS)
#: Payment requests that still hold a claim's money, or hold it back.
UNSETTLED = (
    RequestState.BATCHED,
    RequestState.AUTHORIZED,
    RequestState.EXPORTED,
    RequestState.HELD,
)


@dataclass(frozen=True)
class Clock:
    """One standard's clock on one file (`claim`: the claim's number, for a payment)."""

    standard: Standard
    terms: Terms
    started_on: dt.date
    due_on: dt.date
    done_on: dt.date | None
    today: dt.date
    jurisdiction: str
    claim: int | None = None
    version: int = 1  # the claim's version: an approved amendment pays what it adds

    @property
    def label(self) -> str:
        return str(STANDARD_LABELS[self.standard])

    @property
    def status(self) -> str:
        """met, missed (done late), overdue (not done, past due) or running."""
        if self.done_on is not None:
            return "met" if self.done_on <= self.due_on else "missed"
        return "overdue" if self.today > self.due_on else "running"

    @property
    def met(self) -> bool | None:
        """True or False once it is known, None while it can still be met."""
        return {"met": True, "missed": False, "overdue": False}.get(self.status)

    @property
    def days_left(self) -> int | None:
        """Business days from today to the due day while running (0: due today); negative,
        the business days it is late, once overdue; None once done."""
        if self.done_on is not None:
            return None
        return calendar(self.jurisdiction).between(self.today, self.due_on)

    @property
    def days_late(self) -> int:
        """Business days past the due day (0 when met or still running)."""
        end = self.done_on or self.today
        return max(0, calendar(self.jurisdiction).between(self.due_on, end))

    @property
    def target(self) -> Fraction:
        return self.terms.target

    def as_json(self) -> dict[str, object]:
        return {
            "standard": self.standard.value,
            "business_days": self.terms.business_days,
            "target": f"{self.terms.target.numerator}/{self.terms.target.denominator}",
            "started_on": self.started_on.isoformat(),
            "due_on": self.due_on.isoformat(),
            "done_on": self.done_on.isoformat() if self.done_on else None,
            "status": self.status,
            "days_left": self.days_left,
            "days_late": self.days_late,
            "claim": self.claim,
            "claim_version": self.version if self.claim else None,
            "reference": [r.as_dict() for r in self.terms.reference],
        }


@dataclass(frozen=True)
class ClaimFacts:
    number: int
    approved_on: dt.date
    paid_on: dt.date | None  # None while a payment is still to come
    version: int = 1


@dataclass(frozen=True)
class FileFacts:
    """The days a file's clocks start and stop on, as recorded."""

    place: Place
    received_on: dt.date | None
    acknowledged_on: dt.date | None
    decided_on: dt.date | None
    withdrawn: bool
    claims: tuple[ClaimFacts, ...] = field(default_factory=tuple)


def _clock(
    standard: Standard,
    facts: FileFacts,
    started_on: dt.date,
    done_on: dt.date | None,
    today: dt.date,
    claim: ClaimFacts | None = None,
) -> Clock | None:
    if done_on is None and facts.withdrawn:
        return None  # withdrawn first: the standard no longer applies
    terms = terms_of(standard, facts.place, started_on)
    due = due_on(terms, facts.place.jurisdiction, started_on)
    number, version = (claim.number, claim.version) if claim else (None, 1)
    where = facts.place.jurisdiction
    return Clock(standard, terms, started_on, due, done_on, today, where, number, version)


def clocks_of(facts: FileFacts, today: dt.date) -> list[Clock]:
    """Every clock of one file, in the order of the standards."""
    if facts.received_on is None:
        return []  # a draft: nothing was received yet
    found = [
        _clock(Standard.ACKNOWLEDGE, facts, facts.received_on, facts.acknowledged_on, today),
        _clock(Standard.DECIDE, facts, facts.received_on, facts.decided_on, today),
    ]
    for claim in facts.claims:
        found.append(_clock(Standard.PAY, facts, claim.approved_on, claim.paid_on, today, claim))
    return [clock for clock in found if clock is not None]


def file_clocks(application: Application, today: dt.date | None = None) -> list[Clock]:
    """The clocks of one file, read from its history, its messages, claims and payments."""
    return clocks_of(file_facts(application), today or timezone.localdate())


def pay_clocks(claim: Claim, today: dt.date | None = None) -> list[Clock]:
    """The payment clock of one claim (none before it is approved, or when it pays nothing)."""
    application = claim.application
    return [
        clock
        for clock in file_clocks(application, today)
        if clock.standard is Standard.PAY
        and (clock.claim, clock.version) == (claim.number, claim.version)
    ]


def file_facts(application: Application) -> FileFacts:
    days = _history_days(application.pk)
    return FileFacts(
        place=place_of(application),
        received_on=days.get(State.SUBMITTED),
        acknowledged_on=_earliest(_receipt_sent_on(application.pk), days.get("first_step")),
        decided_on=days.get("decided"),
        withdrawn=application.state == State.WITHDRAWN,
        claims=tuple(claim_facts(application.pk)),
    )


def _local(moment: dt.datetime | None) -> dt.date | None:
    return timezone.localdate(moment) if moment is not None else None


def _earliest(*days: dt.date | None) -> dt.date | None:
    known = [day for day in days if day is not None]
    return min(known) if known else None


def _history_days(application_id: int) -> dict[str, dt.date | None]:
    history = StateChange.objects.filter(application_id=application_id)
    found = history.aggregate(
        submitted=Min("at", filter=Q(to_state=State.SUBMITTED)),
        first_step=Min("at", filter=Q(to_state__in=FIRST_STEPS)),
        decided=Min("at", filter=Q(to_state__in=DECISIONS)),
    )
    return {
        State.SUBMITTED: _local(found["submitted"]),
        "first_step": _local(found["first_step"]),
        "decided": _local(found["decided"]),
    }


def _receipt_sent_on(application_id: int) -> dt.date | None:
    sent = Message.objects.filter(
        kind=RECEIPT_MESSAGE,
        subject_type="grants.application",
        subject_id=str(application_id),
        state=MessageState.SENT,
    ).aggregate(first=Min("sent_at"))["first"]
    return _local(sent)


def claim_facts(application_id: int) -> Iterable[ClaimFacts]:
    """The approved claims of a file that pay government money, each with the day its
    payment was settled (None while one of its payments is still to come)."""
    claims = list(
        Claim.objects.filter(
            application_id=application_id,
            state__in=(ClaimState.APPROVED, ClaimState.SUPERSEDED),
            certified_at__isnull=False,
        ).order_by("number", "version")
    )
    if not claims:  # most files: no payment request to read either
        return
    requests: dict[int, list[tuple[str, dt.date | None]]] = {}
    for claim_id, state, paid_on in PaymentRequest.objects.filter(
        application_id=application_id
    ).values_list("claim_id", "state", "paid_on"):
        requests.setdefault(claim_id, []).append((state, paid_on))
    for claim in claims:
        facts = settled(claim, requests.get(claim.pk, []))
        if facts is not None:
            yield facts


def settled(claim: Claim, requests: list[tuple[str, dt.date | None]]) -> ClaimFacts | None:
    """A claim's payment facts; None for a claim with nothing to pay (a superseded version
    never sent for payment, or an approval that pays nothing more)."""
    approved_on = _local(claim.certified_at)
    assert approved_on is not None
    if not requests:
        if claim.state == ClaimState.SUPERSEDED or not _pays_more(claim):
            return None
        return ClaimFacts(claim.number, approved_on, None, claim.version)
    if any(state in UNSETTLED for state, _ in requests):
        return ClaimFacts(claim.number, approved_on, None, claim.version)
    paid = [day for state, day in requests if state == RequestState.PAID and day is not None]
    return ClaimFacts(claim.number, approved_on, max(paid) if paid else None, claim.version)


def _pays_more(claim: Claim) -> bool:
    """Whether the approval owes government money not already paid for the claim it amends."""
    amended = claim.amends
    before = _approved_cents(amended) if amended is not None else 0
    return _approved_cents(claim) > before


def _approved_cents(claim: Claim) -> int:
    return sum(int(share.approved_cents or 0) for share in claim.shares.all())
