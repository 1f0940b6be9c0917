"""Approval decides on today's facts: the quote is run again, with the employer locked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jobgrant.service.grants.models import Application, Program

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
    created = as_user("demo-employer").post("/applications", body)
    assert created.status_code == 201, created.content
    application_id = int(created.json()["id"])
    as_user("demo-employer").post(f"/applications/{application_id}/submit")
    as_user("demo-officer-on-1").post(f"/applications/{application_id}/recommend")
    return application_id


def test_an_employer_cap_filled_since_the_application_blocks_the_approval(
    as_user: Any, make_body: Any, tmp_path: Path
) -> None:
    scenario = tmp_path / "capped.yaml"
    scenario.write_text(CAPPED)
    Program.objects.filter(jurisdiction="ON").update(policy=str(scenario))
    first = through_recommendation(as_user, make_body())  # 15000 x 2/3 = 10000 <= 12000
    second = through_recommendation(as_user, make_body())  # also 10000, quoted while none approved
    assert as_user("demo-officer-on-2").post(f"/applications/{first}/approve").status_code == 200
    refused = as_user("demo-officer-on-2").post(f"/applications/{second}/approve")
    assert refused.status_code == 409
    assert refused.json()["code"] == "NOT_ELIGIBLE"
    assert refused.json()["reasons"] == ["EMPLOYER_CAP_EXCEEDED"]
    assert Application.objects.get(pk=second).state == "recommended"


def test_an_ineligible_application_cannot_be_approved(as_user: Any, make_body: Any) -> None:
    body = make_body()
    body["training"]["provider"]["third_party"] = False
    application_id = through_recommendation(as_user, body)
    refused = as_user("demo-officer-on-2").post(f"/applications/{application_id}/approve")
    assert refused.status_code == 409
    assert refused.json()["reasons"] == ["PROVIDER_NOT_THIRD_PARTY"]
