"""Assignment through /api/v1: an officer takes a file, gives it to a colleague, releases it,
with the officer's page's refusals; every answer checked against the published document."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from tests.personas import (
    APPLICANT,
    EMPLOYER,
    FEDERAL_OFFICER,
    OFFICER,
    OTHER_JURISDICTION_OFFICER,
    SECOND_OFFICER,
)

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application

pytestmark = pytest.mark.django_db
Body = Callable[..., dict[str, Any]]


def submitted(make_body: Body) -> Application:
    employer = EMPLOYER.get()
    lead = [{"id": "acme", "business_number": APPLICANT.business_number}]
    application = actions.create_application(employer, make_body(employers=lead))
    return actions.submit_application(employer, application)


def assignee(application: Application) -> str | None:
    found = Application.objects.select_related("assigned_to").get(pk=application.pk)
    return found.assigned_to.username if found.assigned_to else None


def test_an_officer_takes_a_file_gives_it_to_a_colleague_and_the_colleague_releases_it(
    as_user: Any, make_body: Body
) -> None:
    application = submitted(make_body)
    path = f"/applications/{application.pk}"
    taken = as_user(OFFICER).post(f"{path}/assign", key="take-1")
    assert taken.status_code == 200, taken.content
    assert taken.json() == {
        "id": application.pk,
        "state": "submitted",
        "assigned_to": OFFICER.username,
    }
    given = as_user(OFFICER).post(f"{path}/assign", {"to": SECOND_OFFICER.username}, key="give-1")
    assert given.status_code == 200, given.content
    assert given.json()["assigned_to"] == SECOND_OFFICER.username
    assert assignee(application) == SECOND_OFFICER.username
    released = as_user(SECOND_OFFICER).post(f"{path}/release", key="release-1")
    assert released.status_code == 200, released.content
    assert released.json() == {"id": application.pk, "state": "submitted", "assigned_to": None}
    entries = AuditEntry.objects.filter(object_type="application", object_id=str(application.pk))
    assert list(
        entries.filter(action__in=("application.assign", "application.release"))
        .order_by("sequence")
        .values_list("actor", "action", "summary")
    ) == [
        (OFFICER.username, "application.assign", {"state": "submitted", "to": OFFICER.username}),
        (
            OFFICER.username,
            "application.assign",
            {"state": "submitted", "to": SECOND_OFFICER.username, "from": OFFICER.username},
        ),
        (
            SECOND_OFFICER.username,
            "application.release",
            {"state": "submitted", "from": SECOND_OFFICER.username},
        ),
    ]


def test_the_same_key_twice_assigns_once(as_user: Any, make_body: Body) -> None:
    application = submitted(make_body)
    client = as_user(OFFICER)
    first = client.post(f"/applications/{application.pk}/assign", key="same")
    again = client.post(f"/applications/{application.pk}/assign", key="same")
    assert first.status_code == again.status_code == 200
    assert first.content == again.content
    assert AuditEntry.objects.filter(action="application.assign").count() == 1


@pytest.mark.parametrize(
    ("who", "body", "status", "code"),
    [
        (EMPLOYER, {}, 403, "ROLE_NOT_ALLOWED"),
        (OTHER_JURISDICTION_OFFICER, {}, 404, "NOT_FOUND"),
        (FEDERAL_OFFICER, {}, 404, "NOT_FOUND"),
        (OFFICER, {"to": OTHER_JURISDICTION_OFFICER.username}, 403, "NOT_THEIR_FILE"),
        (OFFICER, {"to": "nobody-of-that-name"}, 422, "INVALID_INPUT"),
        (OFFICER, {"to": EMPLOYER.username}, 422, "INVALID_INPUT"),
        (OFFICER, {"to": 7}, 422, "INVALID_INPUT"),
    ],
)
def test_assigning_is_refused_as_the_officers_page_refuses_it_and_nothing_changes(
    as_user: Any, make_body: Body, who: Any, body: dict[str, Any], status: int, code: str
) -> None:
    application = submitted(make_body)
    answer = as_user(who).post(f"/applications/{application.pk}/assign", body, key="refused")
    assert answer.status_code == status, answer.content
    assert answer.json()["code"] == code
    if status == 422:
        assert [p["field"] for p in answer.json()["errors"]] == ["to"]
    assert assignee(application) is None
    refusals = AuditEntry.objects.filter(action__startswith="refused.", actor=who.username)
    expected = "refused.get_visible" if status == 404 else "refused.assign_application"
    assert refusals.filter(action=expected).exists()


def test_a_denied_file_cannot_be_assigned_and_a_file_one_does_not_hold_cannot_be_released(
    as_user: Any, make_body: Body
) -> None:
    application = submitted(make_body)
    actions.deny_application(OFFICER.get(), application, "Not eligible training.")
    refused = as_user(OFFICER).post(f"/applications/{application.pk}/assign", key="denied")
    assert (refused.status_code, refused.json()["code"]) == (409, "NOT_ASSIGNABLE")
    other = submitted(make_body)
    as_user(OFFICER).post(f"/applications/{other.pk}/assign", key="take")
    not_theirs = as_user(SECOND_OFFICER).post(f"/applications/{other.pk}/release", key="r")
    assert (not_theirs.status_code, not_theirs.json()["code"]) == (409, "NOT_ASSIGNED_TO_YOU")
    assert assignee(other) == OFFICER.username


def test_nobody_signed_in_gets_401(make_body: Body, demo: None) -> None:
    application = submitted(make_body)
    for action in ("assign", "release"):
        answer = Client().post(f"/api/v1/applications/{application.pk}/{action}")
        assert answer.status_code == 401


def test_both_operations_are_declared_in_the_openapi_document(demo: None) -> None:
    document = Client().get("/api/v1/openapi.json").json()
    for action in ("assign", "release"):
        operation = document["paths"][f"/api/v1/applications/{{application_id}}/{action}"]["post"]
        assert operation["operationId"] == f"{action}_application"
        assert {"200", "401", "403", "404", "409", "422"} <= set(operation["responses"])
    assign = document["paths"]["/api/v1/applications/{application_id}/assign"]["post"]
    assert assign["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "AssignBody"
    )
