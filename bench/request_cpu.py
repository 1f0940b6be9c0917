"""The server's CPU per request, for each request the crowd of `make load` makes
(bench/load/locustfile.py), through Django's whole stack in one process (the test client): the
figure `make load` divides out of its run, endpoint by endpoint, without the neighbours' noise.

    python bench/request_cpu.py                         # PostgreSQL, 30 requests per endpoint
    python bench/request_cpu.py --repeat 60 --only dashboard --only queue
    python bench/request_cpu.py --middleware            # and each middleware's share
    python bench/request_cpu.py --profile /tmp/requests # and a cProfile of each endpoint there
    python bench/request_cpu.py --sql --only quote      # and the SQL statements of one request

It makes a database of its own (PostgreSQL: --name on the server of JOBGRANT_BENCH_POSTGRES,
default postgresql://postgres@127.0.0.1:5432, created from the migrated template and dropped
afterwards; or a SQLite file with --database sqlite), loads the demonstration data, and gives
one employer account of the crowd's kind --files files as a crowd leaves them after a minute or
so: a third approved, a third recommended, the rest submitted (the files the timed requests
make, recommend and approve are another account's). The employer and the staff sign
in through the sign-in pages (the staff with their authenticator's code) and take API tokens
from the service's own action, as `make load` does; the API is asked in English, the pages in
both languages. Each endpoint is asked once to warm the process's caches, once to count its SQL
statements, then --repeat times, each request timed on the process's CPU clock
(time.process_time: on a shared machine, wall-clock time says more about the neighbours than
about the code). It prints, per endpoint, the median and 90th percentile of the CPU ms per
request and the SQL statements of one request, then the load average. PostgreSQL's own CPU (its
backend process) is not in these figures; it is in
`make load`'s.

--middleware puts a stopwatch between the middleware classes (settings.MIDDLEWARE) and prints
the median CPU each one spent of a request (its own work, before and after the inner ones), and
what is left for the view (URL resolution and the middleware's process_view hooks included).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import re
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from approvals import application_body

POSTGRES_SERVER = os.environ.get("JOBGRANT_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432")
PASSWORD = "jobgrant-demo"
STAFF = ("demo-officer-on-1", "demo-officer-on-2", "demo-finance", "demo-analyst")


@dataclass
class Endpoint:
    name: str
    ask: Callable[[], Any]
    expect: int = 200
    samples: list[float] = field(default_factory=list)
    statements: int = 0


# --- The stopwatch between the middleware ------------------------------------------------------

# STOPWATCH[k] is entered just before the k-th middleware (and the last one just before the
# view): (entered, left) process times of the request being timed.
_MARKS: list[list[float]] = []


def stopwatch(position: int) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    def middleware(get_response: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def timed(request: Any) -> Any:
            entered = time.process_time()
            try:
                return get_response(request)
            finally:
                _MARKS[position][:] = [entered, time.process_time()]

        return timed

    return middleware


# Django imports middleware by dotted path: each stopwatch is a module-level name.
for _position in range(64):
    globals()[f"stopwatch_{_position}"] = stopwatch(_position)


def with_stopwatches(middleware: list[str]) -> list[str]:
    global _MARKS
    _MARKS = [[0.0, 0.0] for _ in range(len(middleware) + 1)]
    timed = []
    for position, path in enumerate(middleware):
        timed += [f"{__name__}.stopwatch_{position}", path]
    return [*timed, f"{__name__}.stopwatch_{len(middleware)}"]


def middleware_shares() -> list[float]:
    """Each middleware's own CPU seconds in the last request, then the view's."""
    inclusive = [left - entered for entered, left in _MARKS]
    return [inclusive[k] - inclusive[k + 1] for k in range(len(inclusive) - 1)] + [inclusive[-1]]


# --- The data ----------------------------------------------------------------------------------


def seed(files: int, spare: int) -> dict[str, Any]:
    """The demonstration data; an employer account of the crowd's kind with `files` files (a
    third approved, a third recommended, the rest submitted); `spare` submitted files for the
    recommendations timed and `spare` recommended ones for the approvals."""
    from jobgrant.service.commands import prepare_database

    prepare_database(with_demo=True)
    from django.utils import timezone

    from jobgrant.service.accounts.models import User
    from jobgrant.service.accounts.organization_models import OrganizationRole
    from jobgrant.service.demo_support import business_number, clear_demo_flags
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.grants.models.applications import Application
    from jobgrant.service.registry.models import Employer, Verification

    template = User.objects.get(username="demo-employer")

    def account(n: int) -> tuple[Any, Any]:
        user = User.objects.create(
            username=f"load-employer-{n}",
            email=f"load-employer-{n}@example.ca",
            role=template.role,
            password=template.password,
            preferred_language="en",
        )
        organization = Employer.objects.create(
            business_number=business_number(f"{42_000_000 + n}"),
            verification=Verification.VERIFIED,  # as if an officer had verified it
            name=f"Load {n} Manufacturing",
            employees=40,
            naics="332710",
            jurisdiction="ON",
            region="3550",
        )
        user.employers.add(organization, through_defaults={"role": OrganizationRole.ADMIN})
        return user, organization

    # The files timed are one account's; the spare ones, used up by the recommendations and the
    # approvals timed, another's (so that its dashboard shows `files` files).
    employer, organization = account(0)
    other, other_organization = account(1)
    recommender = User.objects.get(username="demo-officer-on-1")
    approver = User.objects.get(username="demo-officer-on-2")
    today = timezone.localdate()
    body = application_body({"business_number": organization.business_number}, today)
    other_body = application_body({"business_number": other_organization.business_number}, today)
    made: dict[str, list[int]] = {"approved": [], "recommended": [], "submitted": []}
    for n in range(files + 2 * spare):
        owner, owner_body = (employer, body) if n < files else (other, other_body)
        application = actions.create_application(owner, owner_body)
        actions.submit_application(owner, application)
        if n < files:
            kind = ("approved", "recommended", "submitted")[n % 3]
        else:
            kind = "spare-submitted" if n < files + spare else "spare-recommended"
        if kind in {"approved", "recommended", "spare-recommended"}:
            clear_demo_flags(recommender, application)  # many like files flag each other's price
            actions.recommend_application(recommender, application)
        if kind == "approved":
            actions.approve_application(approver, application)
        made.setdefault(kind, []).append(application.pk)
    for application in Application.objects.filter(pk__in=made.get("spare-submitted", [])):
        clear_demo_flags(recommender, application)  # the recommendations timed may go ahead
    return {"body": other_body, "files": made}


def sign_in(username: str) -> Any:
    """A test client signed in through the pages, as a person is (staff with their code)."""
    from django.test import Client

    from jobgrant.service.accounts.demo_credentials import demo_code

    client = Client()
    client.get("/en/sign-in/")
    answer = client.post("/en/sign-in/", {"username": username, "password": PASSWORD}, follow=True)
    if answer.request["PATH_INFO"].endswith("/sign-in/code/"):
        query = answer.request.get("QUERY_STRING", "")
        path = answer.request["PATH_INFO"] + (f"?{query}" if query else "")
        answer = client.post(path, {"code": demo_code()}, follow=True)
    if answer.status_code != 200 or "/sign-in/" in answer.request["PATH_INFO"]:
        where = answer.request["PATH_INFO"]
        raise RuntimeError(f"{username} could not sign in: {answer.status_code} {where}")
    return client


def api_token(username: str) -> str:
    from jobgrant.service.accounts.actions import issue_api_token
    from jobgrant.service.accounts.models import User

    return issue_api_token(User.objects.get(username=username), client="request-cpu")


# --- The endpoints -----------------------------------------------------------------------------


def endpoints(data: dict[str, Any]) -> list[Endpoint]:
    from django.test import Client

    files = data["files"]
    approved, mine = files["approved"], files["approved"] + files["recommended"]
    spare_submitted = list(files.get("spare-submitted", []))
    spare_recommended = list(files.get("spare-recommended", []))
    employer = sign_in("load-employer-0")
    staff = {name: sign_in(name) for name in STAFF}
    api = Client()
    tokens = {name: api_token(name) for name in ("load-employer-0", "load-employer-1", *STAFF)}

    def call(method: str, path: str, who: str, **body: Any) -> Callable[[], Any]:
        headers = {"Authorization": f"Bearer {tokens[who]}", "Accept-Language": "en"}

        def ask() -> Any:
            if method == "GET":
                return api.get(f"/api/v1{path}", headers=headers)
            return api.post(
                f"/api/v1{path}",
                content_type="application/json",
                headers={**headers, "Idempotency-Key": f"cpu-{uuid.uuid4()}"},
                **body,
            )

        return ask

    def next_of(queue: list[int], action: str, who: str) -> Callable[[], Any]:
        def ask() -> Any:
            return call("POST", f"/applications/{queue.pop()}/{action}", who)()

        return ask

    body = {"data": data["body"]}
    drafts: list[int] = []  # the applications made, for the submissions timed
    make = call("POST", "/applications", "load-employer-1", **body)

    def made_one() -> Any:
        answer = make()
        if answer.status_code == 201:
            drafts.append(int(answer.json()["id"]))
        return answer

    found: list[Endpoint] = [
        Endpoint("api POST /quote", call("POST", "/quote", "load-employer-1", **body)),
        Endpoint("api POST /applications", made_one, 201),
        Endpoint(
            "api POST /applications/[id]/submit", next_of(drafts, "submit", "load-employer-1")
        ),
        Endpoint("api GET /applications", call("GET", "/applications", "load-employer-0")),
        Endpoint(
            "api GET /applications/[id]",
            call("GET", f"/applications/{mine[-1]}", "load-employer-0"),
        ),
        Endpoint(
            "api GET /applications/[id]/agreement",
            call("GET", f"/applications/{approved[-1]}/agreement", "load-employer-0"),
        ),
        Endpoint(
            "api POST /applications/[id]/recommend",
            next_of(spare_submitted, "recommend", "demo-officer-on-1"),
        ),
        Endpoint(
            "api POST /applications/[id]/approve",
            next_of(spare_recommended, "approve", "demo-officer-on-2"),
        ),
        Endpoint("api GET /budgets", call("GET", "/budgets", "demo-finance")),
        Endpoint(
            "api GET /kpis", call("GET", f"/kpis?fiscal_year={fiscal_year()}", "demo-analyst")
        ),
    ]
    pages = [
        ("employer dashboard", employer, "/employer/"),
        ("employer application", employer, f"/employer/applications/{mine[-1]}/"),
        ("employer agreement", employer, f"/employer/applications/{approved[-1]}/agreement/"),
        ("employer apply", employer, "/employer/apply/"),
        ("officer queue", staff["demo-officer-on-1"], "/officer/"),
        ("officer review", staff["demo-officer-on-1"], f"/officer/applications/{mine[-1]}/"),
        ("finance budgets", staff["demo-finance"], "/finance/budgets/"),
        ("analyst KPIs", staff["demo-analyst"], "/analyst/kpis/"),
    ]
    for language in ("en", "fr"):
        for name, client, path in pages:
            found.append(
                Endpoint(
                    f"page {name} ({language})",
                    lambda client=client, path=f"/{language}{path}": client.get(path, follow=True),
                )
            )
    return found


def fiscal_year() -> str:
    from django.utils import timezone

    today = timezone.localdate()
    start = today.year if today.month >= 4 else today.year - 1
    return f"{start}-{(start + 1) % 100:02d}"


# --- The measure -------------------------------------------------------------------------------


def measure(
    endpoint: Endpoint,
    repeat: int,
    profile: Path | None,
    shares: list[list[float]] | None,
    show_sql: bool = False,
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    endpoint.ask()  # what a process reads once (caches, templates) is read now
    with CaptureQueriesContext(connection) as captured:  # the SQL of one request counted
        answer = endpoint.ask()
    if answer.status_code != endpoint.expect or "/sign-in/" in answer.request["PATH_INFO"]:
        where = answer.request["PATH_INFO"]
        raise RuntimeError(
            f"{endpoint.name}: {answer.status_code} {where} {answer.content[:300]!r}"
        )
    endpoint.statements = len(captured.captured_queries)
    if show_sql:
        print(f"\n--- {endpoint.name}: {endpoint.statements} statements")
        for query in captured.captured_queries:
            print(f"  {query['sql'][:300]}")
    profiler = cProfile.Profile(time.process_time) if profile else None
    for _ in range(repeat):
        if profiler:
            profiler.enable()
        began = time.process_time()
        answer = endpoint.ask()
        endpoint.samples.append(time.process_time() - began)
        if profiler:
            profiler.disable()
        if shares is not None:
            shares.append(middleware_shares())
        if answer.status_code != endpoint.expect:
            raise RuntimeError(f"{endpoint.name}: {answer.status_code}")
    if profiler and profile:
        profile.mkdir(parents=True, exist_ok=True)
        path = profile / (re.sub(r"[^A-Za-z0-9]+", "-", endpoint.name).strip("-") + ".prof")
        profiler.dump_stats(path)
        text = io.StringIO()
        pstats.Stats(str(path), stream=text).sort_stats("tottime").print_stats(12)
        print(f"\n--- {endpoint.name}: {path}\n{text.getvalue()[-3500:]}")


def _ms(samples: list[float], quantile: float) -> float:
    ordered = sorted(samples)
    if quantile == 0.5:
        return 1000 * statistics.median(ordered)
    return 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * quantile))]


def run(arguments: argparse.Namespace) -> None:
    from django.conf import settings

    repeat = arguments.repeat
    spare = repeat + 2
    if arguments.middleware:
        settings.MIDDLEWARE = with_stopwatches(list(settings.MIDDLEWARE))
    data = seed(arguments.files, spare)
    chosen = [
        e
        for e in endpoints(data)
        if not arguments.only or any(word.lower() in e.name.lower() for word in arguments.only)
    ]
    shares: dict[str, list[list[float]]] = {}
    for endpoint in chosen:
        endpoint_shares: list[list[float]] | None = [] if arguments.middleware else None
        measure(endpoint, repeat, arguments.profile, endpoint_shares, arguments.sql)
        if endpoint_shares is not None:
            shares[endpoint.name] = endpoint_shares
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"\n{settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, {repeat} requests "
        f"per endpoint, {arguments.files} files; load average {load}"
    )
    print(f"{'endpoint':<44} {'CPU ms p50':>10} {'p90':>6} {'SQL':>4}")
    for endpoint in chosen:
        print(
            f"{endpoint.name:<44} {_ms(endpoint.samples, 0.5):>10.2f} "
            f"{_ms(endpoint.samples, 0.9):>6.2f} {endpoint.statements:>4}"
        )
    print_crowd(chosen)
    api_reads = [statistics.median(e.samples) for e in chosen if e.name.startswith("api GET")]
    if api_reads:
        print(f"median of the API reads' medians: {1000 * statistics.median(api_reads):.2f} ms")
    if shares:
        print_shares(shares)


#: bench/load/locustfile.py's crowd: each task's share of all tasks (its kind's weight in the
#: crowd times its weight among the kind's tasks), with the endpoints it asks.
CROWD_TASKS: list[tuple[float, list[str]]] = [
    # (the share of all tasks, the endpoints the task asks)
    *(
        (0.30 * w / 12, e)
        for w, e in [
            (3, ["api POST /quote"]),
            (2, ["api POST /applications", "api POST /applications/[id]/submit"]),
            (3, ["api GET /applications"]),
            (3, ["api GET /applications/[id]"]),
            (1, ["api GET /applications/[id]/agreement"]),
        ]
    ),
    *(
        (0.30 * w / 9, [f"page employer {p}"])
        for w, p in [(4, "dashboard"), (3, "application"), (1, "agreement"), (1, "apply")]
    ),
    *(
        (0.10 * w / 7, e)
        for w, e in [
            (3, ["api POST /applications/[id]/recommend"]),
            (2, ["page officer queue"]),
            (2, ["page officer review"]),
        ]
    ),
    *(
        (0.10 * w / 7, e)
        for w, e in [
            (3, ["api POST /applications/[id]/approve"]),
            (2, ["page officer queue"]),
            (2, ["page officer review"]),
        ]
    ),
    (0.10 * 2 / 3, ["page finance budgets"]),
    (0.10 / 3, ["api GET /budgets"]),
    (0.10 * 2 / 3, ["page analyst KPIs"]),
    (0.10 / 3, ["api GET /kpis"]),
]


def print_crowd(chosen: list[Endpoint]) -> None:
    """The CPU of an average request of make load's crowd, its tasks weighted as the
    locustfile weighs them (a page: the mean of its two languages; the apply page's redirect
    and an application's making and submitting: two requests a task)."""
    medians: dict[str, list[float]] = {}
    for endpoint in chosen:
        key = endpoint.name.split(" (")[0]
        medians.setdefault(key, []).append(statistics.median(endpoint.samples))
    cpu = requests = 0.0
    for share, names in CROWD_TASKS:
        if any(name not in medians for name in names):
            return  # not every endpoint was measured (--only)
        cpu += share * sum(statistics.mean(medians[name]) for name in names)
        requests += share * (2 if names == ["page employer apply"] else len(names))
    per_request = 1000 * cpu / requests
    print(
        f"the crowd's average request: {per_request:.2f} ms of CPU (this process only): at "
        f"most {2000 / per_request:.0f} requests/s on two idle cores"
    )


def print_shares(shares: dict[str, list[list[float]]]) -> None:
    from django.conf import settings

    names = [
        path.rsplit(".", 1)[-1] for path in settings.MIDDLEWARE if ".stopwatch_" not in path
    ] + ["(the view)"]
    print("\nEach middleware's own CPU per request, median ms (the view's with process_view):")
    columns = list(shares)
    print(f"{'':<28}" + "".join(f"{n[:12]:>13}" for n in range(len(columns)) for n in [str(n)]))
    for position, name in enumerate(names):
        medians = [statistics.median(s[position] for s in shares[c]) for c in columns]
        print(f"{name[:28]:<28}" + "".join(f"{1000 * m:>13.3f}" for m in medians))
    for number, column in enumerate(columns):
        print(f"  {number}: {column}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="postgresql")
    parser.add_argument("--name", default="jobgrant_request_cpu", help="the PostgreSQL database")
    parser.add_argument("--repeat", type=int, default=30, help="requests timed per endpoint")
    parser.add_argument("--files", type=int, default=30, help="the employer account's files")
    parser.add_argument("--only", action="append", help="endpoints whose name has this word")
    parser.add_argument("--middleware", action="store_true", help="each middleware's share")
    parser.add_argument("--profile", type=Path, help="a directory for cProfile's statistics")
    parser.add_argument("--sql", action="store_true", help="print each endpoint's statements")
    arguments = parser.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory(prefix="jobgrant-request-cpu-") as var:
        os.environ.update(
            {
                "JOBGRANT_VAR_DIR": var,
                "JOBGRANT_ENV": "development",
                "JOBGRANT_EMAIL_BACKEND": "file",
                **{
                    f"JOBGRANT_RATE_{name}": "1000000/m"
                    for name in ("SIGN_IN", "TOKEN", "SUBMIT", "SECOND_FACTOR", "REGISTER")
                },
            }
        )
        if arguments.database == "sqlite":
            os.environ["JOBGRANT_DATABASE_URL"] = f"sqlite:///{var}/requests.sqlite3"
            _setup_and_run(arguments)
            return
        os.environ["JOBGRANT_DATABASE_URL"] = f"{POSTGRES_SERVER}/{arguments.name}"
        _setup_and_run(arguments, postgres=arguments.name)


def _postgres(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{POSTGRES_SERVER}/postgres", autocommit=True) as connection:
        connection.execute(statement)


def _setup_and_run(arguments: argparse.Namespace, postgres: str | None = None) -> None:
    from jobgrant.service.commands import setup_django

    setup_django()
    if postgres is None:
        run(arguments)
        return
    from django.db import connection

    from jobgrant.service.migrated_template import postgres_template

    template = postgres_template(connection.settings_dict)
    _postgres(f'DROP DATABASE IF EXISTS "{postgres}" WITH (FORCE)')
    _postgres(f'CREATE DATABASE "{postgres}"' + (f' TEMPLATE "{template}"' if template else ""))
    try:
        run(arguments)
    finally:
        connection.close()
        _postgres(f'DROP DATABASE IF EXISTS "{postgres}" WITH (FORCE)')


if __name__ == "__main__":
    main()
