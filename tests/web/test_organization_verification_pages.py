"""The pages of an organization's verification, in English and French: the administrator uploads
the business registration document from the organization's page; the officer's queue, the
organization's page, its documents and decisions; the dispute page the "already registered"
message links to; "Unverified" on the officer's file. Bad input names the field, writes nothing."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from tests.addresses import page_path
from tests.conftest import application_body, applications, declare
from tests.personas import APPLICANT, EMPLOYER, OFFICER
from tests.service.people.test_organization_verification import FILED, dispute_token, document

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.demo_history.receipt import one_page_pdf
from jobgrant.service.grants.applications import actions
from jobgrant.service.people import organization_verification as verification
from jobgrant.service.registry.models import Employer, Verification

pytestmark = pytest.mark.django_db


def signed_in(persona: Any) -> Client:
    client = Client()
    client.force_login(persona.get())
    return client


def unverified() -> Employer:
    Employer.objects.filter(pk=APPLICANT.get().pk).update(verification=Verification.UNVERIFIED)
    return APPLICANT.get()


def pdf(name: str = "registration.pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, one_page_pdf("Ontario Business Registry"), "application/pdf")


@pytest.mark.parametrize(
    ("language", "state", "sent"),
    [
        ("en", "Unverified", "Your document was received."),
        ("fr", "Non vérifiée", "Votre document a été reçu."),
    ],
)
def test_the_administrator_uploads_the_document_from_the_organizations_page(
    demo: None, language: str, state: str, sent: str
) -> None:
    employer = unverified()
    client = signed_in(EMPLOYER)
    page = client.get(
        page_path(language, f"/employer/organizations/{employer.pk}/")
    ).content.decode()
    assert state in page and 'id="proof-form"' in page
    listed = client.get(page_path(language, "/employer/organizations/")).content.decode()
    assert state in listed
    answer = client.post(
        page_path(language, f"/employer/organizations/{employer.pk}/proof/"), {"file": pdf()}
    )
    assert answer.status_code == 302
    after = client.get(answer["Location"]).content.decode()
    assert sent in after and "registration.pdf" in after
    assert employer.proofs.count() == 1


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "must be a PDF, PNG or JPEG file"), ("fr", "doit être un fichier PDF")],
)
def test_a_file_that_is_not_a_document_is_named_and_nothing_is_kept(
    demo: None, language: str, words: str
) -> None:
    employer = unverified()
    fake = SimpleUploadedFile("registration.pdf", b"MZ\x90\x00 an executable", "application/pdf")
    answer = signed_in(EMPLOYER).post(
        page_path(language, f"/employer/organizations/{employer.pk}/proof/"), {"file": fake}
    )
    page = answer.content.decode()
    assert answer.status_code == 422 and words in page and 'href="#file"' in page
    assert not employer.proofs.exists()


def test_the_officer_verifies_from_the_queue(demo: None) -> None:
    employer = unverified()
    proof = verification.upload_proof(EMPLOYER.get(), employer, document())
    officer = signed_in(OFFICER)
    queue = officer.get("/en/officer/organizations/").content.decode()
    assert f'id="open-organization-{employer.pk}"' in queue
    assert 'id="to-organizations"' in officer.get("/en/officer/").content.decode()
    page = officer.get(page_path("fr", f"/officer/organizations/{employer.pk}/")).content.decode()
    assert "Non vérifiée" in page and f'id="document-{proof.pk}"' in page
    download = officer.get(f"/en/officer/organizations/{employer.pk}/documents/{proof.pk}/")
    assert download.status_code == 200 and download["Content-Type"] == "application/pdf"
    assert download["X-Content-Type-Options"] == "nosniff"
    decide = f"/en/officer/organizations/{employer.pk}/decision/"
    missing = officer.post(decide, {"action": "verify", "method": "document", "proof": proof.pk})
    assert missing.status_code == 422 and "What you checked" in missing.content.decode()
    assert Employer.objects.get(pk=employer.pk).verification == "unverified"
    done = officer.post(
        decide, {"action": "verify", "method": "document", "proof": proof.pk, "note": "Match."}
    )
    assert done.status_code == 302
    shown = officer.get(done["Location"]).content.decode()
    assert "You verified this organization." in shown
    assert Employer.objects.get(pk=employer.pk).verification == "verified"
    assert AuditEntry.objects.filter(action="organization.verify", actor=OFFICER.username).exists()


def test_the_officer_refuses_with_a_reason(demo: None) -> None:
    employer = unverified()
    officer = signed_in(OFFICER)
    decide = page_path("fr", f"/officer/organizations/{employer.pk}/decision/")
    empty = officer.post(decide, {"action": "refuse", "refuse-reason": ""})
    assert empty.status_code == 422 and "est obligatoire pour refuser" in empty.content.decode()
    done = officer.post(decide, {"action": "refuse", "refuse-reason": "Le nom diffère."})
    assert done.status_code == 302
    assert Employer.objects.get(pk=employer.pk).verification == "refused"


def test_the_language_button_keeps_the_reason_typed_and_decides_nothing(demo: None) -> None:
    """The officer's refusal reason, typed in English, is shown back on the French page: no
    error, nothing decided (ADR 0039)."""
    employer = unverified()
    officer = signed_in(OFFICER)
    page = officer.get(page_path("en", f"/officer/organizations/{employer.pk}/")).content.decode()
    assert 'id="switch-language-refuse"' in page and 'id="switch-language-verify"' in page
    entries = AuditEntry.objects.count()
    decide = page_path("fr", f"/officer/organizations/{employer.pk}/decision/")
    typed = {"action": "refuse", "refuse-reason": "The name differs.", "switch-language": "yes"}
    switched = officer.post(decide, typed)
    text = switched.content.decode()
    assert switched.status_code == 200 and "The name differs." in text
    assert "gcds-error-summary" not in text and 'lang="fr"' in text
    assert Employer.objects.get(pk=employer.pk).verification == "unverified"
    assert AuditEntry.objects.count() == entries


def test_the_officers_file_says_unverified(demo: None) -> None:
    application = actions.create_application(EMPLOYER.get(), application_body())
    actions.submit_application(EMPLOYER.get(), application)
    employer = unverified()
    page = signed_in(OFFICER).get(f"/en/officer/applications/{application.pk}/").content.decode()
    assert f'id="unverified-{employer.pk}"' in page and "Unverified" in page


def test_the_submission_refused_on_the_employers_page_says_why(demo: None) -> None:
    unverified()
    application = actions.create_application(EMPLOYER.get(), application_body())
    client = signed_in(EMPLOYER)
    answer = client.post(
        f"/en/employer/applications/{application.pk}/submit/", {"confirm": "yes"}, follow=True
    )
    page = answer.content.decode()
    assert "not verified yet" in page or "must verify" in page, page[:2000]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_dispute_is_filed_from_the_link(demo: None, language: str) -> None:
    token = dispute_token()
    client = Client()
    page = client.get(page_path(language, f"/dispute/{token}/"))
    assert page.status_code == 200 and 'id="dispute-form"' in page.content.decode()
    empty = client.post(page_path(language, f"/dispute/{token}/"), {"name": ""})
    assert empty.status_code == 422
    assert APPLICANT.get().verification == "verified"
    filed = client.post(
        page_path(language, f"/dispute/{token}/"), {**FILED, "file": pdf("cra.pdf")}
    )
    assert filed.status_code == 302 and filed["Location"] == page_path(language, "/dispute-filed/")
    assert client.get(filed["Location"]).status_code == 200
    assert APPLICANT.get().verification == "disputed"
    assert client.get(page_path(language, f"/dispute/{token}/")).status_code == 404  # used once
    assert client.get(page_path(language, "/dispute/not-a-token/")).status_code == 404


def test_the_officer_resolves_a_dispute(demo: None) -> None:
    dispute = verification.file_dispute(dispute_token(), FILED, document())
    officer = signed_in(OFFICER)
    employer = APPLICANT.get()
    page = officer.get(f"/en/officer/organizations/{employer.pk}/").content.decode()
    assert "Rosa Birch" in page and 'id="resolve-form"' in page
    done = officer.post(
        f"/en/officer/organizations/{employer.pk}/decision/",
        {
            "action": "resolve",
            "dispute": dispute.pk,
            "resolve-outcome": "dismissed",
            "resolve-reason": "The registry names the registrant.",
        },
    )
    assert done.status_code == 302
    assert APPLICANT.get().verification == "verified"


def test_an_officer_of_another_jurisdiction_does_not_find_the_organization(demo: None) -> None:
    from tests.personas import OTHER_JURISDICTION_OFFICER

    employer = unverified()
    answer = signed_in(OTHER_JURISDICTION_OFFICER).get(f"/en/officer/organizations/{employer.pk}/")
    assert answer.status_code == 404
    assert re.search(
        r"refused\.organization\.review",
        " ".join(AuditEntry.objects.values_list("action", flat=True)),
    )


def test_the_verification_entries_are_in_words_in_both_languages(demo: None) -> None:
    from django.utils import translation

    from jobgrant.service.web.audit_entries import FIELD_LABELS, action_label, details

    employer = unverified()
    verification.upload_proof(EMPLOYER.get(), employer, document())
    verification.refuse_organization(OFFICER.get(), employer, "The name differs.")
    proof = verification.upload_proof(EMPLOYER.get(), employer, document())
    verification.verify_organization(
        OFFICER.get(), employer, {"method": "document", "proof": proof.pk, "note": "Match."}
    )
    dispute = verification.file_dispute(dispute_token(), FILED, document())
    verification.resolve_dispute(OFFICER.get(), employer, dispute.pk, "dismissed", "Theirs.")
    entries = list(AuditEntry.objects.filter(action__startswith="organization."))
    assert {e.action for e in entries} >= {
        "organization.upload_proof",
        "organization.refuse",
        "organization.verify",
        "organization.dispute",
        "organization.resolve_dispute",
    }
    for entry in entries:
        assert set(entry.summary) <= set(FIELD_LABELS), entry.summary
        with translation.override("fr"):
            assert action_label(entry.action) != entry.action
            shown = " ".join(value for _name, value in details(entry))
        assert "verified" not in shown and "document" not in shown.split(), shown


@pytest.mark.parametrize(
    ("lang", "words"), [("en", "must verify"), ("fr", "Un agent doit vérifier")]
)
def test_the_wizard_keeps_an_unverified_organizations_application_as_a_draft(
    demo: None, lang: str, words: str
) -> None:
    from tests.web.test_employer_apply import through_training, trainee, trainees_form

    from jobgrant.service.grants.models.applications import FormDraft

    unverified()
    client = signed_in(EMPLOYER)
    through_training(client, lang)
    rows = trainees_form(trainee(0, APPLICANT.business_number))
    assert client.post(page_path(lang, "/employer/apply/trainees/"), rows).status_code == 302
    declare(client, lang)
    answer = client.post(
        page_path(lang, "/employer/apply/review/"), {"confirm": "yes", "action": "submit"}
    )
    application = applications().get()
    assert application.state == "draft"
    assert answer["Location"] == page_path(lang, f"/employer/applications/{application.pk}/")
    assert words in client.get(answer["Location"]).content.decode()
    assert not FormDraft.objects.exists()  # the draft is the application now, not lost twice
    again = client.post(page_path(lang, "/employer/apply/review/"), {"confirm": "yes"})
    assert again.status_code == 302 and applications().count() == 1
