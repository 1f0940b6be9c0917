"""Personas and helpers for the service and web tests (on SQLite, and on PostgreSQL when asked).

The test settings (jobgrant.service.test_settings) are chosen in pyproject.toml."""

from __future__ import annotations

import copy
import datetime as dt
import functools
import io
import json
import logging
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import requests
import schemathesis
from django.conf import settings
from django.http import HttpResponse
from django.test import Client
from tests.personas import APPLICANT, CLOCK, Persona, create_personas, totp_code

from jobgrant.service.accounts.models import ApiToken, User
from jobgrant.service.demo import seed

TODAY = dt.date(2026, 11, 29)


@pytest.fixture(scope="session")
def django_db_keepdb(
    request: pytest.FixtureRequest, django_db_modify_db_settings: None, django_db_blocker: Any
) -> Iterator[bool]:
    """Each test process's database starts from the migrated template (migrated_template.py),
    not from migrating an empty one: on SQLite its file is copied to the test database's place
    and kept there (Django would delete it), on PostgreSQL the test database is created from
    the template database. `migrate` then finds everything applied."""
    from django.db import connections

    from jobgrant.service.migrated_template import postgres_template, start_from_template

    database = connections.settings["default"]
    if request.config.getvalue("reuse_db"):
        yield True
    elif "postgresql" in str(database["ENGINE"]):
        with django_db_blocker.unblock():
            database.setdefault("TEST", {})["TEMPLATE"] = postgres_template(database)
        yield False
    else:
        test_file = Path(database["TEST"]["NAME"])
        with django_db_blocker.unblock():
            copied = start_from_template(test_file)
        yield copied
        if copied:  # kept, so not deleted by Django: deleted here
            test_file.unlink(missing_ok=True)


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


# --- Signing in with the second factor -------------------------------------------------------
# Staff pass a second factor after their password (accounts/second_factor.py); Django's
# force_login() only does the password's part. Every test client's force_login() also passes
# the second step, honestly: the real code page, with a real TOTP code of the person's device.

_force_login = Client.force_login


def force_login_with_second_factor(self: Client, user: Any, backend: str | None = None) -> None:
    from jobgrant.service.accounts.second_factor import app_device, needs_second_factor

    _force_login(self, user, backend)
    if not needs_second_factor(user) or app_device(user) is None:
        return
    self.get("/en/sign-in/code/")
    csrf = self.cookies["csrftoken"].value
    answer = self.post(
        "/en/sign-in/code/", {"code": totp_code(user.username), "csrfmiddlewaretoken": csrf}
    )
    assert answer.status_code == 302, f"{user.username}'s code was refused"


Client.force_login = force_login_with_second_factor  # type: ignore[method-assign]


def login_through_the_lockout(self: Client, **credentials: Any) -> bool:
    """Client.login() as a sign-in is: django-axes counts the attempt, so it needs the request
    (Django's login() passes none), then the second step for those who owe one."""
    from django.contrib.auth import authenticate
    from django.test import RequestFactory

    user = authenticate(RequestFactory().post("/en/sign-in/"), **credentials)
    if user is None:
        return False
    self.force_login(user)
    return True


Client.login = login_through_the_lockout  # type: ignore[method-assign]


def token_for(who: str | Persona) -> str:
    """A token of the longest life the service gives (API_TOKEN_MAX_DAYS): tests that move the
    clock into a file's training weeks (tests/service/grants/claim_helpers.during_training)
    still hold a valid one."""
    username = who.username if isinstance(who, Persona) else who
    days = settings.API_TOKEN_MAX_DAYS
    return ApiToken.issue(User.objects.get(username=username), days=days)


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

    def __init__(self, who: str | Persona | None) -> None:
        self.client = Client()
        self.headers = {"Authorization": f"Bearer {token_for(who)}"} if who else {}

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
def as_user(demo: None) -> Callable[[str | Persona | None], Api]:
    return Api


def application_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "jurisdiction": "ON",
        "region": "3550",
        "employers": [{"id": "acme", "business_number": APPLICANT.business_number}],
        "training": {
            "setting": "off-site",
            "start_date": "2027-01-11",
            "end_date": "2027-03-26",
            "hours": 120,
            "provider": {"name": "Mohawk College", "third_party": True},
        },
        "trainees": [
            {
                "employer_id": "acme",
                "status": "existing-employee",
                "costs": {
                    "tuition": "15000.00",
                    "student_fees": "0.00",
                    "materials": "0.00",
                    "exam_fees": "0.00",
                },
            }
        ],
    }
    body.update(copy.deepcopy(changes))
    return body


#: The wizard's training step as a person types it: the training of application_body.
TRAINING_STEP: dict[str, str] = {
    "course": "CNC machining certificate",
    "setting": "off-site",
    "start_date": "2027-01-11",
    "end_date": "2027-03-26",
    "hours": "120",
    "provider_name": "Mohawk College",
    "third_party": "yes",
}


SERVER_TESTS = ("tests/service/", "tests/web/", "tests/e2e/")

# --- The PostgreSQL pass runs only what can differ on PostgreSQL ------------------------------
# `make pytest-postgres` runs tests/service and tests/web again on PostgreSQL, after the SQLite
# pass ran them (JOBGRANT_POSTGRES_PASS=1). A test that asks for no database (no `db`,
# `transactional_db`, `live_server` fixture, no django_db mark) cannot reach one (pytest-django
# refuses it), so it proves the same thing on both: that pass leaves it out and says how many.
DATABASE_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
    }
)


def uses_database(item: pytest.Item) -> bool:
    fixtures = set(getattr(item, "fixturenames", ()))
    return bool(DATABASE_FIXTURES & fixtures) or item.get_closest_marker("django_db") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("JOBGRANT_POSTGRES_PASS") != "1":
        return
    once = [item for item in items if not uses_database(item)]
    if once:
        config.hook.pytest_deselected(items=once)
        items[:] = [item for item in items if uses_database(item)]
        config.stash[_LEFT_TO_SQLITE] = len(once)


_LEFT_TO_SQLITE = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    left = config.stash.get(_LEFT_TO_SQLITE, 0)
    if left:
        terminalreporter.write_line(
            f"{left} tests that use no database were left to the SQLite pass"
            " (JOBGRANT_POSTGRES_PASS=1)"
        )


@pytest.fixture(autouse=True)
def frozen_today(request: pytest.FixtureRequest) -> Any:
    """The service dates applications by the server's clock: its tests fix the clock."""
    import time_machine

    if not any(part in request.node.path.as_posix() for part in SERVER_TESTS):
        yield
        return
    with time_machine.travel(dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC), tick=True) as clock:
        CLOCK.append(clock)  # a staff sign-in past 3 in 30 s moves it on (personas.totp_code)
        try:
            yield
        finally:
            CLOCK.remove(clock)


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
# (docs/architecture.md). Each INSERT, UPDATE or DELETE a service or web test makes is traced
# back through the Python stack: walking out from the database, the first frame of ours that is
# a page or an API handler (a module under jobgrant.service.web or .api) must have an action, or
# one of the few framework writers below, between it and the statement.

WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")
HANDLERS = ("jobgrant.service.web.", "jobgrant.service.api.")
#: The grant's stages and a person's account: each module there is a stage's actions.
DOMAIN = ("jobgrant.service.grants.", "jobgrant.service.people.")
MODELS = "jobgrant.service.grants.models"

#: Writers that are not actions and may still be reached from a handler, each for a reason.
FRAMEWORK_WRITERS = (
    "django.contrib.sessions.",  # the session a sign-in or a wizard step stores
    "django.contrib.auth.",  # last_login, written by Django's login()
    "jobgrant.service.api.idempotency",  # the stored answer to an Idempotency-Key
    "django.core.cache.",  # a rate limit's counter (django-ratelimit, in the database cache)
)


class WriteOutsideActionError(AssertionError):
    pass


def _is_writer(module: str) -> bool:
    """A module that may change state: one of the grant's stages or a person's account (their
    modules are the actions of each stage), an `actions` module of the smaller apps, or a
    framework writer; never one of the handlers' own modules however it is named."""
    if module.startswith(FRAMEWORK_WRITERS):
        return True
    if module.startswith(DOMAIN) and not module.startswith(MODELS):
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


def changes_audited() -> int:
    """The audit entries of changes: what a refused request must leave as it was (its refusal
    is recorded too, as `refused.<action>`, whatever its status; and sign-ins, complete or
    failed, `auth.*`, are records of who came in, not changes)."""
    from jobgrant.service.audit.models import AuditEntry

    return (
        AuditEntry.objects.exclude(action__startswith="refused.")
        .exclude(action__startswith="auth.")
        .count()
    )


# --- The logs as a server prints them ------------------------------------------------------------


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """What the console handler of settings.LOGGING prints (JSON lines with the request id, the
    link tokens redacted: observability/logs.py), into a buffer, for the test's duration."""
    from jobgrant.service.log_redaction import RedactLinkTokens
    from jobgrant.service.observability.logs import JsonLines
    from jobgrant.service.observability.request_id import RequestIdFilter

    console = settings.LOGGING["handlers"]["console"]
    assert console["formatter"] == "json" and console["filters"] == ["request_id", "link_tokens"]
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.addFilter(RequestIdFilter())
    handler.addFilter(RedactLinkTokens())
    handler.setFormatter(JsonLines())
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    try:
        yield buffer
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)


def json_lines(buffer: io.StringIO) -> list[dict[str, Any]]:
    """Each line of a `json_log` buffer, parsed (every line must be one JSON object)."""
    return [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]
