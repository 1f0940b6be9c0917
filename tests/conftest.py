"""Personas and helpers for the service and web tests (on SQLite, and on PostgreSQL when asked).

The test settings (jobgrant.service.test_settings) are chosen in pyproject.toml."""

from __future__ import annotations

import copy
import datetime as dt
import json
import sys
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import pytest
from django.test import Client
from tests.personas import Persona, create_personas

from jobgrant.service.accounts.models import ApiToken, Role, User
from jobgrant.service.demo import seed
from jobgrant.service.registry.models import Employer

TODAY = dt.date(2026, 11, 29)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    """Load the demonstration data once per test database; tests roll back to it."""
    with django_db_blocker.unblock():
        seed(TODAY)
        create_personas()


@pytest.fixture
def demo(db: None) -> None:
    seed(TODAY)  # a no-op unless a transactional test emptied the database
    create_personas()


def token_for(who: str | Persona) -> str:
    username = who.username if isinstance(who, Persona) else who
    return ApiToken.issue(User.objects.get(username=username))


class Api:
    """A client that speaks to /api/v1 as one user."""

    def __init__(self, who: str | Persona | None) -> None:
        self.client = Client()
        self.headers = {"Authorization": f"Bearer {token_for(who)}"} if who else {}

    def post(self, path: str, body: Any = None, key: str | None = None) -> Any:
        headers = {**self.headers, **({"Idempotency-Key": key} if key else {})}
        data = body if isinstance(body, str | bytes) else json.dumps(body or {})
        return self.client.post(
            f"/api/v1{path}", data=data, content_type="application/json", headers=headers
        )

    def get(self, path: str, **params: Any) -> Any:
        return self.client.get(f"/api/v1{path}", params, headers=self.headers)


@pytest.fixture
def as_user(demo: None) -> Callable[[str | Persona | None], Api]:
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


@pytest.fixture(autouse=True)
def writes_only_through_actions(request: pytest.FixtureRequest) -> Any:
    """Fail any service or web test in which a page or an API handler writes a model itself."""
    from django.db import connection

    if not any(part in request.node.path.as_posix() for part in ("tests/service/", "tests/web/")):
        yield
        return
    with connection.execute_wrapper(guard):
        yield


@pytest.fixture
def write_outside_action() -> type[AssertionError]:
    """The error the guard raises, for the guard's own tests."""
    return WriteOutsideActionError


# --- The write guard -------------------------------------------------------------------------
# Pages and API handlers never write a model themselves; every change goes through an action
# (DESIGN.md section 5). Each INSERT, UPDATE or DELETE a service or web test makes is traced
# back through the Python stack: walking out from the database, the first frame of ours that is
# a page or an API handler (a module under jobgrant.service.web or .api) must have an action, or
# one of the few framework writers below, between it and the statement.

WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")
HANDLERS = ("jobgrant.service.web.", "jobgrant.service.api.")

#: Writers that are not actions and may still be reached from a handler, each for a reason.
FRAMEWORK_WRITERS = (
    "django.contrib.sessions.",  # the session a sign-in or a wizard step stores
    "django.contrib.auth.",  # last_login, written by Django's login()
    "jobgrant.service.api.idempotency",  # the stored answer to an Idempotency-Key
)


class WriteOutsideActionError(AssertionError):
    pass


def _is_writer(module: str) -> bool:
    """An action module (grants.actions, or one split off it: grants.assignment_actions), never
    one of the handlers' own modules however it is named, or a framework writer."""
    if module.startswith(FRAMEWORK_WRITERS):
        return True
    return module.rsplit(".", 1)[-1].endswith("actions") and not module.startswith(HANDLERS)


def _modules_outward(frame: FrameType | None) -> Iterator[str]:
    while frame is not None:
        yield str(frame.f_globals.get("__name__", ""))
        frame = frame.f_back


def check_writer(sql: str, frame: FrameType | None) -> None:
    """Raise WriteOutsideActionError when a handler reached `sql` without passing a writer."""
    for module in _modules_outward(frame):
        if _is_writer(module):
            return
        if module.startswith(HANDLERS):
            raise WriteOutsideActionError(
                f"{module} wrote to the database outside an action: {sql[:120]}"
            )


def guard(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
    """A Django execute wrapper (connection.execute_wrapper) that applies check_writer."""
    if sql.lstrip()[:7].upper().startswith(WRITES):
        check_writer(sql, sys._getframe(1))
    return execute(sql, params, many, context)
