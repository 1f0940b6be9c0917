"""The trainees' under-represented answer: checked, kept in the stored request, never read by the
quote, and scored by a ranked intake whose criteria set has the criterion.

Ontario's open intake ranked under `bc-2016` (which scores under-represented groups; Ontario's
points for them are 15 from 2016-04-01): a file with two trainees, one declared, gets
floor(15 × 1 / 2) = 7 points for the criterion, and the explanation says it read 1 of 2."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from tests import canonical
from tests.conftest import application_body
from tests.personas import EMPLOYER, OFFICER
from tests.service.grants.change_helpers import counts
from tests.service.grants.change_helpers import trainee as change_trainee
from tests.service.grants.ranking_helpers import closed, ranked_stream, trainee

from jobgrant.service.demo import clear_demo_flags
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.changes.actions import request_change
from jobgrant.service.grants.core.evaluation_answers import for_the_kernel
from jobgrant.service.grants.models.applications import Application, Stream
from jobgrant.service.grants.models.ranking import IntakeRank
from jobgrant.service.grants.ranking.actions import rank_intake

pytestmark = pytest.mark.django_db


def two_trainees(first: Any = True, second: Any = None) -> dict[str, Any]:
    """A body with two trainees; `first` and `second` their answers (None: not given)."""
    trainees = [trainee("existing-employee", "4500.00"), trainee("existing-employee", "4500.00")]
    for entry, answer in zip(trainees, (first, second), strict=True):
        if answer is not None:
            entry["under_represented"] = answer
    return application_body(trainees=trainees)


def test_a_file_with_one_of_two_trainees_declared_gets_half_the_points_when_ranked(
    as_user,
) -> None:
    intake = ranked_stream()
    Stream.objects.filter(pk=intake.stream_id).update(scoring="bc-2016")
    created = as_user(EMPLOYER).post("/applications", two_trainees(True, False), key="ur-1")
    assert created.status_code == 201, created.content
    pk = created.json()["id"]
    assert as_user(EMPLOYER).post(f"/applications/{pk}/submit", key="ur-2").status_code == 200
    application = Application.objects.get(pk=pk)
    assert [t["under_represented"] for t in application.request["trainees"]] == [True, False]
    clear_demo_flags(OFFICER.get(), application)
    rank_intake(closed(intake))
    points = IntakeRank.objects.get(application=application).points["under_represented"]
    assert points["points"] == 7  # floor(15 × 1 / 2)
    assert points["inputs"] == {"under_represented": "1", "trainees": "2"}
    assert points["formula"].startswith("floor(points x trainees from under-represented groups")
    read = {p["name"]: p for p in points["parameters"]}
    assert read["ranking.under_represented.points"]["value"] == "15"


def test_the_answer_changes_no_figure_of_the_quote(as_user) -> None:
    declared = as_user(EMPLOYER).post("/quote", two_trainees(True, True))
    plain = as_user(EMPLOYER).post("/quote", two_trainees(None, None))
    assert declared.status_code == plain.status_code == 200
    assert declared.json() == plain.json()


def test_the_kernel_never_reads_it() -> None:
    body = two_trainees(True, False)
    kept = copy.deepcopy(body)
    assert all("under_represented" not in t for t in for_the_kernel(body)["trainees"])
    assert body == kept  # the stored request keeps it


@pytest.mark.parametrize("path", ["/applications", "/quote"])
@pytest.mark.parametrize("answer", ["yes", 1, None, {"answer": True}])
def test_anything_but_true_or_false_is_refused_in_both_languages_and_nothing_written(
    as_user, path: str, answer: Any
) -> None:
    body = two_trainees(True, False)
    body["trainees"][1]["under_represented"] = answer
    before = Application.objects.count()
    response = as_user(EMPLOYER).post(path, body, key="ur-bad")
    assert response.status_code == 422
    assert Application.objects.count() == before
    found = {p["field"]: p for p in response.json()["errors"]}
    assert found["trainees[1].under_represented"]["message_en"].startswith("must be true or false")
    assert found["trainees[1].under_represented"]["message_fr"].startswith("doit être true ou")


def test_a_change_adding_or_replacing_trainees_checks_the_answer_at_its_place_in_the_body(
    demo: None,
) -> None:
    agreement = canonical.put("accepted").agreement
    before = counts()
    good, bad = change_trainee(), change_trainee()
    good["under_represented"] = True
    bad["under_represented"] = "yes"
    body = {"kind": "trainees", "add": [good, bad], "replace": [{"index": 0, "trainee": bad}]}
    with pytest.raises(ServiceError) as caught:
        request_change(EMPLOYER.get(), agreement, "trainees", body)
    found = {p["field"]: p for p in caught.value.problems}
    assert set(found) == {"add[1].under_represented", "replace[0].trainee.under_represented"}
    assert found["add[1].under_represented"]["message_fr"].startswith("doit être true ou false")
    assert counts() == before
    change = request_change(
        EMPLOYER.get(), agreement, "trainees", {"kind": "trainees", "add": [good]}
    )
    assert change.request["trainees"][-1]["under_represented"] is True
