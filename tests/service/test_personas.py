"""The test personas are who they say they are: each role and reach, apart from the demo data."""

from __future__ import annotations

import pytest
from tests.personas import (
    APPLICANT,
    EMPLOYER,
    OTHER_JURISDICTION_OFFICER,
    OUTSIDER_EMPLOYER,
    PARTNER,
    PARTNER_EMPLOYER,
    PERSONAS,
)

from jobgrant.service.grants.core import access

pytestmark = pytest.mark.django_db


def test_every_persona_has_its_role_and_no_demonstration_account_is_one(demo: None) -> None:
    for persona in PERSONAS:
        user = persona.get()
        assert (user.role, user.jurisdiction, user.federal) == (
            persona.role,
            persona.jurisdiction,
            persona.federal,
        )
        assert not user.username.startswith("demo-")
        acted_for = set(access.employers_acted_for(user).values_list("name", flat=True))
        assert acted_for == {organization.name for organization in persona.organizations}


def test_an_application_by_the_employer_is_seen_by_its_partner_not_by_outsiders(
    as_user, make_body
) -> None:
    body = make_body()
    body["employers"] = [
        {"id": "lead", "business_number": APPLICANT.business_number},
        {"id": "partner", "business_number": PARTNER.business_number},
    ]
    for trainee in body["trainees"]:
        trainee["employer_id"] = "lead"
    created = as_user(EMPLOYER).post("/applications", body)
    assert created.status_code == 201, created.content
    path = f"/applications/{created.json()['id']}"
    assert as_user(PARTNER_EMPLOYER).get(path).status_code == 200
    assert as_user(OUTSIDER_EMPLOYER).get(path).status_code == 404
    assert as_user(OTHER_JURISDICTION_OFFICER).get(path).status_code == 404
