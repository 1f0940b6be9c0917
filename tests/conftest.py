"""Personas and helpers for the service and web tests (on SQLite, and on PostgreSQL when asked).

The test settings (jobgrant.service.test_settings) are chosen in pyproject.toml."""

from __future__ import annotations

import copy
import datetime as dt
import functools
import json
from collections.abc import Callable
from typing import Any

import pytest
import requests
import schemathesis
from django.http import HttpResponse
from django.test import Client

from jobgrant.service.accounts.models import ApiToken, Role, User
from jobgrant.service.demo import seed
from jobgrant.service.registry.models import Employer

TODAY = dt.date(2026, 11, 29)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    """Load the demonstration data once per test database; tests roll back to it."""
    with django_db_blocker.unblock():
        seed(TODAY)


@pytest.fixture
def demo(db: None) -> None:
    seed(TODAY)  # a no-op unless a transactional test emptied the database


def token_for(username: str) -> str:
    return ApiToken.issue(User.objects.get(username=username))


class ApiContract:
    """The published OpenAPI document (/api/v1/openapi.json) as a judge of answers.

    An answer conforms when its operation is documented, its status code is declared for that
    operation, its Content-Type is the one declared for that status, and its body validates
    against the declared schema (Schemathesis's response validation)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.schema = schemathesis.openapi.from_dict(document)

    def check(self, method: str, url: str, answer: HttpResponse) -> None:
        __tracebackhide__ = True
        operation = self.schema.find_operation_by_path(method, url.split("?")[0])
        assert operation is not None, f"{method} {url} is not in the OpenAPI document"
        response = _as_schemathesis_response(method, url, answer)
        declared = operation.responses.find_by_status_code(answer.status_code)
        assert declared is not None, (
            f"{method} {url} answered {answer.status_code}, not declared for {operation.label}"
        )
        media_type = answer["Content-Type"].split(";")[0].strip()
        documented = self.schema.get_content_types(operation, response)
        assert media_type in documented, (
            f"{method} {url} answered {answer.status_code} as {media_type}, declared {documented}"
        )
        self.schema.validate_response(operation, response)  # raises, naming what does not match


def _as_schemathesis_response(method: str, url: str, answer: HttpResponse) -> Any:
    from schemathesis.core.transport import Response

    request = requests.Request(method, f"http://testserver{url}").prepare()
    headers = {name: [value] for name, value in answer.headers.items()}
    return Response(answer.status_code, headers, answer.content, request, 0.0, verify=True)


@functools.cache
def api_contract() -> ApiContract:
    return ApiContract(Client().get("/api/v1/openapi.json").json())


class Api:
    """A client that speaks to /api/v1 as one user; every answer is checked against the
    published OpenAPI document (ApiContract)."""

    def __init__(self, username: str | None) -> None:
        self.client = Client()
        self.headers = {"Authorization": f"Bearer {token_for(username)}"} if username else {}

    def post(self, path: str, body: Any = None, key: str | None = None) -> Any:
        headers = {**self.headers, **({"Idempotency-Key": key} if key else {})}
        data = body if isinstance(body, str | bytes) else json.dumps(body or {})
        answer = self.client.post(
            f"/api/v1{path}", data=data, content_type="application/json", headers=headers
        )
        api_contract().check("POST", f"/api/v1{path}", answer)
        return answer

    def get(self, path: str, **params: Any) -> Any:
        answer = self.client.get(f"/api/v1{path}", params, headers=self.headers)
        api_contract().check("GET", f"/api/v1{path}", answer)
        return answer


@pytest.fixture
def as_user(demo: None) -> Callable[[str | None], Api]:
    return Api


def acme() -> Employer:
    return Employer.objects.get(name="Acme Precision Machining")


def application_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "jurisdiction": "ON",
        "region": "3550",
        "employers": [{"id": "acme", "business_number": acme().business_number}],
        "training": {
            "setting": "off-site", "start_date": "2027-01-11", "end_date": "2027-03-26",
            "hours": 120, "provider": {"name": "Mohawk College", "third_party": True},
        },
        "trainees": [{
            "employer_id": "acme", "status": "existing-employee",
            "costs": {"tuition": "15000.00", "student_fees": "0.00", "materials": "0.00",
                      "exam_fees": "0.00"},
        }],
    }  # fmt: skip
    body.update(copy.deepcopy(changes))
    return body


def officer(name: str = "demo-officer-on-1") -> User:
    return User.objects.get(username=name)


__all__ = ["TODAY", "Api", "Role", "acme", "application_body", "officer"]


SERVER_TESTS = ("tests/service/", "tests/web/", "tests/e2e/")


@pytest.fixture(autouse=True)
def frozen_today(request: pytest.FixtureRequest) -> Any:
    """The service dates applications by the server's clock: its tests fix the clock."""
    import time_machine

    if not any(part in request.node.path.as_posix() for part in SERVER_TESTS):
        yield
        return
    with time_machine.travel(dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC), tick=True):
        yield


@pytest.fixture
def make_body(demo: None) -> Callable[..., dict[str, Any]]:
    return application_body
