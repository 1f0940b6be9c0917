"""Model rows in consistent states for the KPI tests: files, participants, outcomes, follow-ups,
claims paid, receivables and ledger legs, written directly (the outcome actions are another
branch's), in a fiscal year the demonstration data never uses."""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.grants.models.agreements import Agreement, AgreementVersion
from jobgrant.service.grants.models.applications import (
    Application,
    ApplicationEmployer,
    Program,
    Stream,
)
from jobgrant.service.grants.models.claims import Claim
from jobgrant.service.grants.models.completion import CompletionReport, FollowUp, TraineeOutcome
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.models.payments import PaymentBatch, PaymentRequest, Receivable
from jobgrant.service.ledger.models import BudgetAccount, LedgerTransaction, Posting
from jobgrant.service.registry.models import Employer

FISCAL_YEAR = "2030-31"
_numbers = itertools.count(1)


def at(day: str) -> dt.datetime:
    return dt.datetime.fromisoformat(day + "T10:00:00").replace(tzinfo=dt.UTC)


def user() -> User:
    found, _ = User.objects.get_or_create(
        username="kpi-fixture", defaults={"role": Role.OFFICER, "jurisdiction": "ON"}
    )
    return found


def stream(jurisdiction: str, delivery: str, fiscal_year: str = FISCAL_YEAR) -> Stream:
    program, _ = Program.objects.get_or_create(
        jurisdiction=jurisdiction,
        fiscal_year=fiscal_year,
        defaults={"policy": "test", "delivery": delivery},
    )
    found = program.streams.first()
    return found or Stream.objects.create(program=program, name_en="CJG", name_fr="SCE")


def account(jurisdiction: str, funder: str, fiscal_year: str = FISCAL_YEAR) -> BudgetAccount:
    found, _ = BudgetAccount.objects.get_or_create(
        funder=funder, jurisdiction=jurisdiction, fiscal_year=fiscal_year
    )
    return found


@dataclass
class File:
    application: Application
    employers: dict[str, Employer] = field(default_factory=dict)
    participants: list[Participant] = field(default_factory=list)
    version: AgreementVersion | None = None


def file(
    jurisdiction: str,
    *,
    employers: dict[str, int | None],
    trainees: list[str],
    state: str = "approved",
    delivery: str = "provincial",
    fiscal_year: str = FISCAL_YEAR,
) -> File:
    """A file with `employers` ({reference: employees at application}) and one trainee per
    entry of `trainees` (the reference of the trainee's employer)."""
    request = {"trainees": [{"employer_id": ref} for ref in trainees]}
    application = Application.objects.create(
        stream=stream(jurisdiction, delivery, fiscal_year),
        state=state,
        jurisdiction=jurisdiction,
        fiscal_year=fiscal_year,
        delivery=delivery,
        created_by=user(),
        received_on=dt.date(2030, 5, 1),
        request=request,
        policy="test",
        policy_version="test",
        quote={},
        explanation={},
        eligible=True,
        federal_cents=0,
        provincial_cents=0,
        employer_cents=0,
    )
    made = File(application)
    for position, (ref, employees) in enumerate(employers.items()):
        number = next(_numbers)
        employer = Employer.objects.create(
            business_number=f"{700000000 + number}",
            name=f"Employer {number}",
            employees=employees or 1,
            jurisdiction=jurisdiction,
        )
        ApplicationEmployer.objects.create(
            application=application,
            employer=employer,
            reference=ref,
            position=position,
            employees=employees,
        )
        made.employers[ref] = employer
    if state == "approved":
        made.version = _agreement(application)
    return made


def _agreement(application: Application) -> AgreementVersion:
    agreement = Agreement.objects.create(
        application=application, state="active", issued_at=at("2030-05-15"), issued_by=user()
    )
    return AgreementVersion.objects.create(
        agreement=agreement,
        number=1,
        created_at=at("2030-05-15"),
        created_by=user(),
        cost_lines=[],
        trainee_shares=[],
        schedule={},
        eligible_cents=0,
        federal_cents=0,
        provincial_cents=0,
        employer_cents=0,
        policy="test",
        policy_version="test",
        accept_by=at("2030-06-15"),
        participants_by=dt.date(2030, 6, 15),
        first_claim_by=dt.date(2030, 9, 1),
        completion_report_by=dt.date(2030, 12, 1),
        due_date_parameters=[],
        content_en="",
        content_fr="",
        content_sha256="0" * 64,
    )


def participant(made: File, position: int, state: str = "confirmed", **answers: str) -> Participant:
    slot = Participant.objects.create(
        application=made.application,
        position=position,
        state=state,
        email=f"t{position}@example.com",
        language="en",
        invited_by=user(),
        **answers,
    )
    made.participants.append(slot)
    return slot


def report(made: File, state: str = "submitted") -> CompletionReport:
    return CompletionReport.objects.create(
        application=made.application,
        state=state,
        questions_version="2030-01-01",
        due_on=dt.date(2030, 12, 1),
        training_ended_on=dt.date(2030, 10, 31),
        submitted_at=at("2030-11-15") if state == "submitted" else None,
    )


def outcome(
    report_row: CompletionReport, slot: Participant, *, completed: bool, employed: bool
) -> TraineeOutcome:
    return TraineeOutcome.objects.create(
        report=report_row,
        participant=slot,
        completed=completed,
        not_completed_reason="" if completed else "dropped-out",
        employed_at_end=employed,
    )


def follow_up(
    slot: Participant, milestone: int, respondent: str, state: str, employed: bool | None = None
) -> FollowUp:
    responded = state == "responded"
    return FollowUp.objects.create(
        application_id=slot.application_id,
        participant=slot,
        milestone=milestone,
        respondent=respondent,
        state=state,
        due_on=dt.date(2031, 1, 31),
        language="en",
        sent_at=None if state == "due" else at("2031-01-31"),
        responded_at=at("2031-02-05") if responded else None,
        employed=employed,
    )


def claim(made: File, number: int, submitted: str, state: str = "approved") -> Claim:
    assert made.version is not None
    return Claim.objects.create(
        application=made.application,
        agreement_version=made.version,
        number=number,
        state=state,
        created_by=user(),
        submitted_at=at(submitted),
        certified_by=user() if state == "approved" else None,
        certified_at=at(submitted) if state == "approved" else None,
    )


def payment(
    made: File, claim_row: Claim, funder: str, cents: int, paid_on: str | None
) -> PaymentRequest:
    application = made.application
    batch = PaymentBatch.objects.create(
        jurisdiction=application.jurisdiction,
        fiscal_year=application.fiscal_year,
        built_by=user(),
        built_at=at("2030-06-10"),
    )
    return PaymentRequest.objects.create(
        batch=batch,
        claim=claim_row,
        application=application,
        payee=next(iter(made.employers.values())),
        account=account(application.jurisdiction, funder, application.fiscal_year),
        funder=funder,
        document_number=f"KPI-{next(_numbers)}",
        gross_cents=cents,
        net_cents=cents,
        state="paid" if paid_on else "exported",
        paid_on=dt.date.fromisoformat(paid_on) if paid_on else None,
        paid_at=at(paid_on) if paid_on else None,
    )


def receivable(made: File, funder: str, amount: int, recovered: int) -> Receivable:
    application = made.application
    return Receivable.objects.create(
        application=application,
        debtor=next(iter(made.employers.values())),
        account=account(application.jurisdiction, funder, application.fiscal_year),
        funder=funder,
        cause="not_completed",
        reason="test",
        amount_cents=amount,
        recovered_cents=recovered,
        state="partially_recovered" if recovered < amount else "recovered",
        raised_by="kpi-fixture",
        raised_at=timezone.now(),
        due_on=dt.date(2031, 3, 1),
        due_parameter={},
    )


def ledger(made: File, funder: str, kind: str, legs: dict[str, int]) -> None:
    """One ledger transaction of the file: {bucket: cents} legs summing to zero."""
    assert sum(legs.values()) == 0
    application = made.application
    entry = LedgerTransaction.objects.create(kind=kind, application=application, actor="kpi")
    budget = account(application.jurisdiction, funder, application.fiscal_year)
    Posting.objects.bulk_create(
        Posting(transaction=entry, account=budget, bucket=bucket, amount_cents=cents)
        for bucket, cents in legs.items()
    )


def with_answers(**answers: Any) -> dict[str, Any]:
    return answers
