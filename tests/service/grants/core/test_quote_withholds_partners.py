"""The quote's explanation shows an employer the figures of the organizations it acts for only:
a partner named by its business number keeps its number of employees (and what it was already
granted) to itself (grants/core/quoting.py)."""

from __future__ import annotations

import pytest
from tests.conftest import application_body
from tests.personas import APPLICANT, EMPLOYER, OFFICER, OUTSIDER

pytestmark = pytest.mark.django_db
SENSITIVE = ("employees", "approved_this_fiscal_year")


def consortium() -> dict[str, object]:
    trainee = application_body()["trainees"][0]
    return application_body(
        employers=[
            {"id": "acme", "business_number": APPLICANT.business_number},
            {"id": "other", "business_number": OUTSIDER.business_number},
        ],
        trainees=[
            {**trainee, "wages_in_kind": "1000.00"},
            {**trainee, "employer_id": "other", "wages_in_kind": "1000.00"},
        ],
    )


def inputs_of(answer: dict, trainee: int) -> dict[str, object]:
    found: dict[str, object] = {}
    for entry in answer["explanation"]:
        if entry["target"].startswith(f"trainees[{trainee}]."):
            found.update(entry["inputs"])
    return found


def test_an_employer_sees_its_own_size_but_not_a_partner_s(as_user, demo: None) -> None:
    answer = as_user(EMPLOYER).post("/quote?explain=true", consortium())
    assert answer.status_code == 200, answer.content
    own, partner = inputs_of(answer.json(), 0), inputs_of(answer.json(), 1)
    assert own.get("employees") not in (None, "withheld")
    assert "employees" in partner
    assert all(partner.get(key) in (None, "withheld") for key in SENSITIVE)
    assert partner["employees"] == "withheld"


def test_an_officer_sees_every_figure(as_user, demo: None) -> None:
    answer = as_user(OFFICER).post("/quote?explain=true", consortium())
    assert answer.status_code == 200, answer.content
    assert inputs_of(answer.json(), 1).get("employees") not in (None, "withheld")
