"""An organization is unverified until an officer verifies it (people/organization_verification.py):
it saves drafts but submits nothing, hears of no partner's request; its administrator uploads a
document, an officer verifies or refuses it (audited, e-mailed); someone who says they are the
business disputes the registration from the "already registered" message."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from tests.conftest import application_body
from tests.personas import (
    APPLICANT,
    EMPLOYER,
    FINANCE,
    OFFICER,
    OTHER_JURISDICTION_OFFICER,
    PARTNER,
    PARTNER_EMPLOYER,
    SECOND_OFFICER,
)
from tests.service.people.test_organizations import registration

from jobgrant.service.accounts.models import (
    Membership,
    OrganizationInvitation,
    OrganizationRole,
    Role,
    User,
    VerificationDecision,
)
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.demo_history.receipt import one_page_pdf
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.partners import PartnerConsent
from jobgrant.service.notifications.models import Message
from jobgrant.service.people import organization_verification as verification
from jobgrant.service.people import organizations
from jobgrant.service.registry.models import Employer, Verification
from jobgrant.service.uploads import checked

pytestmark = pytest.mark.django_db
LINK = re.compile(r"https?://\S+/dispute/(\S+)/")


def document(name: str = "registration.pdf", content: bytes | None = None) -> Any:
    upload = SimpleUploadedFile(
        name, one_page_pdf("Business registry") if content is None else content
    )
    return checked(upload, "file", default="document")


def unverified(organization: Any = APPLICANT) -> Employer:
    Employer.objects.filter(pk=organization.get().pk).update(verification=Verification.UNVERIFIED)
    return organization.get()


def refusals(name: str) -> int:
    return AuditEntry.objects.filter(action=f"refused.{name}").count()


# --- The state ------------------------------------------------------------------------------


def test_a_new_registration_is_unverified_and_the_demonstrations_are_verified(demo: None) -> None:
    organizations.register_organization(registration(), language="en")
    assert Employer.objects.get(business_number="123456782").verification == "unverified"
    assert Employer.objects.get(name="Acme Precision Machining").verification == "verified"
    assert Employer.objects.create(
        business_number="046454286", name="X", employees=1, jurisdiction="ON"
    ).verification == ("unverified")


def test_the_migration_verifies_the_organizations_registered_before_it(demo: None) -> None:
    from importlib import import_module

    migration = import_module("jobgrant.service.registry.migrations.0005_organization_verification")
    Employer.objects.update(verification="unverified")
    migration.verify_existing(apps, None)
    assert set(Employer.objects.values_list("verification", flat=True)) == {"verified"}


# --- Unverified: drafts only ----------------------------------------------------------------


def test_an_unverified_organization_saves_a_draft_but_cannot_submit_it(demo: None) -> None:
    unverified()
    application = actions.create_application(EMPLOYER.get(), application_body())
    before = refusals("submit_application")
    with pytest.raises(ServiceError) as refused:
        actions.submit_application(EMPLOYER.get(), application)
    error = refused.value
    assert (error.status, error.code) == (403, "ORGANIZATION_NOT_VERIFIED")
    assert (
        APPLICANT.name in error.message_en and "business registration document" in error.message_en
    )
    assert "document d'enregistrement" not in error.message_en
    assert APPLICANT.name in error.message_fr and "Votre ébauche est conservée" in error.message_fr
    assert refusals("submit_application") == before + 1
    assert Application.objects.get(pk=application.pk).state == "draft"


def test_the_api_refuses_the_submission_with_a_403_naming_what_to_do(
    demo: None, as_user: Callable[..., Any]
) -> None:
    unverified()
    api = as_user(EMPLOYER)
    created = api.post("/applications", application_body())
    assert created.status_code == 201, created.content
    answer = api.post(f"/applications/{created.json()['id']}/submit")
    assert answer.status_code == 403
    assert answer.json()["code"] == "ORGANIZATION_NOT_VERIFIED"
    assert APPLICANT.business_number in answer.json()["organizations"]


def test_a_disputed_organization_cannot_submit_either(demo: None) -> None:
    Employer.objects.filter(pk=APPLICANT.get().pk).update(verification="disputed")
    application = actions.create_application(EMPLOYER.get(), application_body())
    with pytest.raises(ServiceError) as refused:
        actions.submit_application(EMPLOYER.get(), application)
    assert (refused.value.status, refused.value.code) == (403, "ORGANIZATION_DISPUTED")


def test_a_verified_organization_submits(demo: None) -> None:
    application = actions.create_application(EMPLOYER.get(), application_body())
    assert actions.submit_application(EMPLOYER.get(), application).state == "submitted"


def consortium() -> dict[str, Any]:
    body = application_body()
    body["employers"].append({"id": "partner", "business_number": PARTNER.business_number})
    body["trainees"].append({**body["trainees"][0], "employer_id": "partner"})
    return body


def applicant_only() -> User:
    user = User.objects.create_user("applicant-only", email="only@example.com", role=Role.EMPLOYER)
    user.employers.add(APPLICANT.get())
    return user


def test_no_partner_request_reaches_an_unverified_organization(demo: None) -> None:
    partner = unverified(PARTNER)
    application = actions.create_application(applicant_only(), consortium())
    consent = PartnerConsent.objects.get(link__application=application)
    assert consent.state == "pending"
    assert not Message.objects.filter(kind="partner_request").exists()
    assert not access.visible_partner_requests(PARTNER_EMPLOYER.get()).exists()
    entry = AuditEntry.objects.get(action="partner.ask", object_id=str(consent.pk))
    assert entry.summary["routed"] is False
    # Verified, the organization sees the request waiting for it.
    verification.verify_organization(
        OFFICER.get(), partner, {"method": "registry", "note": "Ontario Business Registry: match"}
    )
    assert list(access.visible_partner_requests(PARTNER_EMPLOYER.get())) == [consent]


def test_a_verified_partner_is_asked_as_before(demo: None) -> None:
    actions.create_application(applicant_only(), consortium())
    assert Message.objects.filter(kind="partner_request").exists()


# --- The document and the officer's decisions ------------------------------------------------


def test_an_administrator_uploads_a_document_and_an_officer_verifies_against_it(
    demo: None,
) -> None:
    employer = unverified()
    proof = verification.upload_proof(EMPLOYER.get(), employer, document())
    assert proof.content_type == "application/pdf" and proof.file.read().startswith(b"%PDF-")
    assert AuditEntry.objects.filter(action="organization.upload_proof").exists()
    assert list(verification.verification_queue(OFFICER.get())) == [employer]
    verification.verify_organization(
        OFFICER.get(),
        employer,
        {"method": "document", "proof": proof.pk, "note": "Name and BN match."},
    )
    employer.refresh_from_db()
    assert employer.verification == "verified"
    decision = verification.last_verification(employer)
    assert decision is not None
    assert (decision.decided_by, decision.method, decision.proof) == (
        OFFICER.get(),
        "document",
        proof,
    )
    entry = AuditEntry.objects.get(action="organization.verify", object_id=str(employer.pk))
    assert entry.actor == OFFICER.username and entry.summary["verified_against"] == "document"
    told = Message.objects.get(kind="organization_verified", recipient=EMPLOYER.get().email)
    assert APPLICANT.name in told.body
    assert list(verification.verification_queue(OFFICER.get())) == []
    application = actions.create_application(EMPLOYER.get(), application_body())
    assert actions.submit_application(EMPLOYER.get(), application).state == "submitted"


def test_a_registry_check_needs_the_officers_attestation(demo: None) -> None:
    employer = unverified()
    with pytest.raises(ServiceError) as refused:
        verification.verify_organization(
            OFFICER.get(), employer, {"method": "registry", "note": " "}
        )
    assert refused.value.status == 422
    assert [p["field"] for p in refused.value.problems] == ["note"]
    assert "dites ce que vous avez vérifié" in refused.value.problems[0]["message_fr"]
    employer.refresh_from_db()
    assert employer.verification == "unverified" and not VerificationDecision.objects.exists()
    assert refusals("organization.verify") == 1


def test_a_document_must_be_one_of_the_organizations(demo: None) -> None:
    other = verification.upload_proof(PARTNER_EMPLOYER.get(), unverified(PARTNER), document())
    with pytest.raises(ServiceError) as refused:
        verification.verify_organization(
            OFFICER.get(), unverified(), {"method": "document", "proof": other.pk, "note": "ok"}
        )
    assert [p["field"] for p in refused.value.problems] == ["proof"]


def test_only_an_administrator_uploads_and_a_bad_file_is_named(demo: None) -> None:
    employer = unverified()
    member = User.objects.create_user("member", email="m@example.com", role=Role.EMPLOYER)
    Membership.objects.create(user=member, employer=employer, role=OrganizationRole.MEMBER)
    with pytest.raises(ServiceError) as refused:
        verification.upload_proof(member, employer, document())
    assert refused.value.status == 403 and refusals("organization.upload_proof") == 1
    with pytest.raises(ServiceError) as bad:
        document("registration.pdf", b"MZ\x90\x00 not a pdf")
    assert bad.value.problems[0]["field"] == "file"
    assert not employer.proofs.exists()


@pytest.mark.parametrize(
    ("who", "code"),
    [
        (OTHER_JURISDICTION_OFFICER, "NOT_YOUR_ORGANIZATION_TO_VERIFY"),
        (FINANCE, "ROLE_NOT_ALLOWED"),
        (EMPLOYER, "ROLE_NOT_ALLOWED"),
    ],
)
def test_who_may_not_verify(demo: None, who: Any, code: str) -> None:
    employer = unverified()
    with pytest.raises(ServiceError) as refused:
        verification.verify_organization(who.get(), employer, {"method": "registry", "note": "x"})
    assert (refused.value.status, refused.value.code) == (403, code)
    assert refusals("organization.verify") == 1
    employer.refresh_from_db()
    assert employer.verification == "unverified"


def test_an_affiliated_officer_may_not_verify(demo: None) -> None:
    employer = unverified()
    officer = SECOND_OFFICER.get()
    Membership.objects.create(user=officer, employer=employer)
    with pytest.raises(ServiceError) as refused:
        verification.verify_organization(officer, employer, {"method": "registry", "note": "x"})
    assert refused.value.code == "CONFLICT_OF_INTEREST_ORGANIZATION"


def test_a_refusal_is_told_with_its_reason_and_a_new_document_waits_again(demo: None) -> None:
    employer = unverified()
    verification.upload_proof(EMPLOYER.get(), employer, document())
    verification.refuse_organization(OFFICER.get(), employer, "The name on the document differs.")
    employer.refresh_from_db()
    assert employer.verification == "refused"
    told = Message.objects.get(kind="organization_refused", recipient=EMPLOYER.get().email)
    assert "The name on the document differs." in told.body
    assert AuditEntry.objects.filter(action="organization.refuse").exists()
    assert list(verification.verification_queue(OFFICER.get())) == []
    verification.upload_proof(
        EMPLOYER.get(), employer, document("second.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    )
    employer.refresh_from_db()
    assert employer.verification == "unverified"
    assert list(verification.verification_queue(OFFICER.get())) == [employer]


def test_a_refusal_needs_a_reason_and_a_verified_one_is_not_refused(demo: None) -> None:
    with pytest.raises(ServiceError) as refused:
        verification.refuse_organization(OFFICER.get(), unverified(), "")
    assert [p["field"] for p in refused.value.problems] == ["reason"]
    verified = PARTNER.get()
    with pytest.raises(ServiceError) as late:
        verification.refuse_organization(OFFICER.get(), verified, "no")
    assert (late.value.status, late.value.code) == (409, "VERIFICATION_NOT_POSSIBLE")
    assert "Verified" in late.value.message_en and "Vérifiée" in late.value.message_fr


# --- Disputes --------------------------------------------------------------------------------


def dispute_token(email: str = "real@example.com") -> str:
    organizations.register_organization(
        registration(business_number=APPLICANT.business_number, email=email), language="en"
    )
    message = Message.objects.get(kind="registration_organization_exists", recipient=email)
    found = LINK.search(message.body)
    assert found, message.body
    return found[1]


FILED = {"name": "Rosa Birch", "phone": "905 555 0199", "statement": "I own Birchwood."}


def test_the_already_registered_message_carries_a_link_to_dispute(demo: None) -> None:
    token = dispute_token()
    offer = verification.dispute_offer(token)
    assert offer is not None and offer.employer == APPLICANT.get()
    assert APPLICANT.get().verification == "verified"  # a link is not a dispute


def test_a_dispute_filed_makes_the_organization_disputed_and_queues_it(demo: None) -> None:
    token = dispute_token()
    dispute = verification.file_dispute(token, FILED, document())
    employer = APPLICANT.get()
    assert employer.verification == "disputed" and dispute.state == "open"
    assert dispute.email == "real@example.com" and dispute.documents.count() == 1
    assert list(verification.verification_queue(OFFICER.get())) == [employer]
    entry = AuditEntry.objects.get(action="organization.dispute")
    assert entry.actor == "anonymous" and entry.summary["before"] == "verified"
    with pytest.raises(ServiceError):  # the link works once
        verification.file_dispute(token, FILED, document())
    application = actions.create_application(EMPLOYER.get(), application_body())
    with pytest.raises(ServiceError) as refused:
        actions.submit_application(EMPLOYER.get(), application)
    assert refused.value.code == "ORGANIZATION_DISPUTED"


def test_a_dispute_names_every_missing_field_and_writes_nothing(demo: None) -> None:
    token = dispute_token()
    with pytest.raises(ServiceError) as refused:
        verification.file_dispute(token, {"name": "", "phone": "", "statement": ""}, None)
    assert [p["field"] for p in refused.value.problems] == ["name", "phone", "statement", "file"]
    assert APPLICANT.get().verification == "verified"
    assert verification.dispute_offer(token) is not None


def test_a_dismissed_dispute_puts_the_organization_back(demo: None) -> None:
    dispute = verification.file_dispute(dispute_token(), FILED, document())
    verification.resolve_dispute(
        OFFICER.get(),
        APPLICANT.get(),
        dispute.pk,
        "dismissed",
        "The registry names the registrant.",
    )
    assert APPLICANT.get().verification == "verified"
    assert Membership.objects.filter(employer=APPLICANT.get(), user=EMPLOYER.get()).exists()
    told = Message.objects.get(kind="organization_dispute_resolved", recipient="real@example.com")
    assert "dismissed" in told.subject_line
    entry = AuditEntry.objects.get(action="organization.resolve_dispute")
    assert entry.summary["outcome"] == "dismissed" and entry.actor == OFFICER.username


def test_an_upheld_dispute_hands_the_organization_to_the_disputant(demo: None) -> None:
    dispute = verification.file_dispute(dispute_token(), FILED, document())
    employer = APPLICANT.get()
    verification.resolve_dispute(
        OFFICER.get(), employer, dispute.pk, "upheld", "CRA letter matches."
    )
    employer.refresh_from_db()
    assert employer.verification == "unverified"
    assert not Membership.objects.filter(employer=employer, user__role=Role.EMPLOYER).exists()
    invitation = OrganizationInvitation.objects.get(
        employer=employer, email="real@example.com", revoked_at__isnull=True
    )
    assert invitation.role == "admin"
    assert Message.objects.filter(
        kind="organization_invitation", recipient="real@example.com"
    ).exists()
    assert (
        AuditEntry.objects.get(action="organization.resolve_dispute").summary["members_removed"]
        >= 1
    )
    with pytest.raises(ServiceError) as again:
        verification.resolve_dispute(OFFICER.get(), employer, dispute.pk, "dismissed", "x")
    assert again.value.code == "DISPUTE_NOT_OPEN"


def test_the_demonstration_has_an_organization_waiting_in_the_queue(demo: None) -> None:
    from jobgrant.service.demo import seed_awaiting_verification

    waiting = seed_awaiting_verification()
    assert waiting is not None and waiting.verification == "unverified"
    officer = User.objects.get(username="demo-officer-on-1")
    assert waiting in verification.verification_queue(officer)
    assert waiting.proofs.get().content_type == "application/pdf"
    assert seed_awaiting_verification() is None
