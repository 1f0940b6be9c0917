"""The service standards' clocks in the API's answers: an application's acknowledgement and
decision, each claim's payment once approved; the answers conform to the published schema
(Api checks each against the OpenAPI document)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.personas import EMPLOYER

from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.claims import Claim

pytestmark = pytest.mark.django_db


def test_a_submitted_application_answers_its_clocks_and_stores_the_decisions_due_day(
    as_user: Any, make_body: Any
) -> None:
    employer = as_user(EMPLOYER)
    made = employer.post("/applications", make_body()).json()
    employer.post(f"/applications/{made['id']}/submit")
    answer = employer.get(f"/applications/{made['id']}").json()
    clocks = {clock["standard"]: clock for clock in answer["clocks"]}
    assert set(clocks) == {"acknowledge", "decide"}
    decide = clocks["decide"]
    # Received on Sunday, November 29, 2026: 60 Ontario business days, Christmas, Boxing Day
    # (a Saturday, observed on Monday the 28th), New Year's Day and Family Day skipped.
    assert (decide["started_on"], decide["due_on"]) == ("2026-11-29", "2027-02-25")
    assert (decide["status"], decide["days_left"], decide["target"]) == ("running", 60, "4/5")
    assert decide["reference"] and decide["business_days"] == 60
    assert Application.objects.get(pk=made["id"]).decide_by.isoformat() == decide["due_on"]


def test_a_draft_has_no_clock(as_user: Any, make_body: Any) -> None:
    employer = as_user(EMPLOYER)
    made = employer.post("/applications", make_body()).json()
    assert employer.get(f"/applications/{made['id']}").json()["clocks"] == []


def test_a_paid_claim_answers_its_payment_clock_met(as_user: Any, canonical_file: Any) -> None:
    application = canonical_file("paid")
    claim = Claim.objects.get(application=application)
    answer = as_user(EMPLOYER).get(f"/claims/{claim.pk}").json()
    [clock] = answer["clocks"]
    assert (clock["standard"], clock["claim"], clock["status"]) == ("pay", claim.number, "met")
    assert (clock["started_on"], clock["done_on"]) == ("2027-01-20", "2027-01-23")
    assert clock["due_on"] == "2027-03-04"  # 30 business days after January 20, 2027


def test_an_approved_claim_not_paid_yet_has_its_payment_clock_running(
    as_user: Any, canonical_file: Any
) -> None:
    application = canonical_file("certified")
    claim = Claim.objects.get(application=application)
    [clock] = as_user(EMPLOYER).get(f"/claims/{claim.pk}").json()["clocks"]
    assert (clock["status"], clock["done_on"]) == ("running", None)
