"""An organization's telephone number, changed by its administrator: the page in English and in
French (the number normalized, the change audited, a bad number refused naming the field and
writing nothing), refused to a member who does not administer it, and the related-provider flag
by telephone worked out again on the organization's undecided files."""

from __future__ import annotations

import pytest
from tests.addresses import page_path
from tests.conftest import application_body, changes_audited
from tests.personas import APPLICANT, EMPLOYER, OUTSIDER_EMPLOYER, PARTNER_EMPLOYER
from tests.service.grants.claim_helpers import refusal
from tests.web.reading import signed_in, text

from jobgrant.service.accounts.models import Membership, User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.integrity.telephone import set_phone
from jobgrant.service.grants.models.integrity import FlagKind, FlagState, RiskFlag
from jobgrant.service.registry.models import Employer

pytestmark = pytest.mark.django_db


def address(language: str, employer: Employer) -> str:
    return page_path(language, f"/employer/organizations/{employer.pk}/telephone/")


def phone_of(employer: Employer) -> str:
    return Employer.objects.get(pk=employer.pk).phone


@pytest.mark.parametrize(
    ("language", "saved", "back"),
    [
        ("en", "The telephone number is saved.", "Back to the organization"),
        ("fr", "Le numéro de téléphone est enregistré.", "Retour à l'organisation"),
    ],
)
def test_the_administrator_changes_the_number_normalized_and_audited(
    language: str, saved: str, back: str
) -> None:
    employer = APPLICANT.get()
    Employer.objects.filter(pk=employer.pk).update(phone="")  # registered before it was asked
    client = signed_in(EMPLOYER.username)
    members = text(client.get(page_path(language, f"/employer/organizations/{employer.pk}/")))
    assert 'id="phone-link"' in members and address(language, employer) in members
    done = client.post(address(language, employer), {"phone": "+1 (905) 555.0142"})
    assert done.status_code == 302 and done["Location"] == address(language, employer)
    assert phone_of(employer) == "905-555-0142"
    entry = AuditEntry.objects.get(action="organization.set_phone")
    assert (entry.actor, entry.object_type, entry.object_id) == (
        EMPLOYER.username,
        "employer",
        str(employer.pk),
    )
    assert entry.summary == {"phone": "905-555-0142", "previous_phone": ""}
    page = text(client.get(address(language, employer)))
    assert saved in page and back in page and 'id="next-step"' in page
    assert "905-555-0142" in page
    shown = text(client.get(page_path(language, f"/employer/organizations/{employer.pk}/")))
    assert "905-555-0142" in shown


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            "Organization's telephone number: must be a telephone number of 10 digits",
        ),
        (
            "fr",
            "Numéro de téléphone de l'organisation : doit être un numéro de téléphone de 10 "
            "chiffres",
        ),
    ],
)
def test_a_bad_number_is_refused_naming_the_field_and_nothing_is_written(
    language: str, words: str
) -> None:
    employer = APPLICANT.get()
    Employer.objects.filter(pk=employer.pk).update(phone="905-555-0100")
    before = changes_audited()
    answer = signed_in(EMPLOYER.username).post(address(language, employer), {"phone": "555-01"})
    assert answer.status_code == 422
    page = text(answer)
    assert 'id="error-summary"' in page and 'href="#phone"' in page
    assert words in page
    assert 'aria-invalid="true"' in page and 'value="555-01"' in page  # shown back to fix it
    assert phone_of(employer) == "905-555-0100"
    assert changes_audited() == before


def test_the_same_number_again_changes_nothing_and_records_nothing() -> None:
    employer = APPLICANT.get()
    Employer.objects.filter(pk=employer.pk).update(phone="905-555-0100")
    before = changes_audited()
    set_phone(EMPLOYER.get(), employer, {"phone": "905 555 0100"})
    assert changes_audited() == before


def test_a_member_who_does_not_administer_the_organization_is_refused() -> None:
    employer = APPLICANT.get()
    Employer.objects.filter(pk=employer.pk).update(phone="905-555-0100")
    Membership.objects.filter(user=User.objects.get(username=EMPLOYER.username)).update(
        role="member"
    )
    member = signed_in(EMPLOYER.username)
    assert member.get(address("en", employer)).status_code == 404
    assert member.post(address("en", employer), {"phone": "905-555-0199"}).status_code == 404
    members = text(member.get(page_path("en", f"/employer/organizations/{employer.pk}/")))
    assert "905-555-0100" in members and 'id="phone-link"' not in members
    other = signed_in(PARTNER_EMPLOYER.username)
    assert other.get(address("en", employer)).status_code == 404
    error = refusal(lambda: set_phone(OUTSIDER_EMPLOYER.get(), employer, {"phone": "9055550199"}))
    assert error.status == 403
    assert AuditEntry.objects.filter(action="refused.set_phone").count() == 1
    assert phone_of(employer) == "905-555-0100"


def test_a_change_of_number_raises_or_lapses_the_related_provider_flag() -> None:
    employer = APPLICANT.get()
    Employer.objects.filter(pk=employer.pk).update(phone="")
    body = application_body()
    body["declarations"]["provider_phone"] = "905-555-0120"
    application = actions.create_application(EMPLOYER.get(), body)
    actions.submit_application(EMPLOYER.get(), application)
    by_phone = RiskFlag.objects.filter(
        application=application, kind=FlagKind.RELATED_PROVIDER, subject=f"phone:{employer.pk}"
    )
    assert not by_phone.exists()
    set_phone(EMPLOYER.get(), employer, {"phone": "(905) 555-0120"})
    [flag] = by_phone
    assert flag.state == FlagState.OPEN and flag.figures["phone"] == "905-555-0120"
    set_phone(EMPLOYER.get(), employer, {"phone": "905-555-0199"})
    flag.refresh_from_db()
    assert flag.state == FlagState.LAPSED
