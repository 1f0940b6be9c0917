"""The judge the API tests use (conftest.ApiContract) refuses answers the document does not allow.

Every answer the `as_user` client receives is checked; these tests show the check can fail."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.http import HttpResponse
from tests.conftest import api_contract

pytestmark = pytest.mark.django_db

BUDGET_ROW = {
    "funder": "federal",
    "jurisdiction": "ON",
    "fiscal_year": "2026-27",
    "stream": "cjg",
    "allocated": "5000.00",
    "committed": "0.00",
    "disbursed": "0.00",
    "available": "5000.00",
}


def answer(body: Any, status: int = 200, content_type: str = "application/json") -> HttpResponse:
    return HttpResponse(json.dumps(body), status=status, content_type=content_type)


def test_an_answer_of_the_documented_shape_conforms(demo: None) -> None:
    api_contract().check("GET", "/api/v1/budgets", answer([BUDGET_ROW]))


def test_money_sent_as_a_number_does_not_conform(demo: None) -> None:
    with pytest.raises(AssertionError, match='5000 is not of type "string"'):
        api_contract().check("GET", "/api/v1/budgets", answer([{**BUDGET_ROW, "allocated": 5000}]))


def test_a_missing_field_does_not_conform(demo: None) -> None:
    row = {k: v for k, v in BUDGET_ROW.items() if k != "available"}
    with pytest.raises(AssertionError, match='"available" is a required property'):
        api_contract().check("GET", "/api/v1/budgets", answer([row]))


def test_a_status_code_the_operation_does_not_declare_does_not_conform(demo: None) -> None:
    with pytest.raises(AssertionError, match="not declared"):
        api_contract().check("GET", "/api/v1/budgets", answer({}, status=409))


def test_a_problem_sent_as_plain_json_does_not_conform(demo: None) -> None:
    problem = {
        "type": "t",
        "title": "t",
        "status": 403,
        "detail": "d",
        "detail_fr": "d",
        "code": "ROLE_NOT_ALLOWED",
    }
    api_contract().check("GET", "/api/v1/budgets", answer(problem, 403, "application/problem+json"))
    with pytest.raises(AssertionError, match="application/json"):
        api_contract().check("GET", "/api/v1/budgets", answer(problem, 403))


def test_a_route_the_document_does_not_list_does_not_conform(demo: None) -> None:
    with pytest.raises(AssertionError, match="not in the OpenAPI document"):
        api_contract().check("GET", "/api/v1/payments", answer([]))
