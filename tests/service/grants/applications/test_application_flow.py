"""An application's life through the API: apply, submit, recommend, approve, and the budget."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.conftest import applications, changes_audited
from tests.personas import EMPLOYER, FINANCE, OFFICER, SECOND_OFFICER

from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.models.applications import Application, Intake, IntakeState
from jobgrant.service.ledger.models import BudgetAccount, Posting

pytestmark = pytest.mark.django_db


def applied(as_user: Callable[[str | None], Any], body: dict[str, Any]) -> int:
    response = as_user(EMPLOYER).post("/applications", body)
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


def budget(funder: str) -> BudgetAccount:
    return BudgetAccount.objects.get(funder=funder, jurisdiction="ON", fiscal_year="2026-27")


def test_an_application_is_quoted_by_the_rules_kernel_when_created(as_user, make_body) -> None:
    response = as_user(EMPLOYER).post("/applications", make_body())
    assert response.status_code == 201
    created = response.json()
    assert created["state"] == "draft"
    assert created["quote"]["totals"]["federal"] == "5000.00"  # cjg-2013: 15000 / 3
    assert created["quote"]["totals"]["provincial"] == "5000.00"
    assert created["quote"]["policy"] == "cjg-2013"


def test_an_application_belongs_to_the_intake_whose_window_holds_its_date(
    as_user, make_body
) -> None:
    application = Application.objects.get(pk=applied(as_user, make_body()))
    intake = application.intake
    assert intake is not None
    assert intake.opens_on <= application.received_on <= intake.closes_on
    assert intake.stream_id == application.stream_id
    assert intake.stream.program.jurisdiction == application.jurisdiction


def test_the_intake_index_is_built_on_either_engine() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, Application._meta.db_table)
    assert found["application_by_intake"]["columns"] == ["intake_id", "state"]
    assert found["application_by_intake"]["index"]


def test_an_intake_closed_early_receives_no_application(as_user, make_body) -> None:
    Intake.objects.filter(stream__program__jurisdiction="ON").update(state=IntakeState.CLOSED)
    response = as_user(EMPLOYER).post("/applications", make_body())
    assert response.status_code == 422
    assert response.json()["code"] == "NO_OPEN_INTAKE"
    assert not applications().exists()


def test_officer_a_recommends_officer_b_approves_and_the_budget_is_committed(
    as_user, make_body
) -> None:
    application_id = applied(as_user, make_body())
    # The demonstration's ranked intake has one approved file: its commitment is there before.
    federal_before = budget("federal").committed_cents
    provincial_before = budget("provincial").committed_cents
    assert (
        as_user(EMPLOYER).post(f"/applications/{application_id}/submit").json()["state"]
        == "submitted"
    )
    assert (
        as_user(OFFICER).post(f"/applications/{application_id}/recommend").json()["state"]
        == "recommended"
    )
    approved = as_user(SECOND_OFFICER).post(f"/applications/{application_id}/approve")
    assert approved.status_code == 200, approved.content
    assert approved.json()["state"] == "approved"
    assert budget("federal").committed_cents == federal_before + 500_000
    assert budget("provincial").committed_cents == provincial_before + 500_000
    legs = Posting.objects.filter(transaction__application_id=application_id)
    assert sum(leg.amount_cents for leg in legs) == 0
    assert verify().ok


def test_the_officer_who_recommended_cannot_approve_and_the_refusal_is_audited(
    as_user, make_body
) -> None:
    application_id = applied(as_user, make_body())
    federal_before = budget("federal").committed_cents
    as_user(EMPLOYER).post(f"/applications/{application_id}/submit")
    as_user(OFFICER).post(f"/applications/{application_id}/recommend")
    refused = as_user(OFFICER).post(f"/applications/{application_id}/approve")
    assert refused.status_code == 403
    assert refused["Content-Type"] == "application/problem+json"
    assert refused.json()["code"] == "SEPARATION_OF_DUTIES"
    assert Application.objects.get(pk=application_id).state == "recommended"
    assert AuditEntry.objects.filter(action="refused.approve_application").count() == 1
    assert budget("federal").committed_cents == federal_before


def test_an_illegal_transition_answers_409_with_the_current_state(as_user, make_body) -> None:
    application_id = applied(as_user, make_body())
    response = as_user(OFFICER).post(f"/applications/{application_id}/approve")
    assert response.status_code == 409
    assert response.json()["state"] == "draft"


def test_bad_input_names_the_field_and_writes_nothing(as_user, make_body) -> None:
    body = make_body()
    body["trainees"][0]["costs"]["tuition"] = "-1"
    entries_before = changes_audited()
    response = as_user(EMPLOYER).post("/applications", body)
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert errors[0]["field"] == "trainees[0].costs.tuition"
    assert "non-negative" in errors[0]["message_en"]
    assert errors[0]["message_fr"]
    assert applications().count() == 0
    assert changes_audited() == entries_before


def test_the_program_decides_policy_and_delivery(as_user, make_body) -> None:
    response = as_user(EMPLOYER).post("/applications", make_body(policy="cjg-2014"))
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "policy"


def test_an_unregistered_business_number_is_refused(as_user, make_body) -> None:
    body = make_body(employers=[{"id": "acme", "business_number": "123456789"}])
    response = as_user(EMPLOYER).post("/applications", body)
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "employers[0].business_number"


def test_an_idempotent_retry_replays_the_first_response_byte_for_byte(as_user, make_body) -> None:
    client = as_user(EMPLOYER)
    first = client.post("/applications", make_body(), key="apply-1")
    again = client.post("/applications", make_body(), key="apply-1")
    assert again.status_code == first.status_code == 201
    assert again.content == first.content
    assert applications().count() == 1
    changed = client.post("/applications", make_body(region="3530"), key="apply-1")
    assert changed.status_code == 422
    assert changed.json()["code"] == "IDEMPOTENCY_KEY_REUSED"


def test_anonymous_callers_are_refused(as_user) -> None:
    response = as_user(None).get("/applications")
    assert response.status_code == 401


def test_budgets_show_allocated_committed_and_available(as_user) -> None:
    rows = as_user(FINANCE).get("/budgets", jurisdiction="ON", fiscal_year="2014-15").json()
    assert {row["funder"] for row in rows} == {"federal", "provincial"}
    federal = next(row for row in rows if row["funder"] == "federal")
    assert federal["committed"] == "0.00"
    assert federal["available"] == federal["allocated"]


def test_withdrawing_an_approved_application_releases_its_commitments(as_user, make_body) -> None:
    application_id = applied(as_user, make_body())
    before = budget("federal").committed_cents, budget("provincial").committed_cents
    as_user(EMPLOYER).post(f"/applications/{application_id}/submit")
    as_user(OFFICER).post(f"/applications/{application_id}/recommend")
    as_user(SECOND_OFFICER).post(f"/applications/{application_id}/approve")
    withdrawn = as_user(EMPLOYER).post(f"/applications/{application_id}/withdraw")
    assert withdrawn.json()["state"] == "withdrawn"
    assert (budget("federal").committed_cents, budget("provincial").committed_cents) == before
