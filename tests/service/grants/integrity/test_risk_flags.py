"""Risk flags: each raised by a file that should raise it and not by one that should not; cleared
with a reason, audited; recommending refused while one is open."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone, translation
from tests.conftest import application_body, changes_audited
from tests.personas import APPLICANT, EMPLOYER, OFFICER, OUTSIDER, OUTSIDER_EMPLOYER, SECOND_OFFICER
from tests.service.grants.claim_helpers import (
    approved_file,
    attach,
    confirm,
    during_training,
    pdf_bytes,
    refusal,
    trainee,
)

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.claims import actions as claim_actions
from jobgrant.service.grants.integrity import findings
from jobgrant.service.grants.integrity.actions import clear_flag
from jobgrant.service.grants.integrity.declarations import Declared, declared
from jobgrant.service.grants.integrity.direct_deposit import set_bank_account
from jobgrant.service.grants.integrity.sentences import sentence
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.integrity import FlagKind, FlagState, RiskFlag
from jobgrant.service.grants.models.payments import Receivable
from jobgrant.service.ledger.models import BudgetAccount
from jobgrant.service.registry.models import Employer

pytestmark = pytest.mark.django_db

PROVIDER = {"name": "Mohawk College", "third_party": True}


def priced(tuition: str, provider: str = "Mohawk College", course: str = "CNC machining") -> Any:
    body = application_body(trainees=[trainee(tuition)])
    body["training"]["provider"] = {**PROVIDER, "name": provider}
    body["training"]["course"] = course
    return body


def submitted(body: dict[str, Any] | None = None) -> Application:
    application = actions.create_application(EMPLOYER.get(), body or application_body())
    return actions.submit_application(EMPLOYER.get(), application)


def flags(application: Application, kind: str | None = None) -> list[RiskFlag]:
    found = RiskFlag.objects.filter(application=application).order_by("id")
    return list(found.filter(kind=kind) if kind else found)


# --- A price far above the usual ----------------------------------------------------------------


def test_a_price_double_the_providers_and_the_courses_usual_price_is_flagged() -> None:
    for _ in range(3):
        submitted(priced("3000.00"))
    dear = submitted(priced("9000.00"))
    raised = {flag.subject: flag for flag in flags(dear, FlagKind.PRICE_ABOVE_USUAL)}
    assert set(raised) == {"provider", "course"}
    figures = raised["provider"].figures
    assert figures["price_cents"] == 900_000
    assert figures["usual_cents"] == 300_000
    assert figures["files"] == 3
    assert figures["percent"] == 300
    assert figures["threshold"]["name"] == "cjg.integrity.price_above_usual_percent"
    assert figures["threshold"]["value"] == 200
    assert figures["threshold"]["reference"]  # the source travels with the flag


def test_a_price_near_the_usual_one_or_with_too_few_files_to_compare_raises_nothing() -> None:
    for _ in range(3):
        submitted(priced("3000.00"))
    assert flags(submitted(priced("5900.00"))) == []  # 196 % of the usual price
    other = submitted(priced("9000.00", provider="Niagara College", course="Welding"))
    assert flags(other) == []  # only two... none: no other file of that provider or course


def test_a_course_is_compared_across_providers() -> None:
    for name in ("Conestoga", "Fanshawe", "Sheridan"):
        submitted(priced("2000.00", provider=name, course="Forklift safety"))
    dear = submitted(priced("15000.00", provider="Acme Training", course="Forklift Safety!"))
    assert [f.subject for f in flags(dear, FlagKind.PRICE_ABOVE_USUAL)] == ["course"]


# --- A bank account shared by unrelated employers ----------------------------------------------

ACCOUNT = {"institution": "003", "transit": "01234", "account": "1234567"}


def test_an_account_shared_with_an_organization_outside_the_file_is_flagged() -> None:
    set_bank_account(EMPLOYER.get(), APPLICANT.get(), ACCOUNT)
    set_bank_account(OUTSIDER_EMPLOYER.get(), OUTSIDER.get(), ACCOUNT)
    application = submitted()
    [flag] = flags(application, FlagKind.SHARED_BANK_ACCOUNT)
    assert flag.figures["others"] == [f"{OUTSIDER.name} ({OUTSIDER.business_number})"]
    assert flag.figures["account"] == "003-01234-****4567"
    assert "1234567" not in str(flag.figures)


def test_different_accounts_raise_nothing_and_a_change_of_account_lapses_the_flag() -> None:
    set_bank_account(EMPLOYER.get(), APPLICANT.get(), ACCOUNT)
    set_bank_account(OUTSIDER_EMPLOYER.get(), OUTSIDER.get(), {**ACCOUNT, "account": "7654321"})
    waiting = submitted()
    assert flags(waiting) == []
    # The outsider now gives the same account: the file waiting for a decision is flagged.
    set_bank_account(OUTSIDER_EMPLOYER.get(), OUTSIDER.get(), ACCOUNT)
    assert flags(waiting, FlagKind.SHARED_BANK_ACCOUNT)[0].state == FlagState.OPEN
    set_bank_account(OUTSIDER_EMPLOYER.get(), OUTSIDER.get(), {**ACCOUNT, "transit": "99999"})
    assert flags(waiting, FlagKind.SHARED_BANK_ACCOUNT)[0].state == FlagState.LAPSED
    assert AuditEntry.objects.filter(action="risk_flag.lapse").count() == 1


def test_the_account_number_is_sealed_matched_by_its_index_and_shown_masked() -> None:
    set_bank_account(EMPLOYER.get(), APPLICANT.get(), {**ACCOUNT, "account": "98-76543-21"})
    employer = Employer.objects.get(pk=APPLICANT.get().pk)
    assert b"987654321" not in bytes(employer.bank_account_ciphertext)
    assert employer.masked_bank_account == "003-01234-****4321"
    assert len(employer.bank_account_index) == 64 and "987654321" not in employer.bank_account_index
    entry = AuditEntry.objects.get(action="organization.set_bank_account")
    assert "987654321" not in str(entry.summary)


def test_a_bad_account_names_each_field_in_both_languages_and_writes_nothing() -> None:
    before = changes_audited()
    error = refusal(
        lambda: set_bank_account(
            EMPLOYER.get(), APPLICANT.get(), {"institution": "3", "transit": "x", "account": ""}
        )
    )
    assert error.status == 422
    assert [p["field"] for p in error.problems] == ["institution", "transit", "account"]
    assert all(p["message_fr"] for p in error.problems)
    assert not Employer.objects.get(pk=APPLICANT.get().pk).bank_account_index
    assert changes_audited() == before


def test_only_an_administrator_of_the_organization_sets_its_account() -> None:
    error = refusal(lambda: set_bank_account(OUTSIDER_EMPLOYER.get(), APPLICANT.get(), ACCOUNT))
    assert error.status == 403
    assert AuditEntry.objects.filter(action="refused.set_bank_account").count() == 1


# --- A provider related to the employer, an application prepared by the provider --------------


def declaration(**changes: Any) -> Declared:
    fields: dict[str, Any] = {
        "prepared_by": "employer",
        "preparer_name": "",
        "preparer_fee_cents": 0,
        "related_to_provider": False,
        "relations": (),
        "provider_business_number": "",
        "provider_street_address": "",
        "provider_postal_code": "",
        "provider_phone": "",
    }
    return Declared(**{**fields, **changes})


def test_a_file_made_before_declarations_has_none_and_a_submitted_one_has_its_own() -> None:
    application = submitted()
    found = declared(application)
    assert found is not None and found.prepared_by == application.declaration.prepared_by
    application.declaration.delete()  # as a file made before declarations were asked
    assert declared(Application.objects.get(pk=application.pk)) is None


def test_a_declared_relation_is_flagged_and_no_relation_is_not() -> None:
    application = submitted()
    related = findings.related_provider(
        application, declaration(related_to_provider=True, relations=("owners", "family"))
    )
    assert [(f.subject, f.figures) for f in related] == [
        ("declared", {"relations": ["owners", "family"]})
    ]
    assert findings.related_provider(application, declaration()) == []


def test_a_provider_with_the_employers_business_number_or_address_is_related() -> None:
    employer = APPLICANT.get()
    Employer.objects.filter(pk=employer.pk).update(
        street_address="12 King Street East", postal_code="L8N 1A1"
    )
    application = submitted()
    same = declaration(
        provider_business_number=employer.business_number,
        provider_street_address="12 king street east",
        provider_postal_code="l8n1a1",
    )
    subjects = [f.subject for f in findings.related_provider(application, same)]
    assert subjects == [f"business_number:{employer.pk}", f"address:{employer.pk}"]
    elsewhere = declaration(
        provider_business_number=OUTSIDER.business_number,
        provider_street_address="1 Main Street",
        provider_postal_code="L8N 1A1",
    )
    assert findings.related_provider(application, elsewhere) == []


def test_a_provider_with_the_employers_telephone_in_another_format_is_related() -> None:
    employer = APPLICANT.get()
    Employer.objects.filter(pk=employer.pk).update(phone="905-555-0120")
    body = application_body()
    body["declarations"]["provider_phone"] = "+1 (905) 555.0120"
    application = submitted(body)
    [flag] = flags(application, FlagKind.RELATED_PROVIDER)
    assert flag.subject == f"phone:{employer.pk}"
    assert flag.figures["phone"] == "905-555-0120"
    with translation.override("en"):
        assert sentence(flag) == (
            "The training provider's telephone number is the same as that of the employer "
            f"{employer.name} (905-555-0120)."
        )
    with translation.override("fr"):
        assert sentence(flag) == (
            "Le numéro de téléphone du fournisseur de formation est celui de l'employeur "
            f"{employer.name} (905-555-0120)."
        )


@pytest.mark.parametrize(
    ("employers", "providers"),
    [
        ("905-555-0120", "905-555-0121"),  # another number
        ("905-555-0120", ""),  # the provider's not given
        ("", "905-555-0120"),  # the employer registered before the telephone was asked
        ("", ""),
    ],
)
def test_a_different_or_missing_telephone_relates_nothing(employers: str, providers: str) -> None:
    Employer.objects.filter(pk=APPLICANT.get().pk).update(phone=employers)
    application = submitted()
    assert findings.related_provider(application, declaration(provider_phone=providers)) == []


def test_a_provider_paid_into_the_employers_account_is_related() -> None:
    set_bank_account(EMPLOYER.get(), APPLICANT.get(), ACCOUNT)
    set_bank_account(OUTSIDER_EMPLOYER.get(), OUTSIDER.get(), ACCOUNT)
    application = submitted()
    provider_is_outsider = declaration(provider_business_number=OUTSIDER.business_number)
    [found] = findings.related_provider(application, provider_is_outsider)
    assert found.subject == f"bank_account:{APPLICANT.get().pk}"
    assert found.figures["provider"] == OUTSIDER.name


def test_an_application_prepared_by_the_provider_is_flagged_and_one_by_a_consultant_is_not() -> (
    None
):
    by_provider = declaration(
        prepared_by="provider", preparer_name="Mohawk grants desk", preparer_fee_cents=150_000
    )
    [found] = findings.prepared_by_provider(by_provider)
    assert found.figures == {"preparer": "Mohawk grants desk", "fee_cents": 150_000}
    assert findings.prepared_by_provider(declaration(prepared_by="consultant")) == []
    assert findings.prepared_by_provider(None) == []


# --- A receipt used in another file ------------------------------------------------------------


def claimed(application: Application, receipt: bytes) -> None:
    with during_training():
        claim = claim_actions.start_claim(EMPLOYER.get(), application, {})
        attach(claim, receipt)
        claim_actions.submit_claim(EMPLOYER.get(), claim)


def test_a_receipt_already_in_another_file_is_flagged_on_the_second_claim_only() -> None:
    first, second = approved_file([trainee()]), approved_file([trainee()])
    confirm(first, 0)
    confirm(second, 0, sin="193 456 787")
    claimed(first, pdf_bytes("Invoice 7: tuition"))
    assert flags(first, FlagKind.RECEIPT_REUSED) == []
    claimed(second, pdf_bytes("Invoice 7: tuition"))
    [flag] = flags(second, FlagKind.RECEIPT_REUSED)
    assert flag.figures["files"] == [first.pk]
    assert flag.claim_id is not None


def test_a_receipt_of_its_own_is_not_flagged() -> None:
    first, second = approved_file([trainee()]), approved_file([trainee()])
    confirm(first, 0)
    confirm(second, 0, sin="193 456 787")
    claimed(first, pdf_bytes("Invoice 7: tuition"))
    claimed(second, pdf_bytes("Invoice 8: tuition"))
    assert RiskFlag.objects.filter(kind=FlagKind.RECEIPT_REUSED).count() == 0


# --- A trainee funded across years -------------------------------------------------------------


def test_a_trainee_funded_in_two_fiscal_years_above_the_threshold_is_flagged() -> None:
    earlier = approved_file([trainee("15000.00")])
    Application.objects.filter(pk=earlier.pk).update(fiscal_year="2025-26")
    confirm(earlier, 0)
    assert RiskFlag.objects.filter(kind=FlagKind.TRAINEE_ACROSS_YEARS).count() == 0
    later = approved_file([trainee("15000.00")])
    confirm(later, 0)
    [flag] = flags(later, FlagKind.TRAINEE_ACROSS_YEARS)
    assert flag.figures["years"] == ["2025-26", "2026-27"]
    assert flag.figures["government_cents"] == 2_000_000
    assert flag.figures["threshold"]["value"] == 1_000_000


def test_a_trainee_in_two_files_of_one_year_is_not_this_flag() -> None:
    confirm(approved_file([trainee("15000.00")]), 0)
    confirm(approved_file([trainee("15000.00")]), 0)
    assert RiskFlag.objects.filter(kind=FlagKind.TRAINEE_ACROSS_YEARS).count() == 0


# --- A provider with many files that later had receivables -------------------------------------


def with_receivable(application: Application) -> None:
    Receivable.objects.create(
        application=application,
        debtor=APPLICANT.get(),
        account=BudgetAccount.objects.filter(jurisdiction="ON").first(),
        funder="federal",
        cause="not_completed",
        reason="A trainee did not complete.",
        amount_cents=100_000,
        raised_by="officer-on",
        raised_at=timezone.now(),
        due_on=dt.date(2027, 1, 1),
        due_parameter={},
    )


def test_a_provider_with_three_earlier_files_owing_money_is_flagged() -> None:
    for _ in range(3):
        with_receivable(submitted(priced("3000.00", provider="Quick Certs Inc.")))
    [flag] = flags(submitted(priced("3000.00", provider="Quick Certs Inc")), "provider_receivables")
    assert flag.figures["with_receivables"] == 3
    assert flag.figures["threshold"]["value"] == 3


def test_a_provider_with_two_files_owing_money_is_not_flagged() -> None:
    for _ in range(2):
        with_receivable(submitted(priced("3000.00", provider="Quick Certs Inc.")))
    submitted(priced("3000.00", provider="Quick Certs Inc."))
    assert flags(submitted(priced("3000.00", provider="Quick Certs Inc."))) == []


# --- Clearing, and recommending ----------------------------------------------------------------


def flagged() -> tuple[Application, RiskFlag]:
    set_bank_account(EMPLOYER.get(), APPLICANT.get(), ACCOUNT)
    set_bank_account(OUTSIDER_EMPLOYER.get(), OUTSIDER.get(), ACCOUNT)
    application = submitted()
    return application, flags(application)[0]


def test_recommending_with_an_open_flag_is_refused_and_audited() -> None:
    application, _flag = flagged()
    error = refusal(lambda: actions.recommend_application(OFFICER.get(), application))
    assert (error.status, error.code) == (409, "RISK_FLAGS_OPEN")
    assert ": 1." in error.message_en and "Signalements de risque" in error.message_fr
    assert Application.objects.get(pk=application.pk).state == "submitted"
    assert AuditEntry.objects.filter(action="refused.recommend_application").count() == 1


def test_clearing_needs_a_reason_and_writes_nothing_without_one() -> None:
    _application, flag = flagged()
    before = changes_audited()
    error = refusal(lambda: clear_flag(OFFICER.get(), flag, "   "))
    assert error.status == 422 and error.problems[0]["field"] == "reason"
    assert RiskFlag.objects.get(pk=flag.pk).state == FlagState.OPEN
    assert changes_audited() == before
    assert AuditEntry.objects.filter(action="refused.clear_flag").count() == 1


def test_a_cleared_flag_is_audited_and_the_application_may_then_be_recommended() -> None:
    application, flag = flagged()
    clear_flag(OFFICER.get(), flag, "Both firms share a bookkeeper; the account is the firm's.")
    cleared = RiskFlag.objects.get(pk=flag.pk)
    assert cleared.state == FlagState.CLEARED and cleared.cleared_by == OFFICER.get()
    entry = AuditEntry.objects.get(action="risk_flag.clear")
    assert entry.summary["reason"].startswith("Both firms")
    recommended = actions.recommend_application(OFFICER.get(), application)
    assert recommended.state == "recommended"
    actions.approve_application(SECOND_OFFICER.get(), recommended)


def test_a_flag_is_cleared_once_and_only_by_an_officer_of_the_file() -> None:
    from tests.personas import OTHER_JURISDICTION_OFFICER

    _application, flag = flagged()
    assert refusal(lambda: clear_flag(OTHER_JURISDICTION_OFFICER.get(), flag, "ok")).status == 403
    assert refusal(lambda: clear_flag(EMPLOYER.get(), flag, "ok")).status == 403
    clear_flag(OFFICER.get(), flag, "Checked.")
    assert refusal(lambda: clear_flag(SECOND_OFFICER.get(), flag, "Again.")).code == (
        "RISK_FLAG_NOT_OPEN"
    )


def test_submitting_again_keeps_a_cleared_flag_cleared_when_its_figures_are_the_same() -> None:
    application, flag = flagged()
    clear_flag(OFFICER.get(), flag, "Checked.")
    from jobgrant.service.grants.integrity.actions import raise_on_submission

    with_transaction(lambda: raise_on_submission("officer-on", application))
    assert RiskFlag.objects.get(pk=flag.pk).state == FlagState.CLEARED


def with_transaction(work: Any) -> None:
    from django.db import transaction

    with transaction.atomic():
        work()
