"""Training dates are bounded: a training that ends in 9999 or in year 1 is refused, naming the
field, and no approval ends in a server error whatever the dates on file."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import changes_audited
from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER

from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application

pytestmark = pytest.mark.django_db


def recommended(as_user: Any, body: dict[str, Any]) -> int:
    created = as_user(EMPLOYER).post("/applications", body)
    assert created.status_code == 201, created.content
    application_id = int(created.json()["id"])
    assert as_user(EMPLOYER).post(f"/applications/{application_id}/submit").status_code == 200
    assert as_user(OFFICER).post(f"/applications/{application_id}/recommend").status_code == 200
    return application_id


@pytest.mark.parametrize(
    ("start", "end", "field"),
    [
        ("2027-01-11", "9999-12-31", "training.end_date"),
        ("2027-01-11", "0001-01-01", "training.end_date"),
        ("0001-01-01", "2027-03-26", "training.start_date"),
        ("2027-01-11", "2027-02-30", "training.end_date"),
        ("2027-01-11", "2028-01-11", "training.end_date"),  # 366 days
    ],
)
def test_an_approval_of_dates_out_of_range_on_file_is_a_refusal_naming_the_field(
    as_user: Any, make_body: Any, start: str, end: str, field: str
) -> None:
    application_id = recommended(as_user, make_body())
    body = make_body()
    body["training"].update(start_date=start, end_date=end)
    # The file as the database may hold it: the stored quote still says eligible.
    Application.objects.filter(pk=application_id).update(request=body)
    before = changes_audited()
    answer = as_user(SECOND_OFFICER).post(f"/applications/{application_id}/approve")
    assert answer.status_code == 409, answer.content
    problem = answer.json()
    assert problem["code"] == "TRAINING_DATES_OUT_OF_RANGE"
    assert field in [p["field"] for p in problem["errors"]]
    assert "cannot be approved" in problem["detail"]
    assert "ne peuvent pas être approuvées" in problem["detail_fr"]
    assert Application.objects.get(pk=application_id).state == "recommended"
    assert not Agreement.objects.filter(application_id=application_id).exists()
    assert changes_audited() == before  # the refusal is audited, nothing is changed


def test_a_training_ending_in_9999_is_not_eligible_and_cannot_be_recommended(
    as_user: Any, make_body: Any
) -> None:
    body = make_body()
    body["training"]["end_date"] = "9999-12-31"
    created = as_user(EMPLOYER).post("/applications", body)
    assert created.status_code == 201
    assert created.json()["quote"]["eligible"] is False
    assert [r["code"] for r in created.json()["quote"]["reasons"]] == ["TRAINING_TOO_LONG"]
    application_id = int(created.json()["id"])
    as_user(EMPLOYER).post(f"/applications/{application_id}/submit")
    refused = as_user(OFFICER).post(f"/applications/{application_id}/recommend")
    assert refused.status_code == 409
    assert refused.json()["code"] == "TRAINING_DATES_OUT_OF_RANGE"


def test_a_quote_ending_in_year_1_is_refused_naming_the_end_date(
    as_user: Any, make_body: Any
) -> None:
    body = make_body()
    body["training"]["end_date"] = "0001-01-01"
    answer = as_user(EMPLOYER).post("/quote", body)
    assert answer.status_code == 422
    assert [p["field"] for p in answer.json()["errors"]] == ["training.end_date"]
