"""Recovery: receivables raised (a trainee who did not complete, an amendment below what was paid,
an ineligible cost), due 14 days later, recovered by repayment or set off against the next
payment, written off by two finance officers; the ledger exact to the cent at every step."""

from __future__ import annotations

import datetime as dt

import pytest
from tests.personas import OFFICER, SECOND_OFFICER
from tests.service.grants.payment_helpers import (
    accepted_file,
    account,
    certified_claim,
    confirm_all,
    finance,
    second_finance,
)
from tests.service.grants.payments.test_payments import POOL, build, paid_through

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.payments import (
    Receivable,
    ReceivableCause,
    ReceivableState,
    RecoveryKind,
)
from jobgrant.service.grants.payments import batches as payment_batches
from jobgrant.service.grants.payments import confirmation as payment_confirmation
from jobgrant.service.grants.payments import export as payment_export
from jobgrant.service.grants.payments import recovery as recovery_actions
from jobgrant.service.grants.payments import recovery_hooks
from jobgrant.service.ledger import operations
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db
TODAY = dt.date(2026, 11, 29)


def paid_file(federal: int, email: str = "applicant@example.ca", language: str = "en") -> tuple:
    application = accepted_file(email=email, language=language)
    claim = certified_claim(application, federal=federal)
    paid_through(build())
    return application, claim


def not_completed(application, cents: str = "1000.00", who=None) -> Receivable:
    return recovery_actions.raise_by_hand(
        who or OFFICER.get(),
        {
            "application": application.pk,
            "funder": "federal",
            "cause": "not_completed",
            "amount": cents,
            "reason": "Trainee 1 left the course in week 2.",
        },
    )


def test_a_receivable_is_due_14_days_later_and_the_employer_is_told_in_their_language(
    demo: None,
) -> None:
    application, _ = paid_file(300_000, email="paie@example.ca", language="fr")
    disbursed = account(application, "federal").disbursed_cents
    receivable = not_completed(application)
    assert receivable.due_on == TODAY + dt.timedelta(days=14)
    assert receivable.due_parameter["name"] == recovery_actions.DUE_PARAMETER
    assert receivable.due_parameter["reference"]
    budget = account(application, "federal")
    assert budget.disbursed_cents == disbursed - 100_000 and budget.receivable_cents >= 100_000
    message = Message.objects.get(kind="receivable_raised")
    assert message.language == "fr" and "13 décembre 2026" in message.body
    assert operations.verify() == []


def test_no_more_can_be_raised_than_was_paid(demo: None) -> None:
    application, _ = paid_file(100_000)
    with pytest.raises(ServiceError) as refused:
        not_completed(application, "1000.01")
    assert refused.value.code == "NO_PAYMENT_TO_RECOVER"
    assert not Receivable.objects.exists()


def test_an_amendment_below_what_was_paid_is_taken_back_once(demo: None) -> None:
    application, claim = paid_file(300_000)
    amended = certified_claim(application, federal=200_000, amends=claim)
    assert recovery_hooks.paid_to_date(amended, "federal") == 300_000
    recovery_hooks.overpaid(amended, "federal", 100_000)
    assert recovery_hooks.paid_to_date(amended, "federal") == 200_000
    with pytest.raises(ServiceError) as nothing:
        build()  # approved 2,000 − paid 3,000 + taken back 1,000: nothing to pay or take
    assert nothing.value.code == "NOTHING_TO_PAY"
    assert Receivable.objects.get().cause == ReceivableCause.AMENDMENT


def test_a_batch_turns_a_negative_amount_into_a_receivable_never_a_negative_payment(
    demo: None,
) -> None:
    application, claim = paid_file(300_000)
    certified_claim(application, federal=200_000, amends=claim)  # the hook was not called
    other = accepted_file()
    certified_claim(other, federal=50_000)
    batch = build()
    assert all(r.gross_cents > 0 for r in batch.requests.all())
    receivable = Receivable.objects.get(application=application)
    assert receivable.amount_cents == 100_000 and receivable.cause == ReceivableCause.AMENDMENT


def test_the_next_payment_to_the_employer_nets_what_it_owes(demo: None) -> None:
    application, _ = paid_file(300_000)
    receivable = not_completed(application, "400.00")
    second = accepted_file()
    certified_claim(second, federal=100_000)
    batch = build()
    request = batch.requests.get()
    assert (request.gross_cents, request.set_off_cents, request.net_cents) == (
        100_000,
        40_000,
        60_000,
    )
    payment_batches.authorize_batch(second_finance(), batch)
    content = payment_export.export_batch(finance(), batch)
    assert b"600.00" in content
    recovered = account(application, "federal").recovered_cents
    payment_confirmation.import_confirmations(finance(), batch, confirm_all(content))
    receivable.refresh_from_db()
    assert receivable.state == ReceivableState.SET_OFF and receivable.recovered_cents == 40_000
    assert receivable.recoveries.get().kind == RecoveryKind.SET_OFF
    assert account(application, "federal").recovered_cents - recovered == 40_000
    assert operations.verify() == []


def test_a_repayment_recovers_and_more_than_is_owed_is_refused(demo: None) -> None:
    application, _ = paid_file(300_000)
    receivable = not_completed(application)
    with pytest.raises(ServiceError) as too_much:
        recovery_actions.record_repayment(finance(), receivable, {"amount": "1000.01"})
    assert too_much.value.code == "TOO_MUCH"
    recovery_actions.record_repayment(
        finance(), receivable, {"amount": "250.00", "reference": "CHQ-1"}
    )
    receivable.refresh_from_db()
    assert receivable.state == ReceivableState.PARTIALLY_RECOVERED
    recovery_actions.record_repayment(finance(), receivable, {"amount": "750.00"})
    receivable.refresh_from_db()
    assert receivable.state == ReceivableState.RECOVERED
    with pytest.raises(ServiceError) as closed:
        recovery_actions.record_repayment(finance(), receivable, {"amount": "1.00"})
    assert closed.value.code == "RECEIVABLE_CLOSED"
    assert operations.verify() == []


def test_a_write_off_needs_a_second_finance_officer(demo: None) -> None:
    application, _ = paid_file(300_000)
    receivable = not_completed(application)
    asked = recovery_actions.write_off_receivable(
        finance(), receivable, {"reason": "The employer went bankrupt."}
    )
    assert asked.state == ReceivableState.OPEN and asked.write_off_requested_by == finance()
    with pytest.raises(ServiceError) as same:
        recovery_actions.write_off_receivable(finance(), receivable, {})
    assert (same.value.status, same.value.code) == (403, "SECOND_APPROVER_NEEDED")
    assert AuditEntry.objects.order_by("-sequence").first().action.startswith("refused.")
    written = account(application, "federal").written_off_cents
    done = recovery_actions.write_off_receivable(second_finance(), receivable, {})
    assert done.state == ReceivableState.WRITTEN_OFF and done.written_off_cents == 100_000
    assert account(application, "federal").written_off_cents - written == 100_000
    assert operations.verify() == []


def test_an_officer_of_another_file_cannot_raise_and_bad_input_names_each_field(
    demo: None,
) -> None:
    application, _ = paid_file(300_000)
    with pytest.raises(ServiceError) as bad:
        recovery_actions.raise_by_hand(
            SECOND_OFFICER.get(), {"application": "x", "funder": "x", "cause": "amendment"}
        )
    assert {p["field"] for p in bad.value.problems} == {"application", "funder", "cause"}
    with pytest.raises(ServiceError) as missing_reason:
        recovery_actions.raise_by_hand(
            OFFICER.get(),
            {
                "application": application.pk,
                "funder": "federal",
                "cause": "not_completed",
                "amount": "1.00",
            },
        )
    assert missing_reason.value.problems[0]["field"] == "reason"
    assert not Receivable.objects.exists()
    _ = POOL
