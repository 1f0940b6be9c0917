"""The agreement: issued by the approval in its transaction, accepted, declined, withdrawn,
expired; every transition audited, every refusal named in both languages."""

from __future__ import annotations

import datetime as dt
import hashlib
import json

import pytest
import time_machine
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from tests import canonical
from tests.conftest import changes_audited
from tests.personas import EMPLOYER, OFFICER, OTHER_JURISDICTION_OFFICER, SECOND_OFFICER
from tests.service.grants.agreement_helpers import ALL_CONFIRMED, approved, committed, recommended

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.agreements.actions import (
    accept_agreement,
    decline_agreement,
    expire_offers,
    new_version,
    remind_expiring_offers,
    version_read,
    withdraw_offer,
)
from jobgrant.service.grants.agreements.document import content_hash
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.agreements import Agreement, AgreementVersion
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.ledger.models import BudgetAccount, Posting
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db


def version_of(agreement: Agreement) -> AgreementVersion:
    return AgreementVersion.objects.get(agreement=agreement, number=agreement.version)


def test_approval_issues_version_1_with_the_approved_terms_and_due_dates(demo) -> None:
    agreement = canonical.put("approved").agreement
    version = version_of(agreement)
    assert agreement.state == "issued"
    assert version.number == 1
    assert version.federal_cents == 500_000 and version.provincial_cents == 500_000
    assert version.cost_lines == [
        {"trainee": 1, "employer_id": "acme", "category": "tuition", "cents": 1_500_000}
    ]
    assert version.schedule["start_date"] == "2027-01-11"
    assert version.accept_by - version.created_at == dt.timedelta(days=5)
    assert version.participants_by == dt.date(2027, 1, 6)
    assert version.first_claim_by == dt.date(2027, 2, 10)
    assert version.completion_report_by == dt.date(2027, 4, 25)
    sources = {p["name"]: p["reference"] for p in version.due_date_parameters}
    assert all(sources.values()) and "cjg.agreement.accept_within_days" in sources


def test_the_hash_is_the_sha256_of_both_stored_documents(demo) -> None:
    version = version_read(EMPLOYER.get(), canonical.put("approved").agreement)
    stored = json.dumps(
        {"en": version.content_en, "fr": version.content_fr}, sort_keys=True, ensure_ascii=False
    )
    assert version.content_sha256 == hashlib.sha256(stored.encode()).hexdigest()
    assert "Schedule of approved costs" in version.content_en
    assert "15,000.00" in version.content_en
    assert "15\u00a0000,00\u00a0$" in version.content_fr


def test_the_approval_tells_the_applicant_in_their_language_with_the_agreement_link(demo) -> None:
    agreement = approved(language="fr")
    message = Message.objects.get(kind="agreement_issued")
    assert message.recipient == "applicant@example.ca" and message.language == "fr"
    assert f"/fr/employeur/demandes/{agreement.application_id}/entente/" in message.body
    assert message.subject_line.startswith("Votre demande")


def test_an_approval_that_fails_leaves_no_agreement(demo) -> None:
    application = recommended()
    BudgetAccount.objects.filter(funder="federal", jurisdiction="ON").update(
        allocated_cents=F("committed_cents") + F("earmarked_cents")  # nothing left outside intakes
    )
    with pytest.raises(ServiceError) as refused:
        actions.approve_application(SECOND_OFFICER.get(), application)
    assert refused.value.code == "BUDGET_EXHAUSTED"
    assert not Agreement.objects.exists() and not AgreementVersion.objects.exists()
    assert not Message.objects.filter(kind="agreement_issued").exists()


def test_the_applicant_accepts_with_name_title_and_the_three_confirmations(demo) -> None:
    agreement = canonical.put("approved").agreement
    accept_agreement(EMPLOYER.get(), agreement, "Ada Tremblay", "Owner", ALL_CONFIRMED)
    version = version_of(agreement)
    assert Agreement.objects.get(pk=agreement.pk).state == "accepted"
    assert (version.signatory_name, version.signatory_title) == ("Ada Tremblay", "Owner")
    assert version.accepted_by_id == EMPLOYER.get().pk and version.accepted_at is not None
    assert version.accepted_sha256 == version.content_sha256
    entry = AuditEntry.objects.get(action="agreement.accept")
    assert entry.summary["accepted_sha256"] == version.content_sha256
    assert Message.objects.filter(kind="agreement_accepted").count() == 1
    assert verify().ok


def test_each_missing_field_is_named_in_both_languages_and_nothing_is_written(demo) -> None:
    agreement = canonical.put("approved").agreement
    entries = changes_audited()
    with pytest.raises(ServiceError) as refused:
        accept_agreement(EMPLOYER.get(), agreement, " ", "", ["agreement"])
    fields = [p["field"] for p in refused.value.problems]
    assert fields == [
        "signatory",
        "title",
        "confirmations.cost_schedule",
        "confirmations.general_terms",
    ]
    assert all(p["message_en"] and p["message_fr"] for p in refused.value.problems)
    assert "conditions générales" in refused.value.problems[-1]["message_fr"]
    assert Agreement.objects.get(pk=agreement.pk).state == "issued"
    assert version_of(agreement).accepted_at is None
    assert changes_audited() == entries


def test_only_the_applicant_may_accept_and_the_refusal_is_audited(demo) -> None:
    agreement = canonical.put("approved").agreement
    with pytest.raises(ServiceError) as refused:
        accept_agreement(OFFICER.get(), agreement, "A", "B", ALL_CONFIRMED)
    assert refused.value.status == 403
    assert AuditEntry.objects.filter(action="refused.accept_agreement").count() == 1


def test_declining_releases_the_commitment_and_withdraws_the_application(demo) -> None:
    before = committed("federal")
    agreement = canonical.put("approved").agreement
    assert committed("federal") == before + 500_000
    decline_agreement(EMPLOYER.get(), agreement, "The course was cancelled.")
    assert committed("federal") == before and committed("provincial") == 0
    assert Agreement.objects.get(pk=agreement.pk).state == "declined"
    assert Application.objects.get(pk=agreement.application_id).state == "withdrawn"
    releases = Posting.objects.filter(transaction__kind="release")
    assert sum(p.amount_cents for p in releases) == 0 and releases.count() == 4
    assert AuditEntry.objects.get(action="agreement.decline").summary["released_cents"] == 1_000_000
    assert Message.objects.filter(kind="agreement_declined").count() == 1
    with pytest.raises(ServiceError) as again:
        accept_agreement(EMPLOYER.get(), agreement, "A", "B", ALL_CONFIRMED)
    assert again.value.code == "AGREEMENT_NOT_OPEN"


def test_a_decline_needs_a_reason(demo) -> None:
    agreement = canonical.put("approved").agreement
    with pytest.raises(ServiceError) as refused:
        decline_agreement(EMPLOYER.get(), agreement, "  ")
    assert refused.value.problems[0]["field"] == "reason"
    assert Agreement.objects.get(pk=agreement.pk).state == "issued"


def test_an_officer_withdraws_an_offer_with_a_reason_and_it_is_released(demo) -> None:
    before = committed("federal")
    agreement = canonical.put("approved").agreement
    withdraw_offer(OFFICER.get(), agreement, "The provider lost its accreditation.")
    assert Agreement.objects.get(pk=agreement.pk).state == "withdrawn"
    assert committed("federal") == before
    message = Message.objects.get(kind="offer_withdrawn")
    assert "lost its accreditation" in message.body


def test_an_officer_of_another_jurisdiction_cannot_withdraw(demo) -> None:
    agreement = canonical.put("approved").agreement
    with pytest.raises(ServiceError) as refused:
        withdraw_offer(OTHER_JURISDICTION_OFFICER.get(), agreement, "No.")
    assert refused.value.status == 403
    assert AuditEntry.objects.filter(action="refused.withdraw_offer").count() == 1


def test_an_offer_expires_after_five_days_releases_its_commitment_once(demo) -> None:
    before = committed("federal")
    agreement = canonical.put("approved").agreement
    assert expire_offers() == 0
    later = timezone.now() + dt.timedelta(days=5, minutes=1)
    assert expire_offers(later) == 1
    assert expire_offers(later) == 0  # idempotent
    assert Agreement.objects.get(pk=agreement.pk).state == "expired"
    assert committed("federal") == before
    assert AuditEntry.objects.filter(action="agreement.expire", actor="expire_offers").count() == 1
    assert Message.objects.filter(kind="offer_expired").count() == 1


def test_an_offer_cannot_be_accepted_after_its_time_even_before_the_job_runs(demo) -> None:
    agreement = canonical.put("approved").agreement
    late = timezone.now() + dt.timedelta(days=5, seconds=1)
    with time_machine.travel(late, tick=False), pytest.raises(ServiceError) as refused:
        accept_agreement(EMPLOYER.get(), agreement, "Ada", "Owner", ALL_CONFIRMED)
    assert refused.value.code == "OFFER_EXPIRED"
    assert refused.value.message_fr
    assert Agreement.objects.get(pk=agreement.pk).state == "issued"


def test_an_offer_of_an_application_withdrawn_first_expires_without_a_second_release(demo) -> None:
    before = committed("federal")
    agreement = canonical.put("approved").agreement
    actions.withdraw_application(
        EMPLOYER.get(), Application.objects.get(pk=agreement.application_id)
    )
    assert committed("federal") == before
    with pytest.raises(ServiceError):
        accept_agreement(EMPLOYER.get(), agreement, "Ada", "Owner", ALL_CONFIRMED)
    assert expire_offers(timezone.now() + dt.timedelta(days=6)) == 1
    assert committed("federal") == before


def test_the_applicant_is_reminded_once_a_day_before_the_offer_expires(demo) -> None:
    canonical.put("approved")
    assert remind_expiring_offers() == 0
    soon = timezone.now() + dt.timedelta(days=4, hours=1)
    assert remind_expiring_offers(soon) == 1
    assert remind_expiring_offers(soon) == 0
    assert Message.objects.filter(kind="offer_expiring").count() == 1


def test_a_new_version_is_made_from_the_last_with_changes_and_accepted_again(demo) -> None:
    agreement = canonical.put("approved").agreement
    accept_agreement(EMPLOYER.get(), agreement, "Ada", "Owner", ALL_CONFIRMED)
    first = version_of(agreement)
    schedule = {**first.schedule, "end_date": "2027-04-30"}
    with transaction.atomic():
        second = new_version(
            agreement,
            by=SECOND_OFFICER.get(),
            changes={"schedule": schedule},
            reason="change request 1",
            needs_acceptance=True,
        )
    assert (second.number, second.made_from) == (2, 1)
    assert second.completion_report_by == dt.date(2027, 5, 30)
    assert second.terms_sha256 != first.terms_sha256 and not second.content_sha256
    assert second.cost_lines == first.cost_lines
    agreement.refresh_from_db()
    assert agreement.version == 2 and agreement.state == "accepted"
    accept_agreement(EMPLOYER.get(), agreement, "Ada", "Owner", ALL_CONFIRMED)
    accepted = version_of(agreement)
    assert accepted.accepted_sha256 == accepted.content_sha256 != first.content_sha256
    assert accepted.content_sha256 == content_hash(accepted.content_en, accepted.content_fr)
    assert AuditEntry.objects.filter(action="agreement.accept_version").count() == 1
