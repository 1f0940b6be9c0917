"""Paying the history's claims and getting money back, as finance does it: every other week a
payment run per jurisdiction and fiscal year (one officer of finance builds the batch, the other
authorizes it, the first exports it), the paying system's confirmation imported a few days
later; a receivable raised for a trainee who did not complete, and its repayment recorded."""

from __future__ import annotations

import csv
import datetime as dt
import io

from jobgrant.rules.money import format_amount
from jobgrant.service.demo_history.cast import Cast
from jobgrant.service.demo_history.steps import FileState
from jobgrant.service.grants.completion import report as completion_actions
from jobgrant.service.grants.models.completion import CompletionReport, ReportState
from jobgrant.service.grants.models.payments import (
    PaymentBatch,
    Receivable,
    ReceivableCause,
    RequestState,
)
from jobgrant.service.grants.payments import batches as payment_batches
from jobgrant.service.grants.payments import confirmation as payment_confirmation
from jobgrant.service.grants.payments import export as payment_export
from jobgrant.service.grants.payments import recovery as recovery_actions

#: The days between the export and the paying system's confirmation.
CONFIRMED_AFTER = dt.timedelta(days=3)


def pools_with_dues(pools: set[tuple[str, str]]) -> list[tuple[str, str]]:
    return [
        (jurisdiction, year)
        for jurisdiction, year in sorted(pools)
        if any(due.cents > 0 for due in payment_batches.dues(jurisdiction, year))
    ]


def pay_run(cast: Cast, jurisdiction: str, year: str) -> PaymentBatch:
    """Build, authorize (the second person) and export one pool's batch."""
    fields = {"jurisdiction": jurisdiction, "fiscal_year": year}
    batch = payment_batches.build_batch(cast.finance, fields)
    batch = payment_batches.authorize_batch(cast.second_finance, batch, "Payment run")
    payment_export.export_batch(cast.finance, batch)
    return batch


def confirm(cast: Cast, batch: PaymentBatch, paid_on: dt.date) -> None:
    """The paying system's answer to the export: every line paid as asked, imported by finance."""
    exported = PaymentBatch.objects.get(pk=batch.pk).export_csv
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(["document_number", "amount", "paid_on", "payment_reference"])
    for number, row in enumerate(csv.DictReader(io.StringIO(exported)), start=1):
        reference = f"EFT-{batch.pk:04d}-{number:03d}"
        writer.writerow([row["document_number"], row["amount"], paid_on.isoformat(), reference])
    content = buffer.getvalue().encode()
    payment_confirmation.import_confirmations(
        cast.finance, batch, content, f"confirmation-{batch.pk}.csv"
    )


def claim_paid(state: FileState) -> bool:
    claim = state.claim
    return claim is not None and (
        claim.payments.exists() and not claim.payments.exclude(state=RequestState.PAID).exists()
    )


def raise_for_non_completion(state: FileState, cast: Cast) -> Receivable | None:
    """The federal money paid for the first trainee the completion report says did not
    complete, asked back by the officer of the file (a receivable)."""
    if state.claim is None or state.application is None or not claim_paid(state):
        return None
    report = CompletionReport.objects.filter(
        application=state.application, state=ReportState.SUBMITTED
    ).first()
    not_completed = completion_actions.non_completers(report) if report else []
    if not not_completed:
        return None
    position = not_completed[0].participant.position
    figures = {row["trainee"]: row for row in state.claim.figures.get("trainees", [])}
    cents = int(figures.get(position + 1, {}).get("federal", 0))
    if cents <= 0:
        return None
    office = cast.offices[state.plan.jurisdiction]
    return recovery_actions.raise_by_hand(
        office.recommender,
        {
            "cause": ReceivableCause.NOT_COMPLETED,
            "funder": "federal",
            "application": state.application.pk,
            "amount": format_amount(cents),
            "reason": f"Trainee {position + 1} did not complete the training.",
        },
    )


def repay(receivable: Receivable, cast: Cast, received_on: dt.date) -> None:
    owed = receivable.amount_cents - receivable.recovered_cents
    recovery_actions.record_repayment(
        cast.finance,
        receivable,
        {
            "amount": format_amount(owed),
            "received_on": received_on.isoformat(),
            "reference": f"CHQ-{receivable.pk:05d}",
        },
    )
