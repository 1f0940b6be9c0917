"""An organization's verification through the API: its state on /employers and /employers/{id},
and the officers' verify and refuse operations (people/organization_verification.py), every
answer checked against the published OpenAPI document."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.personas import (
    ANALYST,
    APPLICANT,
    AUDITOR,
    EMPLOYER,
    OFFICER,
    OTHER_JURISDICTION_OFFICER,
    OUTSIDER_EMPLOYER,
)
from tests.service.people.test_organization_verification import document

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.people import organization_verification as verification
from jobgrant.service.registry.models import Employer, Verification

pytestmark = pytest.mark.django_db


def unverified() -> Employer:
    Employer.objects.filter(pk=APPLICANT.get().pk).update(verification=Verification.UNVERIFIED)
    return APPLICANT.get()


def test_the_employers_list_says_whether_each_is_verified(as_user: Callable[..., Any]) -> None:
    unverified()
    listed = {e["name"]: e["verification"] for e in as_user(EMPLOYER).get("/employers").json()}
    assert listed[APPLICANT.name] == "unverified"
    assert set(listed.values()) == {"unverified", "verified"}


def test_one_organization_with_its_documents(as_user: Callable[..., Any]) -> None:
    employer = unverified()
    proof = verification.upload_proof(EMPLOYER.get(), employer, document())
    mine = as_user(EMPLOYER).get(f"/employers/{employer.pk}").json()
    assert mine["verification"] == "unverified" and mine["verified_at"] is None
    assert [d["id"] for d in mine["documents"]] == [proof.pk]
    assert as_user(OFFICER).get(f"/employers/{employer.pk}").status_code == 200
    assert as_user(AUDITOR).get(f"/employers/{employer.pk}").status_code == 200
    for outsider in (OUTSIDER_EMPLOYER, OTHER_JURISDICTION_OFFICER, ANALYST):
        assert as_user(outsider).get(f"/employers/{employer.pk}").status_code == 404


def test_an_officer_verifies_by_a_registry_check(as_user: Callable[..., Any]) -> None:
    employer = unverified()
    path = f"/employers/{employer.pk}/verify"
    bad = as_user(OFFICER).post(path, {"method": "registry", "note": ""})
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"] == "note"
    body = {
        "method": "registry",
        "note": "Ontario Business Registry, 2026-12-04: name and BN match",
    }
    answer = as_user(OFFICER).post(path, body, key="verify-1")
    assert answer.status_code == 200, answer.content
    shown = answer.json()
    assert shown["verification"] == "verified" and shown["verified_against"] == "registry"
    assert as_user(OFFICER).post(path, body, key="verify-1").json() == shown  # replayed
    again = as_user(OFFICER).post(path, body)
    assert (again.status_code, again.json()["code"]) == (409, "VERIFICATION_NOT_POSSIBLE")


def test_who_may_not_decide_is_refused_and_audited(as_user: Callable[..., Any]) -> None:
    employer = unverified()
    body = {"method": "registry", "note": "checked"}
    assert as_user(EMPLOYER).post(f"/employers/{employer.pk}/verify", body).status_code == 403
    assert as_user(AUDITOR).post(f"/employers/{employer.pk}/verify", body).status_code == 403
    assert (
        as_user(OUTSIDER_EMPLOYER).post(f"/employers/{employer.pk}/verify", body).status_code == 404
    )
    refused = as_user(OTHER_JURISDICTION_OFFICER).post(
        f"/employers/{employer.pk}/refuse", {"reason": "x"}
    )
    assert refused.status_code == 404
    assert AuditEntry.objects.filter(action__startswith="refused.organization.").count() >= 4
    assert Employer.objects.get(pk=employer.pk).verification == "unverified"


def test_an_officer_refuses_with_a_reason(as_user: Callable[..., Any]) -> None:
    employer = unverified()
    path = f"/employers/{employer.pk}/refuse"
    assert as_user(OFFICER).post(path, {"reason": " "}).status_code == 422
    answer = as_user(OFFICER).post(path, {"reason": "The name does not match the registry."})
    assert answer.status_code == 200 and answer.json()["verification"] == "refused"
