"""A consortium partner's consent (grants.partner_actions, /api/v1/partner-requests and the
partner's pages): asked when named, answered by the partner's administrator, required to submit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.personas import (
    APPLICANT,
    EMPLOYER,
    OUTSIDER_EMPLOYER,
    PARTNER,
    PARTNER_EMPLOYER,
)
from tests.service.grants.applications.test_partner_consent_findings import consortium

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.partners import PartnerConsent
from jobgrant.service.notifications.models import Message

pytestmark = pytest.mark.django_db


@pytest.fixture
def named(demo: None) -> Application:
    """A consortium application by someone acting for the applicant only: its partner is asked."""
    user = User.objects.create_user(
        "applicant-only", email="applicant-only@example.com", role=Role.EMPLOYER
    )
    user.employers.add(APPLICANT.get())
    return actions.create_application(user, consortium())


def consent_of(application: Application) -> PartnerConsent:
    return PartnerConsent.objects.get(link__application=application)


def test_the_partners_administrators_are_asked_by_message(named: Application) -> None:
    consent = consent_of(named)
    assert consent.state == "pending"
    message = Message.objects.get(kind="partner_request", recipient=PARTNER_EMPLOYER.get().email)
    assert APPLICANT.name in message.body and f"/partner-requests/{consent.pk}/" in message.body
    assert AuditEntry.objects.filter(action="partner.ask", object_id=str(consent.pk)).exists()


def test_naming_an_organization_one_administers_is_consent_at_once(demo: None) -> None:
    application = actions.create_application(EMPLOYER.get(), consortium())
    assert consent_of(application).state == "accepted"
    assert not Message.objects.filter(kind="partner_request").exists()
    actions.submit_application(EMPLOYER.get(), application)


def test_once_the_partner_accepts_through_the_api_the_application_is_submitted(
    named: Application, as_user: Callable[..., Any]
) -> None:
    consent = consent_of(named)
    listed = as_user(PARTNER_EMPLOYER).get("/partner-requests").json()
    assert [r["id"] for r in listed] == [consent.pk]
    assert listed[0]["lead_name"] == APPLICANT.name and listed[0]["state"] == "pending"
    answer = as_user(PARTNER_EMPLOYER).post(f"/partner-requests/{consent.pk}/accept", key="a-1")
    assert answer.status_code == 200, answer.content
    assert answer.json()["state"] == "accepted"
    author = named.created_by
    told = Message.objects.get(kind="partner_decision", recipient=author.email)
    assert "accepted" in told.subject_line
    submitted = as_user(author.username).post(f"/applications/{named.pk}/submit")
    assert submitted.status_code == 200 and submitted.json()["state"] == "submitted"


def test_a_declined_partner_keeps_the_application_in_draft_for_good(
    named: Application, as_user: Callable[..., Any]
) -> None:
    consent = consent_of(named)
    declined = as_user(PARTNER_EMPLOYER).post(f"/partner-requests/{consent.pk}/decline")
    assert declined.json()["state"] == "declined"
    again = as_user(PARTNER_EMPLOYER).post(f"/partner-requests/{consent.pk}/accept")
    assert (again.status_code, again.json()["code"]) == (409, "PARTNER_ALREADY_ANSWERED")
    submitted = as_user(named.created_by.username).post(f"/applications/{named.pk}/submit")
    assert submitted.status_code == 409
    assert AuditEntry.objects.filter(action="refused.partner.accept").exists()


def test_nobody_else_can_see_or_answer_a_request(
    named: Application, as_user: Callable[..., Any]
) -> None:
    consent = consent_of(named)
    for who in (OUTSIDER_EMPLOYER, named.created_by.username):
        assert as_user(who).get("/partner-requests").json() == []
        answer = as_user(who).post(f"/partner-requests/{consent.pk}/accept")
        assert answer.status_code == 404
    assert consent_of(named).state == "pending"
    refused = AuditEntry.objects.filter(action="refused.partner.open")
    assert refused.count() == 2


def test_a_member_who_is_not_an_administrator_cannot_answer(
    named: Application, as_user: Callable[..., Any]
) -> None:
    member = User.objects.create_user("partner-member", role=Role.EMPLOYER)
    member.employers.add(PARTNER.get())  # a plain member
    consent = consent_of(named)
    assert as_user(member.username).post(f"/partner-requests/{consent.pk}/accept").status_code == (
        404
    )


def test_the_partners_page_shows_its_share_and_accepts(named: Application) -> None:
    consent = consent_of(named)
    client = Client()
    client.force_login(PARTNER_EMPLOYER.get())
    for language in ("en", "fr"):
        page = client.get(page_path(language, f"/employer/partner-requests/{consent.pk}/"))
        assert page.status_code == 200
        assert APPLICANT.name in page.content.decode()
    listed = client.get("/en/employer/partner-requests/").content.decode()
    assert f"/en/employer/partner-requests/{consent.pk}/" in listed
    answer = client.post(f"/en/employer/partner-requests/{consent.pk}/")
    assert answer.status_code == 302
    assert consent_of(named).state == "accepted"


def test_declining_on_the_pages_asks_first(named: Application) -> None:
    consent = consent_of(named)
    client = Client()
    client.force_login(PARTNER_EMPLOYER.get())
    asked = client.get(f"/en/employer/partner-requests/{consent.pk}/decline/")
    assert asked.status_code == 200 and "cannot be undone" in asked.content.decode()
    assert consent_of(named).state == "pending"
    client.post(f"/en/employer/partner-requests/{consent.pk}/decline/")
    assert consent_of(named).state == "declined"


def test_the_applicants_page_says_who_has_not_accepted(named: Application) -> None:
    client = Client()
    client.force_login(named.created_by)
    page = client.get(f"/en/employer/applications/{named.pk}/").content.decode()
    assert "Waiting for the consortium partners" in page
    assert PARTNER.business_number in page
    assert 'id="submit-application"' not in page


@pytest.mark.parametrize("answer", ["accept", "decline"])
def test_a_body_that_is_not_json_is_a_declared_400_and_answers_nothing(
    named: Application, as_user: Callable[..., Any], answer: str
) -> None:
    consent = consent_of(named)
    refused = as_user(PARTNER_EMPLOYER).post(f"/partner-requests/{consent.pk}/{answer}", "{not")
    assert refused.status_code == 400, refused.content
    consent.refresh_from_db()
    assert consent.state == "pending"
