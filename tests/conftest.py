"""Personas and helpers for the service and web tests (on SQLite, and on PostgreSQL when asked).

The test settings (jobgrant.service.test_settings) are chosen in pyproject.toml."""

from __future__ import annotations

import copy
import functools
import gc
import io
import json
import logging
import os
import resource
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
from django.test import Client, TransactionTestCase
from tests import canonical, seeded
from tests.personas import APPLICANT, CLOCK, Persona, totp_code

from jobgrant.service.accounts.models import ApiToken, User
from jobgrant.service.api.examples import EXAMPLE_DECLARATIONS

TODAY = seeded.TODAY

#: The cyclic garbage collector's thresholds in a test process (Python's are 700, 10, 10). A test
#: process holds Django, the service, Hypothesis and pytest's objects (550,000 tracked after 255
#: tests): with Python's thresholds it spent about 8 % of its CPU collecting (2.9 s of 37.8 s over
#: 304 tests of the PostgreSQL set, timed by gc.callbacks; 13 full collections of 0.16 s each),
#: with these about 3 % (1.2 s; 5 full collections). Memory is no concern here; the servers keep
#: Python's thresholds.
GC_THRESHOLDS = (50_000, 50, 100)


def pytest_configure(config: pytest.Config) -> None:
    gc.set_threshold(*GC_THRESHOLDS)


@pytest.fixture(scope="session")
def django_db_keepdb(
    request: pytest.FixtureRequest, django_db_modify_db_settings: None, django_db_blocker: Any
) -> Iterator[bool]:
    """Each test process's database starts as the seeded database (tests/seeded.py: migrated,
    with the demonstration data and the personas, built once per content), not from migrating
    and seeding an empty one: on SQLite its file is copied to the test database's place and kept
    there (Django would delete it), on PostgreSQL the test database is created from the seeded
    template database. `migrate` then finds everything applied."""
    from django.db import connections

    database = connections.settings["default"]
    build = settings.JOBGRANT_BUILD_DIR
    if request.config.getvalue("reuse_db") or build is None:
        yield bool(request.config.getvalue("reuse_db"))
    elif "postgresql" in str(database["ENGINE"]):
        with django_db_blocker.unblock():
            database.setdefault("TEST", {})["TEMPLATE"] = seeded.postgres_seeded(database)
        SEEDED.append("postgresql")
        yield False
    else:
        test_file = Path(database["TEST"]["NAME"])
        with django_db_blocker.unblock():
            seeded.start_seeded(test_file, Path(build))
        SEEDED.append(seeded.sqlite_seeded(Path(build)))
        yield True
        test_file.unlink(missing_ok=True)  # kept, so not deleted by Django: deleted here


#: How this process's database was seeded: the seeded SQLite file, or "postgresql" (the
#: tables' copies in the schema `seeded`); empty when it was seeded in place.
SEEDED: list[Path | str] = []


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> None:
    """The demonstration data and the personas: already there when the database started as the
    seeded one (a no-op then); tests roll back to it."""
    with django_db_blocker.unblock():
        seeded.seed_here()


@pytest.fixture
def demo(db: None) -> None:
    seeded.seed_here()  # a no-op: the database is the seeded one, put back after each test


@pytest.fixture
def canonical_file(db: None) -> Callable[[str], Any]:
    """The canonical file of a stage (tests/canonical.py: approved, accepted, claimable,
    certified, paid, completed) put into the test's database: `canonical_file("paid")` is its
    Application (canonical.put, which a test's helpers may call too). One stage a test, before
    the test writes anything audited."""
    return canonical.put


def _back_to_seeded(self: TransactionTestCase) -> None:
    """After a transactional test, the database is put back to the seeded one (tests/seeded.py)
    rather than emptied by Django's flush and seeded again by the next test (3 s of CPU each)."""
    from django.db import connections

    if not SEEDED:
        _flush_after_transactional_test(self)
        return
    for alias in self._databases_names(include_mirrors=False):
        if SEEDED[0] == "postgresql":
            seeded.restore_postgres(connections[alias])
        else:
            seeded.restore_sqlite(connections[alias], Path(SEEDED[0]))


_flush_after_transactional_test = TransactionTestCase._fixture_teardown
TransactionTestCase._fixture_teardown = _back_to_seeded  # type: ignore[method-assign]


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
    body = {"code": totp_code(user.username)}
    if self.handler.enforce_csrf_checks:  # the page's token first (a fifth of the sign-in's CPU)
        self.get("/en/sign-in/code/")
        body["csrfmiddlewaretoken"] = self.cookies["csrftoken"].value
    answer = self.post("/en/sign-in/code/", body)
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


#: The declarations of an employer that prepared its own application, of a public college: what
#: submitting requires (application_body carries them; a test about them changes or drops them).
DECLARATIONS: dict[str, Any] = EXAMPLE_DECLARATIONS


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
    body["declarations"] = copy.deepcopy(DECLARATIONS)
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


#: The wizard's declarations step as a person fills it in: the declarations of application_body.
DECLARATIONS_STEP: dict[str, str] = {
    "provider_public_institution": "yes",
    "provider_street_address": "135 Fennell Avenue West",
    "provider_city": "Hamilton",
    "provider_postal_code": "L9C 1E9",
    "provider_phone": "905-555-0101",
    "prepared_by": "employer",
    "related_to_provider": "no",
    "other_funding": "no",
    "trainer_name": "Dana Whitfield",
    "trainer_attests_no_conflict": "yes",
    "employer_attests_no_conflict": "yes",
}


def declare(client: Client, language: str = "en", **changes: str) -> HttpResponse:
    """Fill in the wizard's declarations step (DECLARATIONS_STEP) and go on to the review."""
    from tests.addresses import page_path

    typed = {**DECLARATIONS_STEP, "action": "next", **changes}
    response = client.post(page_path(language, "/employer/apply/declarations/"), typed)
    assert response.status_code == 302, response.content.decode()[:3000]
    return response


SERVER_TESTS = ("tests/service/", "tests/web/", "tests/e2e/")

# --- Each test on the engine that matters (docs/testing.md) ----------------------------------
# `make test` runs two sets side by side: JOBGRANT_TEST_ENGINE=postgresql, the service and page
# tests that use a database, on the production engine; JOBGRANT_TEST_ENGINE=sqlite, everything
# else on SQLite, the development engine (`make run`, the browser flows, the commands, the
# demonstration history, the tests that use no database), and again the tests of every module
# that branches on the engine (ENGINE_BRANCHES), so that each branch runs. Without the variable
# (a developer running one test) every collected test runs on the configured database.
DATABASE_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
    }
)

#: The modules that do one thing on PostgreSQL and another on SQLite, and the tests that take
#: each of their branches: these run in both sets. tests/test_layout.py checks that every module
#: that asks `connection.vendor` is here.
ENGINE_BRANCHES: dict[str, tuple[str, ...]] = {
    "jobgrant.service.audit.append_only": ("tests/service/audit/",),
    "jobgrant.service.audit.chain": ("tests/service/audit/",),
    # Its index is built CONCURRENTLY on PostgreSQL, plainly on SQLite (when each test database
    # is migrated); the test drops and reads it on each engine.
    "jobgrant.service.accounts.migrations.0009_one_account_per_email": (
        "tests/service/accounts/test_one_account_per_email.py",
    ),
    # The intake index of applications: CONCURRENTLY on PostgreSQL, plainly on SQLite.
    "jobgrant.service.migration_operations": (
        "tests/service/grants/applications/test_application_flow.py",
    ),
    "jobgrant.service.rows": (
        "tests/service/ledger/",
        "tests/service/grants/payments/",
        "tests/service/notifications/test_outbox.py",
    ),
    "jobgrant.service.grants.payments.confirmation": ("tests/service/grants/payments/",),
    "jobgrant.service.notifications.worker": ("tests/service/notifications/test_worker.py",),
    "jobgrant.service.outcomes.kpi_sql": (
        "tests/service/outcomes/test_kpis.py",
        "tests/service/outcomes/test_annual_report.py",
    ),
    "jobgrant.service.outcomes.snapshot_actions": ("tests/service/outcomes/test_kpi_snapshots.py",),
    # Its PostgreSQL branch (the advisory lock) is taken by tests/scale and T4.
    "jobgrant.service.commands": ("tests/cli/",),
    # The demonstration history belongs to the development path: SQLite (marker below).
    "jobgrant.service.demo_history.load": ("tests/service/test_demo_history.py",),
}
BOTH_ENGINES = tuple(sorted({path for paths in ENGINE_BRANCHES.values() for path in paths}))
#: The service tests of the development path, which run on SQLite only (marker `development`).
SERVER_SET = ("tests/service/", "tests/web/")


def uses_database(item: pytest.Item) -> bool:
    fixtures = set(getattr(item, "fixturenames", ()))
    return bool(DATABASE_FIXTURES & fixtures) or item.get_closest_marker("django_db") is not None


def engine_sets(item: pytest.Item) -> frozenset[str]:
    """The sets a test runs in: {"postgresql"}, {"sqlite"} or both."""
    path = item.path.relative_to(Path(__file__).parent.parent).as_posix()
    if item.get_closest_marker("development") is not None:
        return frozenset({"sqlite"})
    if not (path.startswith(SERVER_SET) and uses_database(item)):
        return frozenset({"sqlite"})
    if path.startswith(BOTH_ENGINES):
        return frozenset({"sqlite", "postgresql"})
    return frozenset({"postgresql"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    engine = os.environ.get("JOBGRANT_TEST_ENGINE")
    if engine == "none":
        _only_without_database(config, items)
    elif engine:
        configured = (
            "postgresql" if "postgresql" in settings.DATABASES["default"]["ENGINE"] else "sqlite"
        )
        if engine != configured:
            raise pytest.UsageError(
                f"JOBGRANT_TEST_ENGINE={engine}, but the database is {configured}"
                " (JOBGRANT_DATABASE_URL)"
            )
        elsewhere = [item for item in items if engine not in engine_sets(item)]
        if elsewhere:
            config.hook.pytest_deselected(items=elsewhere)
            items[:] = [item for item in items if engine in engine_sets(item)]
            config.stash[_ELSEWHERE] = (engine, len(elsewhere))
    _longest_first(items)


_ELSEWHERE = pytest.StashKey[tuple[str, int]]()
#: Tests that start servers or commands on databases of their own, or a browser.
STARTS_PROCESSES = ("tests/cli/", "tests/e2e/", "tests/scale/", "tests/reliability/")


def _only_without_database(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`make check`: the tests that touch no database (JOBGRANT_TEST_ENGINE=none)."""
    root = Path(__file__).parent.parent

    def touches_one(item: pytest.Item) -> bool:
        path = item.path.relative_to(root).as_posix()
        return uses_database(item) or path.startswith(STARTS_PROCESSES)

    left = [item for item in items if touches_one(item)]
    config.hook.pytest_deselected(items=left)
    items[:] = [item for item in items if not touches_one(item)]


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    engine, elsewhere = config.stash.get(_ELSEWHERE, ("", 0))
    if elsewhere:
        other = "SQLite" if engine == "postgresql" else "PostgreSQL"
        terminalreporter.write_line(
            f"{elsewhere} tests collected here run in the {other} set instead"
            f" (JOBGRANT_TEST_ENGINE={engine}; docs/testing.md)"
        )


# --- The longest tests first ---------------------------------------------------------------------
# pytest-xdist's worksteal hands each process a share of the list and lets an idle one take the
# rest of another's: with the longest tests first, no long test starts last and keeps one core
# busy alone at the end. tests/durations.json holds each slow test's seconds from a full run
# (`make test-durations` writes it anew); a test not in it counts as quick.
DURATIONS = Path(__file__).parent / "durations.json"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """With JOBGRANT_RECORD_DURATIONS set, each test's set-up, call and tear-down are added up
    (in the controlling process too: pytest-xdist sends it every report)."""
    if os.environ.get("JOBGRANT_RECORD_DURATIONS"):
        _RECORDED[report.nodeid] = _RECORDED.get(report.nodeid, 0.0) + report.duration


_RECORDED: dict[str, float] = {}


def _cpu_seconds() -> tuple[float, float, float]:
    """This process's CPU time; that of the processes it started: those that ended and were
    waited for, and those still running (the session's Chromium and its renderers, a server
    started for a module), whose time the operating system adds to ours only when they end, if
    ever (nobody waits for Chromium's); and that of the PostgreSQL server's processes serving
    the test database."""
    own, ended = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    running, database = _running_cpu(os.getpid(), _test_database())
    children = ended.ru_utime + ended.ru_stime + running
    return own.ru_utime + own.ru_stime, children, database


def _test_database() -> str:
    from django.db import connection

    return str(connection.settings_dict.get("NAME") or "")


def _running_cpu(root: int, database: str) -> tuple[float, float]:
    """The CPU seconds of root's running descendants (and of the children they waited for:
    /proc/PID/stat's utime, stime, cutime, cstime), and those of the PostgreSQL backends
    connected to `database` now (a backend that ended during the test is not counted)."""
    parents: dict[int, list[int]] = {}
    times: dict[int, int] = {}
    backend = f": postgres {database} ".encode()  # "postgres: 15/main: postgres NAME ..."
    server = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
            if command.startswith(b"postgres: ") and backend in command:
                server += sum(int(figure) for figure in fields[11:15])
        except OSError:  # ended while we looked
            continue
        parents.setdefault(int(fields[1]), []).append(int(entry.name))
        times[int(entry.name)] = sum(int(figure) for figure in fields[11:15])
    ticks, waiting = 0, list(parents.get(root, []))
    while waiting:
        pid = waiting.pop()
        ticks += times.get(pid, 0)
        waiting.extend(parents.get(pid, []))
    return ticks / os.sysconf("SC_CLK_TCK"), server / os.sysconf("SC_CLK_TCK")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Any:
    """With JOBGRANT_RECORD_CPU naming a directory, each test's CPU seconds (set-up, call and
    tear-down) are written there, a file per test process: `cpu`, the test process's own and
    its children's (the browser and servers it used); `own`, the test process's alone; and
    `database`, the PostgreSQL server's for the test database's connections. Where a set's
    CPU goes, whatever else the machine is doing. A session's browser that ends in the last
    test's tear-down gives that test a negative figure (its time leaves the count)."""
    directory = os.environ.get("JOBGRANT_RECORD_CPU")
    before = _cpu_seconds() if directory else (0.0, 0.0, 0.0)
    yield
    if directory:
        own, children, database = (
            after - then for after, then in zip(_cpu_seconds(), before, strict=True)
        )
        figures = {"cpu": round(own + children, 3), "own": round(own, 3)}
        figures["database"] = round(database, 3)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        line = json.dumps({"test": item.nodeid, **figures})
        with open(Path(directory) / f"cpu-{worker}-{os.getpid()}.jsonl", "a") as out:
            out.write(line + "\n")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """`make test-durations`: the tests over a second, merged into tests/durations.json."""
    if not os.environ.get("JOBGRANT_RECORD_DURATIONS") or hasattr(session.config, "workerinput"):
        return
    known: dict[str, float] = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    known.update({test: round(seconds, 1) for test, seconds in _RECORDED.items()})
    slow = {test: seconds for test, seconds in known.items() if seconds >= 1.0}
    DURATIONS.write_text(json.dumps(dict(sorted(slow.items())), indent=0) + "\n")


def _longest_first(items: list[pytest.Item]) -> None:
    if not DURATIONS.exists():
        return
    seconds: dict[str, float] = json.loads(DURATIONS.read_text())
    items.sort(key=lambda item: -seconds.get(item.nodeid, 0.0))


@pytest.fixture(autouse=True)
def frozen_today(request: pytest.FixtureRequest) -> Any:
    """The service dates applications by the server's clock: its tests fix the clock."""
    import time_machine

    if not any(part in request.node.path.as_posix() for part in SERVER_TESTS):
        yield
        return
    with time_machine.travel(seeded.NOW, tick=True) as clock:
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


def applications() -> Any:
    """The applications but the demonstration's: the seed fills Ontario's ranked intake
    with files of demo-employer (service/demo_ranking.py), which a test's counts leave out."""
    from jobgrant.service.demo_ranking import demo_files
    from jobgrant.service.grants.models.applications import Application

    return Application.objects.exclude(pk__in=demo_files().values("pk"))


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
