"""Approval decides on today's facts: the quote is run again, with the employer locked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.conftest import changes_audited
from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER

from jobgrant.service.grants.models.applications import Application, Program, StateChange

pytestmark = pytest.mark.django_db

CAPPED = """
title: {en: Ontario with a per-employer cap, fr: Ontario avec un plafond par employeur}
description: A test overlay, not a policy.
base: cjg-2014
reference: [{title: test, href: "https://example.org"}]
parameters:
  cjg.employer.max_government_per_fiscal_year:
    jurisdictions: {"ON": {2014-04-01: 12000.00}}
    reference: [{title: test, href: "https://example.org"}]
"""


def through_recommendation(as_user: Any, body: dict[str, Any]) -> int:
    created = as_user(EMPLOYER).post("/applications", body)
    assert created.status_code == 201, created.content
    application_id = int(created.json()["id"])
    as_user(EMPLOYER).post(f"/applications/{application_id}/submit")
    as_user(OFFICER).post(f"/applications/{application_id}/recommend")
    return application_id


def test_an_employer_cap_filled_since_the_application_blocks_the_approval(
    as_user: Any, make_body: Any, tmp_path: Path
) -> None:
    scenario = tmp_path / "capped.yaml"
    scenario.write_text(CAPPED)
    Program.objects.filter(jurisdiction="ON").update(policy=str(scenario))
    first = through_recommendation(as_user, make_body())  # 15000 x 2/3 = 10000 <= 12000
    second = through_recommendation(as_user, make_body())  # also 10000, quoted while none approved
    assert as_user(SECOND_OFFICER).post(f"/applications/{first}/approve").status_code == 200
    refused = as_user(SECOND_OFFICER).post(f"/applications/{second}/approve")
    assert refused.status_code == 409
    assert refused.json()["code"] == "NOT_ELIGIBLE"
    assert refused.json()["reasons"] == ["EMPLOYER_CAP_EXCEEDED"]
    assert Application.objects.get(pk=second).state == "recommended"


def test_an_ineligible_application_cannot_be_approved(as_user: Any, make_body: Any) -> None:
    application_id = through_recommendation(as_user, make_body())
    # What it was recommended on has changed since: its stored quote no longer stands.
    body = make_body()
    body["training"]["provider"]["third_party"] = False
    del body["declarations"]  # kept apart from the stored request, as applying keeps them
    Application.objects.filter(pk=application_id).update(request=body, eligible=False)
    refused = as_user(SECOND_OFFICER).post(f"/applications/{application_id}/approve")
    assert refused.status_code == 409
    assert refused.json()["reasons"] == ["PROVIDER_NOT_THIRD_PARTY"]
    assert Application.objects.get(pk=application_id).state == "recommended"


def test_an_ineligible_application_cannot_be_recommended_and_nothing_is_written(
    as_user: Any, make_body: Any
) -> None:
    body = make_body()
    body["training"]["provider"]["third_party"] = False
    created = as_user(EMPLOYER).post("/applications", body)
    application_id = int(created.json()["id"])
    as_user(EMPLOYER).post(f"/applications/{application_id}/submit")
    history, entries = StateChange.objects.count(), changes_audited()
    refused = as_user(OFFICER).post(f"/applications/{application_id}/recommend")
    assert refused.status_code == 409
    problem = refused.json()
    assert problem["code"] == "NOT_ELIGIBLE"
    assert problem["reasons"] == ["PROVIDER_NOT_THIRD_PARTY"]
    assert "in-house training is not eligible" in problem["detail"]
    assert "la formation à l'interne n'est pas admissible" in problem["detail_fr"]
    assert (StateChange.objects.count(), changes_audited()) == (history, entries)
    application = Application.objects.get(pk=application_id)
    assert application.state == "submitted" and application.recommended_by is None
