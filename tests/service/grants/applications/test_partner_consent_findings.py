"""The security review's findings about consortium partners, reproduced (they fail on the code
before ADR 0018), then held: an employer named a partner without its consent, the partner then saw
the whole quote through the API, and the wizard told anyone the name behind a business number.

Only what existed before is used here (the API, the wizard's first step), so the same file ran
against the old code to show each finding first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from tests.conftest import application_body
from tests.personas import APPLICANT, OUTSIDER, OUTSIDER_EMPLOYER, PARTNER, PARTNER_EMPLOYER

from jobgrant.service.accounts.models import Role, User

pytestmark = pytest.mark.django_db


def consortium() -> dict[str, Any]:
    """The applicant's training, with one trainee of its partner too."""
    body = application_body()
    body["employers"].append({"id": "partner", "business_number": PARTNER.business_number})
    body["trainees"].append({**body["trainees"][0], "employer_id": "partner"})
    return body


@pytest.fixture
def applicant_only(demo: None) -> User:
    """Someone who acts for the applicant and for nothing else."""
    user = User.objects.create_user("applicant-only", password="x" * 16, role=Role.EMPLOYER)
    user.employers.add(APPLICANT.get())
    return user


def test_naming_a_partner_does_not_let_the_application_be_submitted_without_its_consent(
    applicant_only: User, as_user: Callable[..., Any]
) -> None:
    api = as_user(applicant_only.username)
    created = api.post("/applications", consortium())
    assert created.status_code == 201, created.content
    answer = api.post(f"/applications/{created.json()['id']}/submit")
    assert answer.status_code == 409, answer.content  # before: 200, submitted
    assert answer.json()["code"] == "PARTNER_CONSENT_PENDING"
    assert as_user(applicant_only.username).get(f"/applications/{created.json()['id']}").json()[
        "state"
    ] == ("draft")


def test_a_partner_sees_only_its_own_share_through_the_api(
    applicant_only: User, as_user: Callable[..., Any]
) -> None:
    created = as_user(applicant_only.username).post("/applications", consortium()).json()
    whole = created["quote"]
    seen = as_user(PARTNER_EMPLOYER).get(f"/applications/{created['id']}")
    assert seen.status_code == 200
    shown = seen.json()
    assert [e["id"] for e in shown["quote"]["employers"]] == ["partner"]  # before: both
    assert [t["employer_id"] for t in shown["quote"]["trainees"]] == ["partner"]
    own = next(e for e in whole["employers"] if e["id"] == "partner")
    assert shown["quote"]["totals"]["federal"] == own["federal"]
    assert shown["federal"] == own["federal"]
    assert shown["explanation"] == []
    listed = as_user(PARTNER_EMPLOYER).get("/applications").json()["items"]
    assert [e["id"] for e in listed[0]["quote"]["employers"]] == ["partner"]


def test_the_applicant_still_sees_the_whole_application(
    applicant_only: User, as_user: Callable[..., Any]
) -> None:
    created = as_user(applicant_only.username).post("/applications", consortium()).json()
    seen = as_user(applicant_only.username).get(f"/applications/{created['id']}").json()
    assert [e["id"] for e in seen["quote"]["employers"]] == ["acme", "partner"]
    assert seen["explanation"]


def test_the_wizard_does_not_name_an_organization_the_user_is_not_part_of(demo: None) -> None:
    client = Client()
    client.force_login(OUTSIDER_EMPLOYER.get())
    answer = client.post(
        "/en/employer/apply/organizations/",
        {
            "lead": str(OUTSIDER.get().pk),
            "partner-TOTAL_FORMS": "1",
            "partner-INITIAL_FORMS": "0",
            "partner-0": APPLICANT.business_number,
            "action": "add-partner",
        },
    )
    assert answer.status_code == 200
    page = answer.content.decode()
    assert APPLICANT.business_number in page  # what the user typed is kept
    assert APPLICANT.name not in page  # before: "Registered employer: Birchwood Tool and Die"
