"""Payments (s.33): batches built from certified claims, authorized by a second person, exported,
confirmed by the paying system's file; the ledger disbursed exact to the cent."""

from __future__ import annotations

import pytest
from tests.personas import EMPLOYER, SECOND_OFFICER
from tests.service.grants.payment_helpers import (
    accepted_file,
    account,
    certified_claim,
    confirm_all,
    confirmation_file,
    exported_rows,
    finance,
    second_finance,
)

from jobgrant.service.accounts.models import Membership, User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.payments import (
    BatchState,
    ConfirmationLine,
    LineOutcome,
    PaymentBatch,
    PaymentRequest,
    RequestState,
)
from jobgrant.service.grants.payments import access as payment_access
from jobgrant.service.grants.payments import batches as payment_batches
from jobgrant.service.grants.payments import confirmation as payment_confirmation
from jobgrant.service.grants.payments import export as payment_export
from jobgrant.service.grants.payments import holds as payment_holds
from jobgrant.service.grants.payments.files import EXPORT_COLUMNS
from jobgrant.service.ledger import operations
from jobgrant.service.notifications.models import Message

POOL = {"jurisdiction": "ON", "fiscal_year": "2026-27"}
pytestmark = pytest.mark.django_db


def build() -> PaymentBatch:
    return payment_batches.build_batch(finance(), POOL)


def paid_through(batch: PaymentBatch) -> bytes:
    """Authorize (second finance officer), export, confirm every line; the export."""
    payment_batches.authorize_batch(second_finance(), batch)
    content = payment_export.export_batch(finance(), batch)
    payment_confirmation.import_confirmations(finance(), batch, confirm_all(content))
    return content


def test_a_batch_pays_each_certified_claim_per_funder_and_the_ledger_disburses_it(
    demo: None,
) -> None:
    application = accepted_file()
    certified_claim(application, federal=400_000, provincial=250_050)
    before = {f: account(application, f).disbursed_cents for f in ("federal", "provincial")}
    batch = build()
    requests = list(batch.requests.order_by("funder"))
    assert [(r.funder, r.gross_cents, r.net_cents) for r in requests] == [
        ("federal", 400_000, 400_000),
        ("provincial", 250_050, 250_050),
    ]
    assert batch.total_cents == 650_050 and batch.state == BatchState.BUILT
    content = paid_through(batch)
    rows = exported_rows(content)
    assert tuple(rows[0]) == EXPORT_COLUMNS
    assert {row["amount"] for row in rows} == {"4000.00", "2500.50"}
    assert rows[0]["business_number"] == EMPLOYER.organizations[0].business_number
    assert rows[0]["gl_coding"].startswith("CJF-") and rows[0]["fiscal_year"] == "2026-27"
    after = {f: account(application, f).disbursed_cents for f in ("federal", "provincial")}
    assert after["federal"] - before["federal"] == 400_000
    assert after["provincial"] - before["provincial"] == 250_050
    balances = operations.application_balances(application)
    assert balances["federal"].disbursed == 400_000
    batch.refresh_from_db()
    assert batch.state == BatchState.RECONCILED
    assert operations.verify() == []


def test_document_numbers_are_stable_and_never_reused(demo: None) -> None:
    first_file = accepted_file()
    certified_claim(first_file, federal=100_000)
    first = build()
    number = first.requests.get().document_number
    assert number.startswith("CJG-ON-2026-")
    second_file = accepted_file()
    certified_claim(second_file, federal=200_000)
    second = build()
    assert second.requests.get().document_number > number
    assert first.requests.get().document_number == number


def test_a_claim_is_paid_only_what_was_not_paid_before(demo: None) -> None:
    application = accepted_file()
    claim = certified_claim(application, federal=300_000)
    paid_through(build())
    # an amendment raises the approval: only the difference is paid
    certified_claim(application, federal=350_000, amends=claim)
    batch = build()
    assert [r.gross_cents for r in batch.requests.all()] == [50_000]
    with pytest.raises(ServiceError) as nothing:
        build()  # the difference is on its way: nothing left to pay
    assert nothing.value.code == "NOTHING_TO_PAY" and nothing.value.status == 409


def test_the_builder_and_the_certifier_never_authorize(demo: None) -> None:
    application = accepted_file()
    certifier = second_finance()
    certified_claim(application, federal=100_000, certifier=certifier)
    batch = build()
    for who, code in ((finance(), "BUILDER_AUTHORIZES"), (certifier, "CERTIFIER_AUTHORIZES")):
        with pytest.raises(ServiceError) as refused:
            payment_batches.authorize_batch(who, batch)
        assert (refused.value.status, refused.value.code) == (403, code)
        entry = AuditEntry.objects.order_by("-sequence").first()
        assert entry.action == "refused.authorize_batch" and entry.summary["code"] == code
    batch.refresh_from_db()
    assert batch.state == BatchState.BUILT and batch.authorized_by is None
    third = User.objects.create_user(username="finance-3", role="finance")
    assert payment_batches.authorize_batch(third, batch).state == BatchState.AUTHORIZED


def test_an_officer_cannot_build_or_authorize(demo: None) -> None:
    with pytest.raises(ServiceError) as refused:
        payment_batches.build_batch(SECOND_OFFICER.get(), POOL)
    assert refused.value.status == 403


def test_bad_pools_name_the_field(demo: None) -> None:
    with pytest.raises(ServiceError) as refused:
        payment_batches.build_batch(finance(), {"jurisdiction": "ZZ", "fiscal_year": "2026-28"})
    fields = {p["field"] for p in refused.value.problems}
    assert refused.value.status == 422 and fields == {"jurisdiction", "fiscal_year"}


def test_the_export_is_the_same_file_every_time(demo: None) -> None:
    application = accepted_file()
    certified_claim(application, federal=123_456)
    batch = build()
    with pytest.raises(ServiceError) as early:
        payment_export.export_batch(finance(), batch)  # not authorized yet
    assert early.value.code == "BATCH_NOT_AUTHORIZED"
    payment_batches.authorize_batch(second_finance(), batch)
    first = payment_export.export_batch(finance(), batch)
    again = payment_export.export_batch(second_finance(), batch)
    assert first == again
    assert PaymentRequest.objects.get(batch=batch).state == RequestState.EXPORTED


def test_each_unmatched_line_is_listed_with_its_reason_and_a_file_imported_twice_changes_nothing(
    demo: None,
) -> None:
    application = accepted_file()
    certified_claim(application, federal=100_000, provincial=100_000)
    batch = build()
    payment_batches.authorize_batch(second_finance(), batch)
    rows = exported_rows(payment_export.export_batch(finance(), batch))
    federal, provincial = sorted(rows, key=lambda row: row["funder"])
    other = accepted_file()
    certified_claim(other, federal=70_000)
    not_exported = build().requests.get().document_number
    content = confirmation_file(
        [
            (federal["document_number"], "1000.00"),
            (federal["document_number"], "1000.00"),
            (provincial["document_number"], "999.99"),
            ("CJG-ON-2026-9999999", "5.00"),
            ("nonsense", "5.00"),
            (not_exported, "700.00"),
        ]
    )
    before = account(application, "federal").disbursed_cents
    imported = payment_confirmation.import_confirmations(finance(), batch, content)
    outcomes = list(
        ConfirmationLine.objects.filter(confirmation=imported.confirmation).values_list(
            "line_number", "outcome"
        )
    )
    assert outcomes == [
        (2, LineOutcome.RECONCILED),
        (3, LineOutcome.DUPLICATE),
        (4, LineOutcome.WRONG_AMOUNT),
        (5, LineOutcome.UNKNOWN_DOCUMENT),
        (6, LineOutcome.UNKNOWN_DOCUMENT),
        (7, LineOutcome.NO_MATCH),
    ]
    assert account(application, "federal").disbursed_cents - before == 100_000
    counts = (Message.objects.count(), AuditEntry.objects.count())
    again = payment_confirmation.import_confirmations(finance(), batch, content)
    assert again.replayed and again.confirmation.pk == imported.confirmation.pk
    assert account(application, "federal").disbursed_cents - before == 100_000
    assert (Message.objects.count(), AuditEntry.objects.count()) == counts
    # a later file for the same payment: a duplicate, nothing paid twice
    later = payment_confirmation.import_confirmations(
        finance(), batch, confirmation_file([(federal["document_number"], "1000.00")], "2026-12-01")
    )
    assert later.confirmation.lines.get().outcome == LineOutcome.DUPLICATE
    assert operations.verify() == []


def test_a_file_that_is_not_a_confirmation_file_is_refused_whole(demo: None) -> None:
    application = accepted_file()
    certified_claim(application, federal=100_000)
    batch = build()
    for content in (b"", b"\xff\xfe", b"name,total\r\nx,1\r\n"):
        with pytest.raises(ServiceError) as refused:
            payment_confirmation.import_confirmations(finance(), batch, content)
        assert refused.value.status == 422 and refused.value.problems[0]["field"] == "file"


def test_the_employer_is_told_of_the_payment_in_their_language(demo: None) -> None:
    application = accepted_file(email="paie@example.ca", language="fr")
    certified_claim(application, federal=100_000, provincial=20_000)
    paid_through(build())
    message = Message.objects.get(kind="payment_sent", recipient="paie@example.ca")
    assert message.language == "fr" and "1\u00a0200,00\u00a0$" in message.body


def test_a_held_payment_waits_until_its_hold_is_lifted(demo: None) -> None:
    application = accepted_file()
    certified_claim(application, federal=100_000)
    batch = build()
    held = payment_holds.hold_payment(finance(), batch.requests.get().pk, "Bank details checked")
    assert held.state == RequestState.HELD
    batch.refresh_from_db()
    assert batch.total_cents == 0
    with pytest.raises(ServiceError):
        build()  # on hold: no batch takes it
    payment_holds.lift_hold(finance(), held.pk)
    assert build().requests.get().gross_cents == 100_000


def test_a_batch_nobody_may_see_is_refused_under_the_name_the_audit_trail_always_used(
    demo: None,
) -> None:
    with pytest.raises(ServiceError) as refused:
        payment_access.get_visible_batch(finance(), 999_999)
    assert refused.value.status == 404
    entry = AuditEntry.objects.filter(action="refused.get_batch").get()
    assert (entry.object_type, entry.object_id) == ("paymentbatch", "999999")


def test_a_finance_officer_affiliated_with_the_payee_neither_builds_nor_lifts_a_hold(
    demo: None,
) -> None:
    application = accepted_file()
    certified_claim(application, federal=100_000)
    payee = application.employers.order_by("position").first()
    assert payee is not None
    affiliated = second_finance()
    Membership.objects.create(user=affiliated, employer_id=payee.employer_id)
    with pytest.raises(ServiceError) as refused:
        payment_batches.build_batch(affiliated, POOL)
    assert (refused.value.status, refused.value.code) == (403, "PAYEE_CONFLICT")
    assert not PaymentBatch.objects.exists()
    batch = build()
    held = payment_holds.hold_payment(finance(), batch.requests.get().pk, "Bank details checked")
    with pytest.raises(ServiceError) as refused:
        payment_holds.lift_hold(affiliated, held.pk)
    assert refused.value.code == "PAYEE_CONFLICT"
    held.refresh_from_db()
    assert held.state == RequestState.HELD
    assert AuditEntry.objects.filter(action="refused.lift_hold", actor=affiliated.username).exists()
