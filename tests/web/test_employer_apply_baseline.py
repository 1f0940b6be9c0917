"""The wizard's answers for the net outcomes: each trainee's baseline on the trainee step (the
band and hours asked when employed) and the counterfactual question on the review step, both
optional and kept with the application."""

from __future__ import annotations

import pytest
from django.test import Client
from tests.conftest import applications, declare
from tests.personas import APPLICANT
from tests.web.test_employer_apply import (
    assert_error_summary,
    employer,  # noqa: F401 - the fixture
    through_training,
    trainee,
    trainees_form,
)

pytestmark = pytest.mark.django_db


def test_an_employed_trainee_needs_a_wage_band_and_hours(employer: Client) -> None:  # noqa: F811
    through_training(employer)
    row = trainee(0, APPLICANT.get().business_number, employed_before="yes")
    response = employer.post("/en/employer/apply/trainees/", trainees_form(row))
    page = assert_error_summary(response, "trainee-0-wage_band", "trainee-0-weekly_hours")
    assert "Choose the usual hourly wage of trainee 1." in page


def test_the_baseline_and_the_counterfactual_answer_are_kept(employer: Client) -> None:  # noqa: F811
    through_training(employer, "fr")
    row = trainee(
        0,
        APPLICANT.get().business_number,
        employed_before="yes",
        wage_band="20-30",
        weekly_hours="37",
    )
    response = employer.post("/fr/employeur/demander/personnes-en-formation/", trainees_form(row))
    assert response.status_code == 302
    declare(employer, "fr")
    review = employer.get("/fr/employeur/demander/verification/").content.decode()
    assert "Cette formation aurait-elle eu lieu sans la subvention?" in review
    employer.post(
        "/en/employer/apply/review/",
        {"confirm": "yes", "counterfactual": "yes-smaller", "action": "submit"},
    )
    application = applications().get()
    assert application.counterfactual == "yes-smaller"
    assert application.request["trainees"][0]["baseline"] == {
        "employed": True,
        "wage_band": "20-30",
        "weekly_hours": 37,
    }
