"""The OpenAPI document declares what each operation takes and answers, so clients can be made."""

from __future__ import annotations

import datetime as dt
import sys
from typing import Any

import pytest
from django.test import Client
from tests.conftest import TODAY, applications

from jobgrant.service.api.api import api
from jobgrant.service.api.openapi import example_application

pytestmark = pytest.mark.django_db


@pytest.fixture
def document(demo: None) -> dict[str, Any]:
    return Client().get("/api/v1/openapi.json").json()


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def test_every_operation_declares_the_schema_of_its_success(document) -> None:
    # with the programs and intakes (6), the ranking's (6), the risk flags' (3), the burden (1)
    assert len(operations(document)) == 78
    for method, path, operation in operations(document):
        [success] = [s for s in operation["responses"] if s.startswith("2")]
        content = operation["responses"][success]["content"]
        if path.endswith(".pdf"):  # the agreement's PDF (api/routers/agreements.py)
            assert content["application/pdf"]["schema"]["format"] == "binary"
            continue
        if path.endswith("/receipts/{receipt_id}"):  # a claim's receipt (api/routers/claims.py)
            assert {t: c["schema"]["format"] for t, c in content.items()} == dict.fromkeys(
                ("application/pdf", "image/png", "image/jpeg"), "binary"
            )
            continue
        if path.endswith(".csv"):  # a payment batch's export (api/routers/payments.py)
            assert content["text/csv"]["schema"]["type"] == "string"
            continue
        assert "$ref" in str(content["application/json"]["schema"]), (method, path)


def test_every_refusal_is_declared_as_a_problem(document) -> None:
    for method, path, operation in operations(document):
        refusals = {s: r for s, r in operation["responses"].items() if int(s) >= 400}
        assert "content" not in refusals.pop("414"), "gunicorn's own page, not ours"
        assert "401" in refusals or path == "/api/v1/auth/token", (method, path)
        for answer in refusals.values():
            schema = answer["content"]["application/problem+json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/Problem"}


def test_every_post_declares_its_body(document) -> None:
    for method, path, operation in operations(document):
        if method == "POST" and path.endswith("/claims/{claim_id}/receipts"):
            upload = operation["requestBody"]["content"]["multipart/form-data"]["schema"]
            assert upload["properties"]["file"]["items"]["format"] == "binary"
        elif method == "POST" and path.endswith("/confirmations"):  # the paying system's file
            assert operation["requestBody"]["content"]["text/csv"]["schema"]["type"] == "string"
        elif method == "POST":
            body = operation["requestBody"]["content"]["application/json"]["schema"]
            assert (
                body["$ref"].removeprefix("#/components/schemas/")
                in (document["components"]["schemas"])
            ), path


def test_money_is_a_decimal_string(document) -> None:
    figures = document["components"]["schemas"]["Totals"]["properties"]
    assert figures["federal"]["type"] == "string"
    assert figures["federal"]["pattern"] == r"^-?\d+\.\d{2}$"
    costs = document["components"]["schemas"]["Costs"]["properties"]
    assert costs["tuition"] == {**costs["tuition"], "type": "string"}


def test_the_documented_example_is_an_application_the_demonstration_data_accepts(
    as_user,
) -> None:
    demonstration_employer = as_user("demo-employer")  # the account the example is written for
    response = demonstration_employer.post("/applications", example_application(TODAY))
    assert response.status_code == 201, response.content
    assert applications().count() == 1


def test_every_operation_is_a_function_written_under_its_own_name() -> None:
    """`grep "def deny_claim"` finds the handler of the operation deny_claim: each operation's
    id is the name of a function written at the top level of its router module, none made by a
    factory that renames it."""
    handlers = [
        operation.view_func
        for _, router in api._routers
        for path_view in router.path_operations.values()
        for operation in path_view.operations
    ]
    assert len(handlers) == 78  # programs and intakes, ranking, risk flags, burden
    for handler in handlers:
        assert handler.__qualname__ == handler.__name__, handler.__qualname__
        assert getattr(sys.modules[handler.__module__], handler.__name__) is handler


def test_creating_an_application_links_to_the_operations_on_it(document) -> None:
    links = document["paths"]["/api/v1/applications"]["post"]["responses"]["201"]["links"]
    transitions = ("submit", "recommend", "approve", "deny", "withdraw", "assign", "release")
    assert set(links) == {"get_application", *(f"{name}_application" for name in transitions)}
    operation_ids = {op["operationId"] for _, _, op in operations(document)}
    assert set(links) <= operation_ids


def test_the_document_is_made_once_a_day_and_each_caller_gets_its_own(monkeypatch) -> None:
    """Making it is about 0.3 s of CPU, which every GET of the public /api/v1/openapi.json cost:
    it is made once per process and day (its example is dated today); a caller that changes its
    copy changes no one else's."""
    import time_machine
    from ninja import NinjaAPI

    made = []
    make = NinjaAPI.get_openapi_schema

    def counted(self: Any, **options: Any) -> Any:
        made.append(options)
        return make(self, **options)

    monkeypatch.setattr(NinjaAPI, "get_openapi_schema", counted)
    with time_machine.travel("2027-01-10 12:00:00-05:00", tick=False):
        first = api.get_openapi_schema(path_prefix="/api/v1/")
        first["paths"].clear()
        second = api.get_openapi_schema(path_prefix="/api/v1/")
        assert second["paths"] and made == [{"path_prefix": "/api/v1/"}]
    with time_machine.travel("2027-01-11 12:00:00-05:00", tick=False):
        tomorrow = api.get_openapi_schema(path_prefix="/api/v1/")
    assert len(made) == 2
    example = tomorrow["components"]["schemas"]["ApplicationBody"]["examples"][0]
    assert example == example_application(dt.date(2027, 1, 11))
