"""The agreement's document is rendered once, out of the approval (ADR 0040): the approval stores
the terms, the names the document shows and the hash of both; the first read (the page, the PDF,
the API, the acceptance) or the worker renders the document from them, stores it with its hash
and records that hash in the audit trail; it never changes after. The acceptance checks the hash
of the text the employer read."""

from __future__ import annotations

import pytest
from django.db import transaction
from tests.conftest import changes_audited
from tests.personas import APPLICANT, EMPLOYER, SECOND_OFFICER
from tests.service.grants.agreement_helpers import ALL_CONFIRMED, approved

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.agreements.actions import (
    TermsChangedError,
    accept_agreement,
    new_version,
    render_documents,
    rendered,
    version_read,
)
from jobgrant.service.grants.agreements.document import content_hash, terms_hash
from jobgrant.service.grants.models.agreements import Agreement, AgreementVersion
from jobgrant.service.notifications.models import Message
from jobgrant.service.registry.models import Employer

pytestmark = pytest.mark.django_db


def stored(agreement: Agreement) -> AgreementVersion:
    return AgreementVersion.objects.select_related("agreement").get(
        agreement=agreement, number=Agreement.objects.get(pk=agreement.pk).version
    )


def test_the_approval_stores_the_terms_the_names_and_their_hash_not_the_document(demo) -> None:
    agreement = approved()
    version = stored(agreement)
    assert (version.content_en, version.content_fr, version.content_sha256) == ("", "", "")
    assert version.named_employers == [
        {"reference": "acme", "name": APPLICANT.name, "business_number": APPLICANT.business_number}
    ]
    assert len(version.terms_sha256) == 64 and version.terms_sha256 == terms_hash(version)
    issued = AuditEntry.objects.get(action="agreement.issue")
    assert issued.summary["terms_sha256"] == version.terms_sha256
    assert "sha256" not in issued.summary
    message = Message.objects.get(kind="agreement_issued")
    assert message.subject_id == str(agreement.pk)
    assert not AuditEntry.objects.filter(action="agreement.render").exists()


def test_the_first_read_renders_stores_and_audits_the_document_once(demo) -> None:
    agreement = approved()
    first = version_read(EMPLOYER.get(), agreement)
    assert "Schedule of approved costs" in first.content_en
    assert "coûts approuvés" in first.content_fr
    assert first.content_sha256 == content_hash(first.content_en, first.content_fr)
    again = stored(agreement)
    assert (again.content_en, again.content_sha256) == (first.content_en, first.content_sha256)
    entry = AuditEntry.objects.get(action="agreement.render")
    assert entry.actor == EMPLOYER.username and entry.object_id == str(agreement.pk)
    assert entry.summary == {
        "application": agreement.application_id,
        "version": 1,
        "terms_sha256": first.terms_sha256,
        "sha256": first.content_sha256,
    }
    entries = changes_audited()
    assert version_read(SECOND_OFFICER.get(), agreement).content_sha256 == first.content_sha256
    assert changes_audited() == entries  # read again: nothing rendered, nothing recorded
    assert verify().ok


def test_a_reader_behind_another_keeps_the_text_written_first(demo) -> None:
    """Two readers at once: the one that writes second finds the document written and keeps
    that text, whatever it rendered itself (as during a release, two writers of the text)."""
    agreement = approved()
    late = stored(agreement)  # read before the other reader wrote the document
    first = version_read(EMPLOYER.get(), agreement)
    AgreementVersion.objects.filter(pk=first.pk).update(content_en=first.content_en + "<!-- -->")
    kept = rendered(late, SECOND_OFFICER.username)
    assert kept.content_en == first.content_en + "<!-- -->"
    assert kept.content_sha256 == first.content_sha256
    assert AuditEntry.objects.filter(action="agreement.render").count() == 1


def test_the_document_names_the_employers_as_they_were_at_issue(demo) -> None:
    agreement = approved()
    Employer.objects.filter(name="Birchwood Tool and Die").update(name="Renamed Since Inc.")
    version = version_read(EMPLOYER.get(), agreement)
    assert "Birchwood Tool and Die" in version.content_en
    assert "Renamed Since" not in version.content_en + version.content_fr


def test_terms_changed_outside_the_service_are_not_rendered(demo) -> None:
    agreement = approved()
    version = stored(agreement)
    AgreementVersion.objects.filter(pk=version.pk).update(policy="another-policy")
    entries = changes_audited()
    with pytest.raises(TermsChangedError):
        version_read(EMPLOYER.get(), agreement)
    assert stored(agreement).content_sha256 == ""
    assert changes_audited() == entries


def test_the_worker_renders_what_nobody_read_and_a_crash_loses_nothing(demo) -> None:
    agreements = [approved() for _ in range(3)]
    read = version_read(EMPLOYER.get(), agreements[0])

    def dies_before_committing() -> None:
        with transaction.atomic():
            render_documents()
            raise RuntimeError("the worker stopped")

    with pytest.raises(RuntimeError):
        dies_before_committing()
    assert [stored(a).content_sha256 for a in agreements[1:]] == ["", ""]
    assert render_documents() == 2
    assert render_documents() == 0
    versions = [stored(a) for a in agreements]
    assert versions[0].content_sha256 == read.content_sha256
    assert all(v.content_sha256 == content_hash(v.content_en, v.content_fr) for v in versions)
    workers = AuditEntry.objects.filter(action="agreement.render", actor="worker")
    assert workers.count() == 2


def test_the_acceptance_records_the_hash_of_the_text_read(demo) -> None:
    agreement = approved()
    read = version_read(EMPLOYER.get(), agreement)
    accept_agreement(
        EMPLOYER.get(), agreement, "Ada Tremblay", "Owner", ALL_CONFIRMED, read.content_sha256
    )
    version = stored(agreement)
    assert version.accepted_sha256 == read.content_sha256
    entry = AuditEntry.objects.get(action="agreement.accept")
    assert entry.summary["accepted_sha256"] == read.content_sha256
    assert entry.summary["terms_sha256"] == read.terms_sha256


def test_an_acceptance_unread_renders_the_document_first(demo) -> None:
    agreement = approved()
    accept_agreement(EMPLOYER.get(), agreement, "Ada Tremblay", "Owner", ALL_CONFIRMED)
    version = stored(agreement)
    assert version.accepted_sha256 == version.content_sha256 != ""
    assert AuditEntry.objects.filter(action="agreement.render").count() == 1


def test_a_version_made_after_the_text_was_read_is_not_accepted_with_its_hash(demo) -> None:
    agreement = approved()
    read = version_read(EMPLOYER.get(), agreement)
    accept_agreement(EMPLOYER.get(), agreement, "Ada", "Owner", ALL_CONFIRMED)
    schedule = {**read.schedule, "end_date": "2027-04-30"}
    with transaction.atomic():
        new_version(
            agreement,
            by=SECOND_OFFICER.get(),
            changes={"schedule": schedule},
            reason="change request 1",
            needs_acceptance=True,
        )
    agreement.refresh_from_db()
    entries = changes_audited()
    with pytest.raises(ServiceError) as refused:
        accept_agreement(EMPLOYER.get(), agreement, "Ada", "Owner", ALL_CONFIRMED, "0" * 64)
    assert (refused.value.status, refused.value.code) == (409, "AGREEMENT_CHANGED")
    assert "version 2" in refused.value.message_en
    assert "version 2" in refused.value.message_fr and "\u00a0:" in refused.value.message_fr
    assert stored(agreement).accepted_at is None
    assert not AuditEntry.objects.filter(action="agreement.accept_version").exists()
    assert changes_audited() == entries  # the render of version 2 rolled back with the refusal
    assert AuditEntry.objects.filter(action="refused.accept_agreement").count() == 1
