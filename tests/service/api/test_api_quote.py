"""POST /api/v1/quote: an application body's grant, computed as applying computes it, not saved."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from tests.conftest import changes_audited
from tests.personas import ANALYST, EMPLOYER, OFFICER

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.models.applications import (
    Application,
    ApplicationEmployer,
    IdempotencyKey,
    StateChange,
)
from jobgrant.service.ledger.models import Posting

pytestmark = pytest.mark.django_db
WRITTEN_BY_APPLYING = (
    Application,
    ApplicationEmployer,
    StateChange,
    AuditEntry,
    IdempotencyKey,
    Posting,
)


def row_counts() -> dict[str, int]:
    counts = {model.__name__: model.objects.count() for model in WRITTEN_BY_APPLYING}
    return {**counts, "AuditEntry": changes_audited()}  # a refusal is recorded, not a change


@contextmanager
def nothing_written() -> Iterator[None]:
    before = row_counts()
    yield
    assert row_counts() == before


def test_a_good_body_gets_the_kernels_figures_and_nothing_is_saved(as_user, make_body) -> None:
    with nothing_written():
        response = as_user(EMPLOYER).post("/quote", make_body())
    assert response.status_code == 200, response.content
    quote = response.json()
    assert quote["policy"] == "cjg-2013"
    assert quote["eligible"] is True
    assert quote["totals"]["eligible_cost"] == "15000.00"
    assert quote["totals"]["federal"] == "5000.00"  # cjg-2013: 15000 / 3
    assert quote["totals"]["provincial"] == "5000.00"
    assert quote["totals"]["employer"] == "5000.00"
    assert [t["federal"] for t in quote["trainees"]] == ["5000.00"]
    assert "explanation" not in quote


def test_the_quote_is_the_one_applying_stores(as_user, make_body) -> None:
    client = as_user(EMPLOYER)
    quoted = client.post("/quote", make_body()).json()
    applied = client.post("/applications", make_body()).json()
    assert applied["quote"] == quoted


def test_a_bad_body_gets_each_field_problem_in_both_languages_and_writes_nothing(
    as_user, make_body
) -> None:
    body = make_body()
    body["trainees"][0]["costs"]["tuition"] = "-1"
    body["training"]["hours"] = "12.345"
    with nothing_written():
        response = as_user(EMPLOYER).post("/quote", body)
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    errors = {e["field"]: e for e in response.json()["errors"]}
    assert set(errors) == {"trainees[0].costs.tuition", "training.hours"}
    assert "non-negative" in errors["trainees[0].costs.tuition"]["message_en"]
    assert "positif ou nul" in errors["trainees[0].costs.tuition"]["message_fr"]


def test_the_program_still_decides_the_policy(as_user, make_body) -> None:
    response = as_user(EMPLOYER).post("/quote", make_body(policy="cjg-2014"))
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "policy"


def test_an_officer_may_quote_any_registered_employer(as_user, make_body) -> None:
    with nothing_written():
        response = as_user(OFFICER).post("/quote", make_body())
    assert response.status_code == 200
    assert response.json()["totals"]["government"] == "10000.00"


def test_an_employer_may_not_quote_for_an_employer_it_does_not_act_for(
    as_user: Callable[[str | None], Any], make_body
) -> None:
    User.objects.create_user(username="outsider", password="x", role=Role.EMPLOYER)
    response = as_user("outsider").post("/quote", make_body())
    assert response.status_code == 403
    assert response.json()["code"] == "NOT_YOUR_ORGANIZATION"


def test_explain_adds_how_each_figure_was_computed(as_user, make_body) -> None:
    response = as_user(ANALYST).post("/quote?explain=true", make_body())
    assert response.status_code == 200
    assert response.json()["explanation"]


@pytest.mark.parametrize("answer", [-58800, "perhaps", ["no"]])
def test_a_bad_counterfactual_answer_is_refused_by_the_quote_as_by_applying(
    as_user, make_body, answer: Any
) -> None:
    response = as_user(EMPLOYER).post("/quote", make_body(counterfactual=answer))
    assert response.status_code == 422
    assert "counterfactual" in response.content.decode()


@pytest.mark.parametrize("declarations", [{}, "yes", {"prepared_by": "employer"}])
def test_bad_declarations_are_refused_by_the_quote_as_by_applying(
    as_user, make_body, declarations: Any
) -> None:
    with nothing_written():
        response = as_user(EMPLOYER).post("/quote", make_body(declarations=declarations))
    assert response.status_code == 422
    assert "declarations" in response.content.decode()


def test_declarations_given_as_null_are_as_none_to_the_quote(as_user, make_body) -> None:
    response = as_user(EMPLOYER).post("/quote", make_body(declarations=None))
    assert response.status_code == 200
