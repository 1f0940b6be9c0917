"""The employer's dashboard and file show each file's real stage and its next step with a date:
an agreement offered (accept by), accepted (the trainees to confirm, by), completed and paid
(no "Withdraw the application", its claims still linked), in both languages."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from tests import canonical
from tests.addresses import page_path
from tests.conftest import application_body
from tests.personas import EMPLOYER
from tests.service.grants.agreement_helpers import approved
from tests.service.grants.claim_helpers import invited

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.agreements import Agreement, AgreementState, AgreementVersion
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.language import long_date

pytestmark = pytest.mark.django_db


def page(path: str) -> str:
    client = Client()
    client.force_login(EMPLOYER.get())
    answer = client.get(path)
    assert answer.status_code == 200
    return html.unescape(answer.content.decode()).replace("\u00a0", " ").replace("\u202f", " ")


def cell(text: str, element_id: str) -> str:
    start = text.index(f'id="{element_id}"')
    return text[text.index(">", start) + 1 : text.index("</", start)]


def version(agreement: Agreement) -> AgreementVersion:
    return AgreementVersion.objects.get(agreement=agreement, number=agreement.version)


@pytest.mark.parametrize(
    ("language", "stage", "step"),
    [
        ("en", "Agreement offered", "Accept the agreement by"),
        ("fr", "Entente offerte", "Accepter l'entente d'ici le"),
    ],
)
def test_an_offered_agreement_says_accept_it_by_its_date(
    demo: None, language: str, stage: str, step: str
) -> None:
    agreement = approved()
    pk = agreement.application_id
    due = long_date(timezone.localtime(version(agreement).accept_by).date(), language)
    dashboard = page(page_path(language, "/employer/"))
    assert cell(dashboard, f"stage-{pk}") == stage
    assert cell(dashboard, f"next-step-{pk}") == f"{step} {due}"
    detail = page(page_path(language, f"/employer/applications/{pk}/"))
    assert cell(detail, "application-state") == stage
    assert cell(detail, "application-next-step") == f"{step} {due}"
    assert 'id="withdraw-application"' in detail  # an offer not yet accepted may be withdrawn


def test_an_accepted_agreement_asks_for_the_trainees_by_their_date_and_offers_no_withdrawal(
    demo: None,
) -> None:
    agreement = approved()
    Agreement.objects.filter(pk=agreement.pk).update(state=AgreementState.ACCEPTED)
    invited(agreement.application, 0)
    pk = agreement.application_id
    due = long_date(version(agreement).participants_by, "en")
    dashboard = page("/en/employer/")
    assert cell(dashboard, f"stage-{pk}") == "Agreement accepted"
    assert cell(dashboard, f"next-step-{pk}") == (
        f"Invite the trainees and have them confirm by {due}"
    )
    detail = page(f"/en/employer/applications/{pk}/")
    assert 'id="withdraw-application"' not in detail


@pytest.mark.parametrize(
    ("language", "stage", "link"),
    [
        ("en", "Completed and paid", "Your claims and their payments"),
        ("fr", "Terminé et payé", "Vos demandes de remboursement et leurs paiements"),
    ],
)
def test_a_completed_and_paid_file_says_so_keeps_its_claims_and_cannot_be_withdrawn(
    demo: None, language: str, stage: str, link: str
) -> None:
    application = canonical.put("completed")  # its final claim paid, its report submitted
    assert Agreement.objects.get(application=application).state == AgreementState.COMPLETED
    dashboard = page(page_path(language, "/employer/"))
    assert cell(dashboard, f"stage-{application.pk}") == stage
    assert cell(dashboard, f"next-step-{application.pk}") == "—"
    detail = page(page_path(language, f"/employer/applications/{application.pk}/"))
    assert 'id="withdraw-application"' not in detail
    assert cell(detail, "agreement-claims") == link
    client = Client()
    client.force_login(EMPLOYER.get())
    answer: Any = client.get(
        page_path(language, f"/employer/applications/{application.pk}/withdraw/")
    )
    assert answer.status_code == 302  # the page says it cannot be withdrawn
    with pytest.raises(ServiceError) as refused:  # nor can the action, whoever calls it
        actions.withdraw_application(EMPLOYER.get(), application, "Too late.")
    assert (refused.value.status, refused.value.code) == (409, "FILE_COMPLETED")
    assert Application.objects.get(pk=application.pk).state == "approved"
    assert AuditEntry.objects.filter(action="refused.withdraw_application").exists()


def raw_page(path: str) -> str:
    client = Client()
    client.force_login(EMPLOYER.get())
    answer = client.get(path)
    assert answer.status_code == 200
    return str(answer.content.decode())


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_dashboard_row_writes_its_next_step_as_the_file_page_does(
    demo: None, language: str
) -> None:
    """The dashboard writes each row's next step in Python (no include per row); the file's
    page through web/employer/_next_step.html: the same HTML, with a date (the French
    apostrophe of "d'ici le" as the template leaves it) and without."""
    agreement = approved()
    submitted = actions.create_application(EMPLOYER.get(), application_body())
    actions.submit_application(EMPLOYER.get(), submitted)
    dashboard = raw_page(page_path(language, "/employer/"))
    for pk in (agreement.application_id, submitted.pk):
        detail = raw_page(page_path(language, f"/employer/applications/{pk}/"))
        assert cell(dashboard, f"next-step-{pk}") == cell(detail, "application-next-step")
    assert cell(dashboard, f"next-step-{agreement.application_id}").endswith(
        long_date(timezone.localtime(version(agreement).accept_by).date(), language)
    )
