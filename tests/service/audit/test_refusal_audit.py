"""Every refusal is in the audit trail, a 404 as much as a 403, by the API and by the pages."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from tests.personas import EMPLOYER, FEDERAL_OFFICER, FINANCE, OFFICER

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry

pytestmark = pytest.mark.django_db


def last_entry() -> AuditEntry:
    entry = AuditEntry.objects.order_by("-sequence").first()
    assert entry is not None
    return entry


def submitted(as_user: Any, make_body: Any) -> int:
    created = as_user(EMPLOYER).post("/applications", make_body())
    application_id = int(created.json()["id"])
    as_user(EMPLOYER).post(f"/applications/{application_id}/submit")
    return application_id


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def test_an_officer_of_another_government_asking_the_api_for_a_file_is_recorded(
    as_user, make_body
) -> None:
    application_id = submitted(as_user, make_body)
    response = as_user(FEDERAL_OFFICER).get(f"/applications/{application_id}")
    assert response.status_code == 404
    entry = last_entry()
    assert (entry.actor, entry.action) == (FEDERAL_OFFICER.username, "refused.get_visible")
    assert (entry.object_type, entry.object_id) == ("application", str(application_id))
    assert entry.summary == {"code": "NOT_FOUND", "status": 404}
    assert verify().ok


def test_a_decision_on_a_file_out_of_reach_is_recorded_as_a_404(as_user, make_body) -> None:
    application_id = submitted(as_user, make_body)
    response = as_user(FEDERAL_OFFICER).post(f"/applications/{application_id}/recommend")
    assert response.status_code == 404
    assert last_entry().action == "refused.get_visible"


def test_an_officer_page_of_another_jurisdiction_is_a_404_that_is_recorded(
    as_user, make_body
) -> None:
    application_id = submitted(as_user, make_body)
    page = signed_in(FEDERAL_OFFICER.username).get(f"/en/officer/applications/{application_id}/")
    assert page.status_code == 404
    entry = last_entry()
    assert (entry.actor, entry.action, entry.object_id) == (
        FEDERAL_OFFICER.username,
        "refused.get_visible",
        str(application_id),
    )


def test_a_page_of_another_role_is_a_403_that_is_recorded(demo: None) -> None:
    client = signed_in(FINANCE.username)  # the sign-in is an entry of its own
    before = AuditEntry.objects.count()
    page = client.get("/en/officer/")
    assert page.status_code == 403
    assert AuditEntry.objects.count() == before + 1
    entry = last_entry()
    assert (entry.actor, entry.action) == (FINANCE.username, "refused.open_page")
    assert (entry.object_type, entry.object_id) == ("page", "web:officer-queue")
    assert entry.summary == {"code": "ROLE_NOT_ALLOWED", "status": 403}


def test_a_file_the_reader_may_see_records_no_refusal(as_user, make_body) -> None:
    application_id = submitted(as_user, make_body)
    before = AuditEntry.objects.count()
    assert as_user(OFFICER).get(f"/applications/{application_id}").status_code == 200
    assert AuditEntry.objects.count() == before


def test_a_refused_new_application_is_recorded_without_its_body(as_user, make_body) -> None:
    response = as_user(OFFICER).post("/applications", make_body())
    assert response.status_code == 403
    entry = last_entry()
    assert (entry.action, entry.object_type, entry.object_id) == (
        "refused.create_application",
        "application",
        "",
    )
