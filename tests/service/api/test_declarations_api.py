"""The application's declarations through /api/v1: given with the application or with its
submission, checked whole (422 naming each field, nothing written), required to submit, and in
the answers. Every answer is checked against the published OpenAPI document (`as_user`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.conftest import DECLARATIONS, Api, application_body, applications, changes_audited
from tests.personas import EMPLOYER, OFFICER

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.declarations import ApplicationDeclaration

pytestmark = pytest.mark.django_db

CONSULTANT = {
    **DECLARATIONS,
    "prepared_by": "consultant",
    "preparer_name": "Grant Ready Consulting",
    "preparer_fee": "1500.00",
    "related_to_provider": True,
    "relations": ["family"],
}


def without_declarations() -> dict[str, Any]:
    body = application_body()
    del body["declarations"]
    return body


def fields_at_fault(answer: Any) -> set[str]:
    return {problem["field"] for problem in answer.json()["errors"]}


def test_declarations_made_with_the_application_are_in_its_answers(
    as_user: Callable[..., Api],
) -> None:
    employer = as_user(EMPLOYER)
    made = employer.post("/applications", application_body(declarations=CONSULTANT), key="d-1")
    assert made.status_code == 201
    declared = made.json()["declarations"]
    assert declared["preparer_fee"] == "1500.00" and declared["relations"] == ["family"]
    assert declared["declared_by"] == EMPLOYER.username
    application = made.json()["id"]
    assert employer.post(f"/applications/{application}/submit", {}, key="d-2").status_code == 200
    read = as_user(OFFICER).get(f"/applications/{application}").json()
    assert read["declarations"]["prepared_by"] == "consultant"
    assert read["declarations"]["provider_phone"] == "905-555-0101"


def test_bad_declarations_name_each_field_and_write_nothing(as_user: Callable[..., Api]) -> None:
    bad = {
        **CONSULTANT,
        "preparer_fee": "lots",
        "relations": ["neighbours"],
        "provider_postal_code": "90210",
        "employer_attests_no_conflict": False,
        "favourite_colour": "blue",
    }
    del bad["trainer_name"]
    before = (applications().count(), changes_audited())
    answer = as_user(EMPLOYER).post("/applications", application_body(declarations=bad), key="d")
    assert answer.status_code == 422
    assert fields_at_fault(answer) == {
        f"declarations.{key}"
        for key in (
            "preparer_fee",
            "relations",
            "provider_postal_code",
            "employer_attests_no_conflict",
            "favourite_colour",
            "trainer_name",
        )
    }
    french = {p["message_fr"] for p in answer.json()["errors"]}
    assert "est obligatoire" in french
    assert (applications().count(), changes_audited()) == before


def test_what_only_another_answer_asks_is_refused_not_dropped(
    as_user: Callable[..., Api],
) -> None:
    body = application_body(declarations={**DECLARATIONS, "preparer_fee": "900.00"})
    answer = as_user(EMPLOYER).post("/applications", body, key="d")
    assert answer.status_code == 422
    assert fields_at_fault(answer) == {"declarations.preparer_fee"}


def test_submitting_without_declarations_is_refused_and_audited(
    as_user: Callable[..., Api],
) -> None:
    employer = as_user(EMPLOYER)
    made = employer.post("/applications", without_declarations(), key="d-1")
    assert made.status_code == 201 and made.json()["declarations"] is None
    application = made.json()["id"]
    refused = employer.post(f"/applications/{application}/submit", {}, key="d-2")
    assert refused.status_code == 422
    assert refused.json()["code"] == "DECLARATIONS_MISSING"
    assert fields_at_fault(refused) == {"declarations"}
    assert Application.objects.get(pk=application).state == "draft"
    assert AuditEntry.objects.filter(action="refused.submit_application").exists()


def test_declarations_given_with_the_submission_are_kept(as_user: Callable[..., Api]) -> None:
    employer = as_user(EMPLOYER)
    application = employer.post("/applications", without_declarations(), key="d-1").json()["id"]
    body = {"declarations": CONSULTANT}
    assert employer.post(f"/applications/{application}/submit", body, key="d-2").status_code == 200
    made = ApplicationDeclaration.objects.get(application_id=application)
    assert (made.prepared_by, made.preparer_fee_cents) == ("consultant", 150_000)


def test_declarations_given_with_the_submission_replace_those_made_before(
    as_user: Callable[..., Api],
) -> None:
    employer = as_user(EMPLOYER)
    application = employer.post("/applications", application_body(), key="d-1").json()["id"]
    before = ApplicationDeclaration.objects.get(application_id=application)
    body = {"declarations": CONSULTANT}
    assert employer.post(f"/applications/{application}/submit", body, key="d-2").status_code == 200
    [made] = ApplicationDeclaration.objects.filter(application_id=application)
    assert made.pk == before.pk and before.prepared_by != "consultant"
    assert (made.prepared_by, made.preparer_name, made.preparer_fee_cents) == (
        "consultant",
        "Grant Ready Consulting",
        150_000,
    )
    assert made.relations == ["family"] and made.declared_at >= before.declared_at


def test_bad_declarations_with_the_submission_leave_it_a_draft(
    as_user: Callable[..., Api],
) -> None:
    employer = as_user(EMPLOYER)
    application = employer.post("/applications", without_declarations(), key="d-1").json()["id"]
    body = {"declarations": {**DECLARATIONS, "prepared_by": "a friend"}}
    answer = employer.post(f"/applications/{application}/submit", body, key="d-2")
    assert answer.status_code == 422
    assert fields_at_fault(answer) == {"declarations.prepared_by"}
    assert Application.objects.get(pk=application).state == "draft"
    assert not ApplicationDeclaration.objects.filter(application_id=application).exists()


def test_the_document_describes_the_declarations_and_the_submit_body(
    as_user: Callable[..., Api],
) -> None:
    document = as_user(None).client.get("/api/v1/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert "provider_business_number" in schemas["Declarations"]["properties"]
    assert "declarations" in schemas["SubmitBody"]["properties"]
    submit = document["paths"]["/api/v1/applications/{application_id}/submit"]["post"]
    assert "422" in submit["responses"]
    example = schemas["ApplicationBody"]["examples"][0]
    assert example["declarations"]["employer_attests_no_conflict"] is True


def test_a_blank_amount_is_read_as_not_given(as_user: Callable[..., Api]) -> None:
    """The document lets an amount of a declaration be blank; blank is not given, as null."""
    body = application_body(declarations={**DECLARATIONS, "other_funding_amount": ""})
    assert as_user(EMPLOYER).post("/applications", body, key="b").status_code == 201
