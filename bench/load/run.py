"""`make load`: a crowd of simulated people (Locust, headless) against `jobgrant serve` and
`jobgrant worker` on PostgreSQL; its figures go in docs/benchmarks.md.

    make load                                  # 100 users for 90 s (LOAD_USERS, LOAD_SECONDS)
    make load-ci                               # a few users for a few seconds, 0 failures required
    python bench/load/run.py --users 100 --seconds 90 --database jobgrant_load

What it does, in order:
1. A database of its own (--database, dropped first if it is there) on the PostgreSQL server
   of JOBGRANT_BENCH_POSTGRES (default postgresql://postgres@127.0.0.1:5432; `make load` sets
   it to the server of POSTGRES_URL), created from the migrated template
   (migrated_template.py), loaded with the demonstration data and with
   --employers employer accounts (`load-employer-N`, each the administrator of an organization
   of its own, the demonstration password), and API tokens for the crowd's accounts (issued by
   the service's own action, so that no second-factor code is spent on them).
2. `jobgrant serve --no-migrate` (4 gunicorn workers, as in production) on a free port, and
   `jobgrant worker` beside it (messages written as files to a temporary directory), with the
   rate limits raised through their documented settings (JOBGRANT_RATE_*, docs/guide/accounts.md):
   every simulated person comes from 127.0.0.1, and one employer account is shared by several
   of them.
3. Every account of the crowd signs in once through the sign-in page (staff with their
   authenticator's code, once each); the sessions are shared by the simulated people of that
   account (bench/load/locustfile.py: the crowd and its weights).
4. Locust, headless, --users at --spawn-rate for --seconds; then its figures: requests,
   failures, p50/p95/p99 per endpoint and overall, requests per second, and the CPU the server
   spent per request: the gunicorn workers' CPU time and their PostgreSQL backends', read from
   /proc before and after the run, divided by the requests answered (the worker's CPU is
   printed beside it), and the CPU Locust itself used per request (it runs on the same
   cores). The load average is printed before and after: other work on the machine changes
   every figure.
5. `jobgrant ledger verify` and `jobgrant audit verify` on the database, then the servers stop
   and the database is dropped (--keep keeps it).

With --cpu-by-endpoint, `jobgrant serve` serves bench/load/timed_app.py's application (the
service's, each request timed on its worker's CPU clock), and the run also prints the median and
90th percentile of the CPU of a request of each route during Locust's run, and the median of
the API reads' medians (the target for it: at most 10 ms).

The exit status is 1 when a check fails, when the verifications fail, or, with
--require-no-failures (make load-ci), when any request failed.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[1]
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from approvals import _free_port, _postgres_backends, _process_cpu, cpu_used  # noqa: E402

POSTGRES_SERVER = os.environ.get("JOBGRANT_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432")
PASSWORD = "jobgrant-demo"
STAFF = ("demo-officer-on-1", "demo-officer-on-2", "demo-finance", "demo-analyst")
# Raised for the crowd (docs/guide/accounts.md names each setting): all of it comes from one
# address, and a few accounts are shared by many simulated people.
RAISED_RATES = {
    f"JOBGRANT_RATE_{name}": "1000000/m"
    for name in ("SIGN_IN", "TOKEN", "SUBMIT", "SECOND_FACTOR", "PASSWORD_RESET", "REGISTER")
}


# --- The database ----------------------------------------------------------------------------


def _postgres(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{POSTGRES_SERVER}/postgres", autocommit=True) as connection:
        connection.execute(statement)


@contextlib.contextmanager
def load_database(name: str, env: dict[str, str], keep: bool) -> Iterator[str]:
    """A fresh database `name` made from the migrated template; its URL. Dropped afterwards."""
    url = f"{POSTGRES_SERVER}/{name}"
    template = _child(["--template"], {**env, "JOBGRANT_DATABASE_URL": url}).strip().splitlines()
    _postgres(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _postgres(f'CREATE DATABASE "{name}" TEMPLATE "{template[-1]}"')
    try:
        yield url
    finally:
        if not keep:
            _postgres(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _child(arguments: list[str], env: dict[str, str]) -> str:
    """This script in a child process (Django is configured once per process); its output."""
    done = subprocess.run(
        [sys.executable, __file__, *arguments], env=env, check=True, capture_output=True, text=True
    )
    return done.stdout


def make_template() -> None:
    from jobgrant.service.commands import setup_django

    setup_django()
    from django.db import connection

    from jobgrant.service.migrated_template import postgres_template

    print(postgres_template(connection.settings_dict))


def seed(employers: int) -> None:
    """The demonstration data, the employer accounts and the crowd's API tokens (JSON out)."""
    from jobgrant.service.commands import prepare_database

    prepare_database(with_demo=True)
    from django.db import transaction

    from jobgrant.service.accounts.actions import issue_api_token
    from jobgrant.service.accounts.models import User
    from jobgrant.service.accounts.organization_models import OrganizationRole
    from jobgrant.service.demo_support import business_number
    from jobgrant.service.registry.models import Employer, Verification

    template = User.objects.get(username="demo-employer")
    accounts = []
    with transaction.atomic():
        for n in range(employers):
            user = User.objects.create(
                username=f"load-employer-{n}",
                email=f"load-employer-{n}@example.ca",
                role=template.role,
                password=template.password,  # the demonstration password, already hashed
                preferred_language="fr" if n % 2 else "en",
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
            accounts.append(
                {
                    "username": user.username,
                    "business_number": organization.business_number,
                    "token": issue_api_token(user, client="load"),
                }
            )
    staff = {
        name: issue_api_token(User.objects.get(username=name), client="load") for name in STAFF
    }
    print(json.dumps({"employers": accounts, "staff": staff, "pages": page_addresses()}))


#: The pages the crowd opens, by route; {pk} stands for an application's id.
PAGES = (
    "sign-out",
    "employer-dashboard",
    "employer-application",
    "employer-agreement",
    "employer-apply",
    "officer-queue",
    "officer-review",
    "finance-budgets",
    "analyst-kpis",
)


def page_addresses() -> dict[str, dict[str, str]]:
    """Each page's address in each language, as the service writes it (the French ones have
    French words), with "{pk}" for the application's id."""
    from django.urls import reverse
    from django.utils import translation

    def address(name: str) -> str:
        ids = (
            {"application_id": 987654321}
            if name.endswith(("application", "agreement", "review"))
            else {}
        )
        return reverse(f"web:{name}", kwargs=ids).replace("987654321", "{pk}")

    found = {}
    for language in ("en", "fr"):
        with translation.override(language):
            found[language] = {name: address(name) for name in PAGES}
    return found


# --- The servers -----------------------------------------------------------------------------


@contextlib.contextmanager
def servers(
    env: dict[str, str], port: int, workers: int, timed: bool = False
) -> Iterator[dict[str, int]]:
    """`jobgrant serve` (its pid becomes gunicorn's master) and `jobgrant worker`; with `timed`,
    `jobgrant serve` serving timed_app.py's application (--cpu-by-endpoint)."""
    jobgrant = str(Path(sys.executable).with_name("jobgrant"))
    log = Path(env["JOBGRANT_VAR_DIR"])
    command = [jobgrant, "serve", "--port", str(port), "--workers", str(workers), "--no-migrate"]
    if timed:
        command = [sys.executable, __file__, "--serve-timed", str(port), str(workers)]
        path = os.pathsep.join(p for p in (str(BENCH / "load"), env.get("PYTHONPATH")) if p)
        env = {**env, "PYTHONPATH": path}
    serve = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(log / "serve.log").open("w"),
        start_new_session=True,
    )
    worker = subprocess.Popen(
        [jobgrant, "worker", "--worker-id", "load"],
        env=env,
        stdout=(log / "worker.log").open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _wait_until_up(port, serve, log / "serve.log")
        yield {"serve": serve.pid, "worker": worker.pid}
    finally:
        for process in (serve, worker):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in (serve, worker):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _wait_until_up(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    import requests

    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(requests.RequestException):
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                return
        time.sleep(0.3)
    raise RuntimeError("the server did not answer within 300 s")


def serve_timed(port: int, workers: int) -> None:
    """`jobgrant serve --no-migrate` as it is, but gunicorn serving timed_app.py's application."""
    from jobgrant.service import commands

    arguments = commands.gunicorn_arguments

    def timed_arguments(*args: Any, **kwargs: Any) -> list[str]:
        found = arguments(*args, **kwargs)
        return [
            "timed_app:application" if part == "jobgrant.service.wsgi:application" else part
            for part in found
        ]

    commands.gunicorn_arguments = timed_arguments  # type: ignore[assignment]
    commands.setup_django()
    commands.serve("127.0.0.1", port, workers, migrate=False)


def cpu_by_endpoint(folder: Path, began: float, ended: float) -> None:
    """The median CPU of a request of each route, in the workers, during Locust's run."""
    import statistics

    samples: dict[str, list[float]] = {}
    for found in folder.glob("*.json"):
        for key, pairs in json.loads(found.read_text()).items():
            samples.setdefault(key, []).extend(c for at, c in pairs if began <= at <= ended)
    print(f"\n{'CPU in the workers, by route':<58} {'requests':>8} {'p50 ms':>7} {'p90 ms':>7}")
    for key, cpu in sorted(samples.items(), key=lambda item: -sum(item[1])):
        if cpu:
            cpu.sort()
            p90 = cpu[min(len(cpu) - 1, int(0.9 * len(cpu)))]
            print(
                f"{key[:58]:<58} {len(cpu):>8} {1000 * statistics.median(cpu):>7.1f} "
                f"{1000 * p90:>7.1f}"
            )
    reads = [
        statistics.median(cpu)
        for key, cpu in samples.items()
        if cpu and key.startswith("GET /api/")
    ]
    if reads:
        print(f"median of the API reads' medians: {1000 * statistics.median(reads):.1f} ms")


def _cpu(pid: int) -> dict[int, float]:
    """CPU seconds so far of `pid` and of each of its children (gunicorn's workers)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return {pid: _process_cpu(pid), **{int(c): _process_cpu(int(c)) for c in children}}


# --- Signing the crowd in --------------------------------------------------------------------


def sign_in(base: str, username: str) -> dict[str, str]:
    """Sign `username` in through the pages (staff with the code of their authenticator); the
    session's cookies."""
    import requests

    from jobgrant.service.accounts.demo_credentials import demo_code

    session = requests.Session()
    page = session.get(f"{base}/en/sign-in/", timeout=60)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, "no CSRF token on the sign-in page"
    form = {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1)}
    headers = {"Referer": f"{base}/en/sign-in/", "Origin": base}
    answer = session.post(f"{base}/en/sign-in/", data=form, headers=headers, timeout=60)
    if "/sign-in/code/" in answer.url:
        code_form = {"code": demo_code(), "csrfmiddlewaretoken": session.cookies["csrftoken"]}
        headers = {"Referer": answer.url, "Origin": base}
        answer = session.post(answer.url, data=code_form, headers=headers, timeout=60)
    if "/sign-in/" in answer.url or "sessionid" not in session.cookies:
        raise RuntimeError(f"{username} could not sign in: {answer.status_code} {answer.url}")
    return {name: str(session.cookies[name]) for name in ("sessionid", "csrftoken")}


# --- The figures -----------------------------------------------------------------------------


def read_stats(prefix: Path) -> list[dict[str, str]]:
    with Path(f"{prefix}_stats.csv").open() as stats:
        return list(csv.DictReader(stats))


def report(
    rows: list[dict[str, str]],
    seconds: float,
    server_cpu: float,
    database_cpu: float,
    worker_cpu: float,
    loads: tuple[str, str],
) -> tuple[int, int]:
    """Print the table; (requests, failures) overall."""
    print(f"\nload average before the run {loads[0]}, after it {loads[1]} ({os.cpu_count()} CPUs)")
    print(
        f"{'endpoint':<58} {'requests':>8} {'fail':>5} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'p99 ms':>7} {'per s':>6}"
    )
    total = next(row for row in rows if row["Name"] == "Aggregated")
    for row in sorted(rows, key=lambda r: (r["Name"] == "Aggregated", r["Type"], r["Name"])):
        name = "overall" if row["Name"] == "Aggregated" else f"{row['Type']} {row['Name']}"
        print(
            f"{name[:58]:<58} {row['Request Count']:>8} {row['Failure Count']:>5} "
            f"{row['50%']:>7} {row['95%']:>7} {row['99%']:>7} "
            f"{float(row['Requests/s']):>6.1f}"
        )
    requests, failures = int(total["Request Count"]), int(total["Failure Count"])
    per_request = 1000 * (server_cpu + database_cpu) / max(requests, 1)
    print(
        f"\n{requests} requests, {failures} failures in {seconds:.0f} s: "
        f"{float(total['Requests/s']):.1f} requests/s"
    )
    print(
        f"server CPU per request {per_request:.1f} ms (gunicorn's workers "
        f"{1000 * server_cpu / max(requests, 1):.1f} ms, their PostgreSQL backends "
        f"{1000 * database_cpu / max(requests, 1):.1f} ms); the worker used {worker_cpu:.1f} s"
    )
    return requests, failures


def verify(env: dict[str, str]) -> bool:
    jobgrant = str(Path(sys.executable).with_name("jobgrant"))
    ok = True
    for command in (["ledger", "verify"], ["audit", "verify"]):
        done = subprocess.run([jobgrant, *command], env=env, capture_output=True, text=True)
        print(f"jobgrant {' '.join(command)}: {(done.stdout + done.stderr).strip()[-400:]}")
        ok &= done.returncode == 0
    return ok


def _load_average() -> str:
    return ", ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--seconds", type=int, default=90)
    parser.add_argument("--spawn-rate", type=float, default=10.0, help="users started a second")
    parser.add_argument("--employers", type=int, default=20, help="employer accounts")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--database", default=os.environ.get("LOAD_DATABASE", "jobgrant_load"))
    parser.add_argument("--port", type=int, default=0, help="the server's (default: a free one)")
    parser.add_argument("--require-no-failures", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument(
        "--cpu-by-endpoint",
        action="store_true",
        help="also time each request in the workers and print the CPU of each route",
    )
    parser.add_argument("--template", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-timed", nargs=2, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.template:
        make_template()
        return 0
    if arguments.seed is not None:
        seed(arguments.seed)
        return 0
    if arguments.serve_timed:
        serve_timed(*arguments.serve_timed)
        return 0

    with tempfile.TemporaryDirectory(prefix="jobgrant-load-") as var:
        env = {
            **os.environ,
            **RAISED_RATES,
            "JOBGRANT_VAR_DIR": var,
            "JOBGRANT_ENV": "development",
            "JOBGRANT_EMAIL_BACKEND": "file",
        }
        started = time.perf_counter()
        with load_database(arguments.database, env, arguments.keep) as url:
            env["JOBGRANT_DATABASE_URL"] = url
            accounts = json.loads(
                _child(["--seed", str(arguments.employers)], env).splitlines()[-1]
            )
            port = arguments.port or _free_port()
            base = f"http://127.0.0.1:{port}"
            if arguments.cpu_by_endpoint:
                env["JOBGRANT_LOAD_CPU_DIR"] = str(Path(var) / "cpu")
                Path(env["JOBGRANT_LOAD_CPU_DIR"]).mkdir()
            with servers(env, port, arguments.workers, arguments.cpu_by_endpoint) as pids:
                for account in accounts["employers"]:
                    account["cookies"] = sign_in(base, account["username"])
                accounts["staff_cookies"] = {name: sign_in(base, name) for name in STAFF}
                print(
                    f"Prepared in {time.perf_counter() - started:.0f} s: {arguments.database}, "
                    f"{arguments.employers} employer accounts, the servers on {base}",
                    flush=True,
                )
                crowd = Path(var) / "crowd.json"
                crowd.write_text(json.dumps(accounts))
                window = time.time()
                ok, counts = _run_locust(arguments, base, crowd, Path(var), pids, url)
                window_ended = time.time()
            if arguments.cpu_by_endpoint:  # the workers wrote their samples as they stopped
                cpu_by_endpoint(Path(var) / "cpu", window, window_ended)
            ok &= verify(env)
    requests, failures = counts
    if requests == 0:
        print("No request was answered.")
        return 1
    if arguments.require_no_failures and failures:
        print(f"{failures} requests failed; none may (--require-no-failures).")
        return 1
    return 0 if ok else 1


def _run_locust(
    arguments: argparse.Namespace,
    base: str,
    crowd: Path,
    var: Path,
    pids: dict[str, int],
    url: str,
) -> tuple[bool, tuple[int, int]]:
    prefix = var / "locust"
    database = url.rsplit("/", 1)[1]
    loads = [_load_average()]
    workers, backends = _cpu(pids["serve"]), _backends(database)
    worker = _cpu(pids["worker"])
    locust_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("locust")),
            "-f",
            str(BENCH / "load" / "locustfile.py"),
            "--headless",
            "--host",
            base,
            "--users",
            str(arguments.users),
            "--spawn-rate",
            str(arguments.spawn_rate),
            "--run-time",
            f"{arguments.seconds}s",
            "--stop-timeout",
            "30",
            "--csv",
            str(prefix),
            "--only-summary",
            "--loglevel",
            "WARNING",
            "--exit-code-on-error",
            "0",
        ],
        env={**os.environ, "JOBGRANT_LOAD_CROWD": str(crowd)},
        stdout=(var / "locust.log").open("w"),
        stderr=subprocess.STDOUT,
        check=False,
    )
    seconds = time.perf_counter() - began
    locust_after = resource.getrusage(resource.RUSAGE_CHILDREN)  # Locust, waited for above
    locust_cpu = sum(
        getattr(locust_after, f) - getattr(locust_before, f) for f in ("ru_utime", "ru_stime")
    )
    server_cpu = cpu_used(workers, _cpu(pids["serve"]))
    database_cpu = cpu_used(backends, _backends(database))
    worker_cpu = cpu_used(worker, _cpu(pids["worker"]))
    loads.append(_load_average())
    if not Path(f"{prefix}_stats.csv").exists():
        print(f"Locust stopped without its figures:\n{(var / 'locust.log').read_text()[-3000:]}")
        return False, (0, 0)
    rows = read_stats(prefix)
    failures_file = Path(f"{prefix}_failures.csv")
    counts = report(rows, seconds, server_cpu, database_cpu, worker_cpu, (loads[0], loads[1]))
    print(
        f"the load generator (Locust) used {1000 * locust_cpu / max(counts[0], 1):.1f} ms of CPU "
        "per request, on the same cores"
    )
    if failures_file.exists():
        for row in list(csv.DictReader(failures_file.open()))[:10]:
            error = row["Error"][:200]
            print(f"  failed: {row['Method']} {row['Name']}: {error} x{row['Occurrences']}")
    return done.returncode == 0, counts


def _backends(database: str) -> dict[int, float]:
    return {
        pid: _process_cpu(pid)
        for pid in _postgres_backends(f"{POSTGRES_SERVER}/{database}", database)
    }


if __name__ == "__main__":
    sys.exit(main())
