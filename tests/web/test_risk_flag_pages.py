"""The risk flags on pages: the officer's review shows each with why and a form to clear it (in
English and in French), clearing needs what was checked; the flags per intake and per provider
for officers, auditors and analysts (counts only); an organization's direct-deposit account."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.conftest import application_body
from tests.personas import (
    ANALYST,
    APPLICANT,
    AUDITOR,
    EMPLOYER,
    OFFICER,
    OUTSIDER,
    OUTSIDER_EMPLOYER,
    PARTNER_EMPLOYER,
)

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.integrity.direct_deposit import set_bank_account
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.integrity import FlagState, RiskFlag
from jobgrant.service.registry.models import Employer

pytestmark = pytest.mark.django_db
ACCOUNT = {"institution": "003", "transit": "01234", "account": "1234567"}


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def text(response: Any) -> str:
    return html.unescape(response.content.decode()).replace("\u00a0", " ").replace("\u202f", " ")


def flagged() -> tuple[Application, RiskFlag]:
    """A submitted file whose applicant shares its bank account with an outside organization."""
    set_bank_account(EMPLOYER.get(), APPLICANT.get(), ACCOUNT)
    set_bank_account(OUTSIDER_EMPLOYER.get(), OUTSIDER.get(), ACCOUNT)
    application = actions.create_application(EMPLOYER.get(), application_body())
    actions.submit_application(EMPLOYER.get(), application)
    return application, RiskFlag.objects.get(application=application)


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ("Risk flags", "Bank account shared with another employer", "003-01234-****4567")),
        ("fr", ("Signalements de risque", "Compte bancaire commun", "003-01234-****4567")),
    ],
)
def test_the_review_shows_each_flag_with_why_and_a_form_to_clear_it(
    language: str, words: tuple[str, ...]
) -> None:
    application, flag = flagged()
    page = signed_in(OFFICER.username).get(
        page_path(language, f"/officer/applications/{application.pk}/")
    )
    assert page.status_code == 200
    shown = text(page)
    for word in words:
        assert word in shown
    assert OUTSIDER.name in shown
    assert f'id="clear-flag-{flag.pk}"' in shown
    assert "1234567" not in shown


def test_clearing_through_the_page_needs_what_was_checked_then_clears_and_audits() -> None:
    application, flag = flagged()
    officer = signed_in(OFFICER.username)
    address = page_path("en", f"/officer/risk-flags/{flag.pk}/clear/")
    refused = officer.post(address, {f"flag-{flag.pk}-reason": "  "})
    assert refused.status_code == 422
    assert "is required to clear a flag" in text(refused)
    assert RiskFlag.objects.get(pk=flag.pk).state == FlagState.OPEN
    done = officer.post(address, {f"flag-{flag.pk}-reason": "The account is the holding's."})
    assert done.status_code == 302
    assert done["Location"].endswith(f"/officer/applications/{application.pk}/#risk-flags")
    assert RiskFlag.objects.get(pk=flag.pk).state == FlagState.CLEARED
    assert AuditEntry.objects.filter(action="risk_flag.clear").count() == 1
    review = text(officer.get(page_path("en", f"/officer/applications/{application.pk}/")))
    assert "You cleared a risk flag on application" in review
    assert "The account is the holding's." in review


def test_recommending_on_the_page_with_an_open_flag_says_why() -> None:
    application, _flag = flagged()
    answer = signed_in(OFFICER.username).post(
        page_path("fr", f"/officer/applications/{application.pk}/decision/"),
        {"action": "recommend", "note": ""},
    )
    assert answer.status_code == 409
    assert "Signalements de risque encore ouverts dans ce dossier : 1." in text(answer)
    assert Application.objects.get(pk=application.pk).state == "submitted"


def test_the_flag_page_in_french_has_a_french_address() -> None:
    _application, flag = flagged()
    address = page_path("fr", f"/officer/risk-flags/{flag.pk}/clear/")
    assert address == f"/fr/agent/signalements/{flag.pk}/lever/" or "signalements" in address
    page = signed_in(OFFICER.username).get(address)
    assert page.status_code == 200
    assert "Lever ce signalement" in text(page)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_flags_per_provider_list_the_flags_for_an_officer_and_an_auditor(
    language: str,
) -> None:
    _application, _flag = flagged()
    for who in (OFFICER, AUDITOR):
        page = signed_in(who.username).get(
            page_path(language, "/reports/risk-flags/"), {"provider": "MOHAWK college"}
        )
        assert page.status_code == 200
        shown = text(page)
        assert 'id="count-shared_bank_account"' in shown
        assert 'id="listed-flag-' in shown
        assert "Mohawk College" in shown


def test_an_analyst_reads_the_counts_and_never_a_flag_or_its_file() -> None:
    _application, _flag = flagged()
    page = signed_in(ANALYST.username).get(page_path("en", "/reports/risk-flags/"))
    assert page.status_code == 200
    shown = text(page)
    assert 'id="count-shared_bank_account"' in shown
    assert "listed-flag-" not in shown
    assert OUTSIDER.name not in shown


def test_an_employer_cannot_open_the_flags() -> None:
    page = signed_in(EMPLOYER.username).get(page_path("en", "/reports/risk-flags/"))
    assert page.status_code == 403


@pytest.mark.parametrize("language", ["en", "fr"])
def test_an_administrator_gives_the_account_and_sees_it_masked(language: str) -> None:
    employer = APPLICANT.get()
    client = signed_in(EMPLOYER.username)
    address = page_path(language, f"/employer/organizations/{employer.pk}/bank-account/")
    bad = client.post(address, {"institution": "3", "transit": "01234", "account": "1234567"})
    assert bad.status_code == 422
    assert "1234567" not in text(bad)  # the account number typed is never shown back
    done = client.post(address, ACCOUNT)
    assert done.status_code == 302
    page = text(client.get(address))
    assert "003-01234-****4567" in page and "1234567" not in page
    assert Employer.objects.get(pk=employer.pk).bank_account_last_digits == "4567"


def test_a_member_who_does_not_administer_the_organization_has_no_account_page() -> None:
    from jobgrant.service.accounts.models import Membership

    employer = APPLICANT.get()
    Membership.objects.filter(user=User.objects.get(username=EMPLOYER.username)).update(
        role="member"
    )
    page = signed_in(EMPLOYER.username).get(
        page_path("en", f"/employer/organizations/{employer.pk}/bank-account/")
    )
    assert page.status_code == 404
    other = signed_in(PARTNER_EMPLOYER.username).get(
        page_path("en", f"/employer/organizations/{employer.pk}/bank-account/")
    )
    assert other.status_code == 404
