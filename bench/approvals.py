"""Benchmark of the approval path through the HTTP API, against the production server.

    make bench                                   # SQLite, then PostgreSQL
    python bench/approvals.py --database postgresql --applications 4000 --workers 6

For each database it prepares a fresh one (a SQLite file in a temporary directory, or a
PostgreSQL database it creates and drops afterwards), migrated and loaded with the demonstration
data, and registers --employers employers for demo-employer directly in the database (the API has
no registration endpoint). It starts gunicorn on jobgrant.service.wsgi with `jobgrant serve`'s
command line (4 worker processes x 1 thread, the sync worker, unless --workers or --threads say
otherwise) on a free port, its access log discarded, creates the applications through
the API, then takes every one through submit (as demo-employer), recommend (demo-officer-on-1,
who first reads each file's risk flags and clears the open ones: step `flags`, one file a
request) and approve (demo-officer-on-2), one step after the other, with --clients concurrent
clients, each on its own connection (kept alive by gthread workers; the sync worker closes it
after each answer and the client opens another), every POST with an Idempotency-Key.
Applications are spread over the employers, so approvals contend for the budget rows and the
audit head, not for one employer's row.

For each step it prints requests per second, p50 and p99 latency, and the CPU time spent per
request by the server (gunicorn's workers plus, on PostgreSQL, their backends) and by the
clients; `approve` is the figure the service is held to (on PostgreSQL: at least 200 approvals
per second with p99 under 150 ms on the 2-core machine). The load average is printed because
other work on the machine changes the figures. An answer other than the expected status counts
as an error, and any error makes the exit status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import http.client
import json
import os
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jobgrant.service.api.examples import EXAMPLE_DECLARATIONS
from jobgrant.service.commands import THREADS, WORKERS, gunicorn_arguments

ROOT = Path(__file__).resolve().parents[1]
POSTGRES_SERVER = os.environ.get("JOBGRANT_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432")
BENCH_DATABASE = os.environ.get("JOBGRANT_BENCH_DATABASE", "jobgrant_bench")
PASSWORD = "jobgrant-demo"


# --- The server under test ------------------------------------------------------------------


@contextlib.contextmanager
def database(kind: str, name: str = BENCH_DATABASE) -> Iterator[dict[str, str]]:
    """The environment for a fresh database of `kind` (on PostgreSQL, named `name`), removed
    afterwards."""
    with tempfile.TemporaryDirectory(prefix="jobgrant-bench-") as var:
        # One employer creates thousands of applications here: past the production rate limit
        # of submissions (30 an hour), which is not what this measures.
        env = {
            **os.environ,
            "JOBGRANT_VAR_DIR": var,
            "JOBGRANT_ENV": "development",
            "JOBGRANT_RATE_SUBMIT": "1000000/m",
        }
        if kind == "sqlite":
            yield {**env, "JOBGRANT_DATABASE_URL": f"sqlite:///{var}/bench.sqlite3"}
            return
        _postgres(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        _postgres(f"CREATE DATABASE {name}")
        try:
            yield {**env, "JOBGRANT_DATABASE_URL": f"{POSTGRES_SERVER}/{name}"}
        finally:
            _postgres(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _postgres(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{POSTGRES_SERVER}/postgres", autocommit=True) as connection:
        connection.execute(statement)


def prepare(env: dict[str, str], employers: int) -> None:
    """Migrate, load the demonstration data and register employers (in a child process, since
    Django is configured once per process)."""
    subprocess.run(
        [sys.executable, __file__, "--register-employers", str(employers)], env=env, check=True
    )


def register_employers(count: int) -> None:
    from jobgrant.service.commands import prepare_database

    prepare_database(with_demo=True)
    from jobgrant.service.accounts.models import User
    from jobgrant.service.demo_support import business_number
    from jobgrant.service.registry.models import Employer, Verification

    created = Employer.objects.bulk_create(
        Employer(
            business_number=business_number(f"{40_000_000 + n}"),
            verification=Verification.VERIFIED,  # as if an officer had verified it
            name=f"Bench {n}",
            employees=40,
            naics="332710",
            jurisdiction="ON",
            region="3550",
        )
        for n in range(count)
    )
    User.objects.get(username="demo-employer").employers.add(*created)


@dataclass(frozen=True)
class Server:
    port: int
    pid: int  # gunicorn's master
    database_url: str

    def cpu_seconds(self) -> tuple[dict[int, float], dict[int, float]]:
        """CPU time used so far by each worker, and by each PostgreSQL backend serving them."""
        workers = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()
        backends = _postgres_backends(self.database_url)
        return (
            {int(pid): _process_cpu(int(pid)) for pid in workers},
            {pid: _process_cpu(pid) for pid in backends},
        )


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU time used between two readings (a backend that ended in between is left out)."""
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def _process_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # the process has ended
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _postgres_backends(database_url: str, database: str = BENCH_DATABASE) -> list[int]:
    if not database_url.startswith("postgresql"):
        return []
    import psycopg

    with psycopg.connect(f"{POSTGRES_SERVER}/postgres", autocommit=True) as connection:
        rows = connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (database,),
        ).fetchall()
    return [int(pid) for (pid,) in rows]


@contextlib.contextmanager
def server(env: dict[str, str], workers: int, threads: int) -> Iterator[Server]:
    """gunicorn on a free port, as `jobgrant serve` runs it (with these workers and threads)."""
    port = _free_port()
    command = [sys.executable, "-m", *gunicorn_arguments(f"127.0.0.1:{port}", workers, threads)]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        _wait_until_up(port, process)
        yield Server(port, process.pid, env["JOBGRANT_DATABASE_URL"])
    finally:
        process.terminate()
        process.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_up(port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 300  # a loaded machine starts slowly
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"the server stopped: {process.stderr.read() if process.stderr else ''}"
            )
        with contextlib.suppress(OSError):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/api/v1/openapi.json")
            if connection.getresponse().status == 200:
                return
        time.sleep(0.2)
    raise RuntimeError("the server did not answer within 300 s")


# --- Clients --------------------------------------------------------------------------------

Send = Callable[[http.client.HTTPConnection, Any], tuple[int, Any]]


@dataclass
class Step:
    name: str
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    results: list[Any] = field(default_factory=list)
    seconds: float = 0.0
    server_cpu: float = 0.0  # gunicorn's workers
    database_cpu: float = 0.0  # their PostgreSQL backends
    client_cpu: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


def post(
    connection: http.client.HTTPConnection, path: str, token: str, body: Any, key: str
) -> tuple[int, Any]:
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {token}",
        "Idempotency-Key": key,
    }
    connection.request("POST", f"/api/v1{path}", body=json.dumps(body), headers=headers)
    response = connection.getresponse()
    return response.status, json.loads(response.read() or b"null")


def run_step(
    name: str, server: Server, clients: int, work: list[Any], send: Send, expected: int
) -> Step:
    """Send one request per item of `work` from `clients` threads, as fast as they answer."""
    step, pending = Step(name), queue.SimpleQueue[Any]()
    for item in work:
        pending.put(item)
    start = threading.Barrier(clients + 1)
    threads = [
        threading.Thread(target=_client, args=(server.port, pending, send, expected, step, start))
        for _ in range(clients)
    ]
    for thread in threads:
        thread.start()
    server_cpu, client_cpu = server.cpu_seconds(), time.process_time()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    step.seconds = time.perf_counter() - began
    (workers, backends), (workers_before, backends_before) = server.cpu_seconds(), server_cpu
    step.server_cpu = cpu_used(workers_before, workers)
    step.database_cpu = cpu_used(backends_before, backends)
    step.client_cpu = time.process_time() - client_cpu
    return step


def _client(
    port: int,
    pending: queue.SimpleQueue[Any],
    send: Send,
    expected: int,
    step: Step,
    start: threading.Barrier,
) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    start.wait()
    while True:
        try:
            item = pending.get_nowait()
        except queue.Empty:
            break
        began = time.perf_counter()
        try:
            status, answer = send(connection, item)
        except (OSError, http.client.HTTPException) as error:
            status, answer = 0, f"{type(error).__name__}: {error}"
            connection.close()
        elapsed = time.perf_counter() - began
        with step.lock:
            step.latencies.append(elapsed)
            if status == expected:
                step.results.append(answer)
            else:
                step.errors.append(f"{status} {answer}")
    connection.close()


def get(port: int, path: str, token: str | None = None, body: Any = None) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    method = "GET" if body is None else "POST"
    connection.request(
        method, f"/api/v1{path}", body=json.dumps(body) if body else None, headers=headers
    )
    answer = json.loads(connection.getresponse().read())
    connection.close()
    return answer


def token(port: int, username: str) -> str:
    """The officers pass the second factor with the demonstration secret's code (README)."""
    from jobgrant.service.accounts.demo_credentials import demo_code

    body = {"username": username, "password": PASSWORD, "client": "bench"}
    if username != "demo-employer":
        body["otp"] = demo_code()
    return str(get(port, "/auth/token", body=body)["token"])


# --- The benchmark --------------------------------------------------------------------------


def application_body(employer: dict[str, Any], today: dt.date) -> dict[str, Any]:
    """An Ontario application for training that starts and ends in the current fiscal year."""
    year_end = dt.date(today.year + (today.month >= 4), 3, 31)
    start = min(today + dt.timedelta(days=14), year_end - dt.timedelta(days=1))
    end = min(start + dt.timedelta(days=28), year_end)
    return {
        "jurisdiction": "ON",
        "region": "3550",
        "employers": [{"id": "e", "business_number": employer["business_number"]}],
        "training": {
            "setting": "off-site",
            "start_date": start.isoformat(),
            "end_date": end.isoformat(),
            "hours": 120,
            "provider": {"name": "Mohawk College", "third_party": True},
        },
        "trainees": [
            {
                "employer_id": "e",
                "status": "existing-employee",
                "costs": {
                    "tuition": "15000.00",
                    "student_fees": "0.00",
                    "materials": "0.00",
                    "exam_fees": "0.00",
                },
            }
        ],
        "declarations": EXAMPLE_DECLARATIONS,
    }


def benchmark(server: Server, applications: int, clients: int) -> list[Step]:
    employer, recommender, approver = (
        token(server.port, name)
        for name in ("demo-employer", "demo-officer-on-1", "demo-officer-on-2")
    )
    employers = [e for e in get(server.port, "/employers", employer) if e["name"][:6] == "Bench "]
    today = dt.datetime.now().astimezone().date()
    bodies = [application_body(employers[i % len(employers)], today) for i in range(applications)]

    def create(connection: http.client.HTTPConnection, item: tuple[int, Any]) -> tuple[int, Any]:
        return post(connection, "/applications", employer, item[1], f"create-{item[0]}")

    def clear_flags(connection: http.client.HTTPConnection, pk: int) -> tuple[int, Any]:
        """Clear the file's open risk flags as the recommending officer must (RISK_FLAGS_OPEN
        otherwise): the benchmark's files, alike and many, may flag one another's price."""
        connection.request(
            "GET",
            f"/api/v1/applications/{pk}/risk-flags",
            headers={"Authorization": f"Bearer {recommender}"},
        )
        response = connection.getresponse()
        flags = json.loads(response.read() or b"null")
        if response.status != 200:
            return response.status, flags
        for flag in flags:
            if flag["state"] == "open":
                reason = {"reason": "Benchmark: checked against the provider's published rates."}
                path = f"/risk-flags/{flag['id']}/clear"
                status, answer = post(connection, path, recommender, reason, f"clear-{flag['id']}")
                if status != 200:
                    return status, answer
        return 200, flags

    steps = [run_step("create", server, clients, list(enumerate(bodies)), create, 201)]
    ids = [answer["id"] for answer in steps[0].results]
    for name, actor in (("submit", employer), ("recommend", recommender), ("approve", approver)):
        if name == "recommend":
            steps.append(run_step("flags", server, clients, ids, clear_flags, 200))

        def act(
            connection: http.client.HTTPConnection, pk: int, name: str = name, actor: str = actor
        ) -> tuple[int, Any]:
            return post(connection, f"/applications/{pk}/{name}", actor, {}, f"{name}-{pk}")

        steps.append(run_step(name, server, clients, ids, act, 200))
    return steps


def report(kind: str, arguments: argparse.Namespace, load: float, steps: list[Step]) -> bool:
    print(
        f"\n{kind}: gunicorn {arguments.workers} workers x {arguments.threads} threads, "
        f"{arguments.clients} clients, "
        f"{os.cpu_count()} CPUs, load average {load:.1f} before the run"
    )
    print(
        f"  {'step':<10} {'requests':>8} {'per s':>7} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'errors':>6}   CPU ms per request: server, PostgreSQL, client"
    )
    for step in steps:
        latencies, n = sorted(step.latencies), len(step.latencies)
        p99 = latencies[min(n - 1, int(0.99 * n))]
        ms = [
            1000 * seconds / n for seconds in (step.server_cpu, step.database_cpu, step.client_cpu)
        ]
        print(
            f"  {step.name:<10} {n:>8} {n / step.seconds:>7.1f} "
            f"{1000 * statistics.median(latencies):>7.1f} {1000 * p99:>7.1f} "
            f"{len(step.errors):>6}   {ms[0]:>6.1f} {ms[1]:>6.1f} {ms[2]:>6.1f}"
        )
        for error in step.errors[:3]:
            print(f"    error: {error[:200]}")
    approve = steps[-1]
    cpu = (approve.server_cpu + approve.database_cpu + approve.client_cpu) / len(approve.latencies)
    print(
        f"  => {len(approve.results) / approve.seconds:.0f} approvals per second; at "
        f"{1000 * cpu:.1f} ms of CPU each, {os.cpu_count()} idle CPUs could do at most "
        f"{(os.cpu_count() or 1) / cpu:.0f}"
    )
    return all(not step.errors for step in steps)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--applications", type=int, default=1000)
    parser.add_argument("--employers", type=int, default=200)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=WORKERS, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=THREADS, help="threads per gunicorn worker")
    parser.add_argument("--register-employers", type=int, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.register_employers is not None:
        register_employers(arguments.register_employers)
        return 0
    kinds = ["sqlite", "postgresql"] if arguments.database == "both" else [arguments.database]
    ok = True
    for kind in kinds:
        with database(kind) as env:
            prepare(env, arguments.employers)
            load = os.getloadavg()[0]
            with server(env, arguments.workers, arguments.threads) as running:
                steps = benchmark(running, arguments.applications, arguments.clients)
            ok &= report(kind, arguments, load, steps)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
