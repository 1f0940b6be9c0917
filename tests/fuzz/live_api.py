"""Schemathesis against the live server: `make fuzz-api` (in `make test`) and `make fuzz`.

    python tests/fuzz/live_api.py --requests 5500 --coverage-once  # what CI runs
    python tests/fuzz/live_api.py --requests 20000                 # make fuzz

It starts the real server (`jobgrant serve`: migrate, demonstration data, gunicorn) on a free
127.0.0.1 port with a fresh SQLite database in a temporary directory (or the PostgreSQL database
given by --database-url), takes a bearer token for an employer and one for an officer through
POST /api/v1/auth/token, and runs `schemathesis run` over /api/v1/openapi.json once per token:
every phase (examples, coverage, fuzzing, stateful), valid and invalid data, and every check but
positive_data_acceptance (a body of the documented shape may still be refused, 422, for what only
the registry knows: an unregistered business number, an intake that is closed).

With --coverage-once (what CI runs) the coverage phase, Schemathesis's deterministic boundary
and negative values for every parameter and body of every operation (nine requests in ten of a
run), runs with the employer's token only, the outside caller's; the officer's token still
runs the examples, fuzzing and stateful phases over every operation. `make fuzz` runs every
phase with both tokens.

The budget is in requests, shared between the two tokens; Schemathesis counts test cases per
operation, so the script turns the budget into `--max-examples` with what was measured on this
API (the *_PER_OPERATION figures) and the number of operations in the live document, and prints
the requests actually made (the HAR report's entries). It
prints, per token, the requests, test cases and each kind of failure, and exits 1 on any failure
or error: 0 server errors and 0 schema violations are required. Nothing here is skipped, in CI
or elsewhere.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

BIN = Path(sys.executable).parent
PERSONAS = ("demo-employer", "demo-officer-on-1")
REQUEST_TIMEOUT_SECONDS = 30  # gunicorn's default worker timeout, which `jobgrant serve` keeps
DEMO_PASSWORD = "jobgrant-demo"  # jobgrant.service.demo.DEMO_PASSWORD (Django is not set up here)
# What Schemathesis made on this API per operation and token (measured 2026-12-05 over its 78
# operations with --max-examples 4 and the CI's seed, phase by phase): the examples and stateful
# phases about 2.8 requests whatever --max-examples is; the coverage phase about 56, also
# whatever --max-examples is; the fuzzing phase about 1.08 per unit of --max-examples.
EXAMPLES_AND_STATEFUL_PER_OPERATION = 2.8
COVERAGE_PER_OPERATION = 56
FUZZING_PER_OPERATION_AND_EXAMPLE = 1.08
COVERAGE_PERSONA = PERSONAS[0]  # --coverage-once: the employer, the outside caller
# positive_data_acceptance is left out: see the module's docstring.
CHECKS = ["all"]
EXCLUDED_CHECKS = ["positive_data_acceptance"]
STARTUP_SECONDS = (
    600  # migrate, collect and compress the static files, seed: minutes on a loaded CI machine
)
# One client thread: with more, CPython 3.11.7's ast.parse (called by Hypothesis to describe its
# strategies) fails at random with "SystemError: AST constructor recursion depth mismatch"
# (python/cpython#106905, fixed in later 3.11 releases), which Schemathesis reports as an error.


@dataclass
class Outcome:
    persona: str
    requests: int = 0
    test_cases: int = 0
    failures: dict[str, int] = field(default_factory=dict)  # failure title -> count
    errors: dict[str, int] = field(default_factory=dict)
    exit_code: int = 0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.failures and not self.errors


def main() -> int:
    options = _arguments()
    with tempfile.TemporaryDirectory(prefix="jobgrant-fuzz-") as var:
        database = options.database_url or f"sqlite:///{var}/fuzz.sqlite3"
        env = {
            **os.environ,
            "JOBGRANT_VAR_DIR": var,
            "JOBGRANT_ENV": "development",
            "JOBGRANT_DATABASE_URL": database,
            # What is fuzzed is every operation's handling of its input, not the rate limits
            # (tests/service/accounts/test_rate_limits.py): they would answer most requests 429.
            **{f"JOBGRANT_RATE_{name}": "1000000/m" for name in ("TOKEN", "SUBMIT")},
        }
        with live_server(env, options.workers) as base:
            decoy_tokens(base)
            count = operations(base)
            examples = max_examples(options.requests, count, options.coverage_once)
            coverage = COVERAGE_PERSONA if options.coverage_once else "both tokens"
            print(
                f"Schemathesis against {base}/api/v1 (jobgrant serve, {options.workers} "
                f"workers): {count} operations, budget {options.requests} requests, "
                f"--max-examples {examples}, the coverage phase with {coverage}",
                flush=True,
            )
            # Every token first: fuzzing POST /auth/token fails sign-ins from this address, and
            # ten of them lock it out (django-axes), as they would an attacker's.
            tokens = {persona: token(base, persona) for persona in PERSONAS}
            outcomes = [
                fuzz(base, persona, tokens[persona], examples, options, Path(var))
                for persona in PERSONAS
            ]
    report(outcomes)
    return 0 if all(o.ok for o in outcomes) else 1


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=5500, help="the budget, in requests")
    parser.add_argument("--seed", type=int, default=None, help="Schemathesis's seed")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--database-url", default="", help="default: a temporary SQLite file")
    parser.add_argument(
        "--coverage-once",
        action="store_true",
        help=f"the coverage phase with {COVERAGE_PERSONA}'s token only (CI)",
    )
    return parser.parse_args()


def operations(base: str) -> int:
    """The operations of the live document, which the budget is spread over."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request("GET", "/api/v1/openapi.json")
    paths = json.loads(connection.getresponse().read())["paths"]
    verbs = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    return sum(1 for path in paths.values() for verb in path if verb in verbs)


def max_examples(requests: int, operations: int, coverage_once: bool) -> int:
    """--max-examples for a budget of `requests`, from what was measured on this API."""
    tokens = len(PERSONAS)
    fixed = operations * (
        tokens * EXAMPLES_AND_STATEFUL_PER_OPERATION
        + (1 if coverage_once else tokens) * COVERAGE_PER_OPERATION
    )
    per_example = tokens * operations * FUZZING_PER_OPERATION_AND_EXAMPLE
    return max(1, round((requests - fixed) / per_example))


# --- The server -----------------------------------------------------------------------------


@contextlib.contextmanager
def live_server(env: dict[str, str], workers: int) -> Iterator[str]:
    """`jobgrant serve` on a free port; its log is printed if it stops early."""
    port = _free_port()
    command = [
        str(BIN / "jobgrant"),
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    log = Path(env["JOBGRANT_VAR_DIR"]) / "server.log"
    with log.open("w") as output:
        server = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
    try:
        _wait_until_up(port, server, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)
        _print_tracebacks(log)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_up(port: int, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server stopped:\n{log.read_text()}")
        with contextlib.suppress(OSError):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/api/v1/openapi.json")
            if connection.getresponse().status == 200:
                return
        time.sleep(0.5)
    raise SystemExit(f"the server did not answer within {STARTUP_SECONDS} s:\n{log.read_text()}")


def _print_tracebacks(log: Path) -> None:
    """What Schemathesis cannot see: a traceback behind a 500, a worker gunicorn killed or lost
    (a connection reset), both only in the server's log."""
    lines = log.read_text(errors="replace").splitlines()
    marks = ("Traceback", "[CRITICAL]", "[ERROR]", "WORKER TIMEOUT", "SIGKILL", "Worker (pid")
    noted = [i for i, line in enumerate(lines) if any(mark in line for mark in marks)]
    if noted:
        print("The server logged:\n" + "\n".join(lines[noted[0] :][:200]))


DECOYS = 30


def decoy_tokens(base: str) -> None:
    """Tokens 1 to 30, so that the ids Schemathesis tries first on POST /auth/tokens/{id}/revoke
    (1, 2, ...) revoke one of these, never the token it fuzzes with (which would turn every
    later request into a 401)."""
    for i in range(DECOYS):
        token(base, "demo-employer", client=f"decoy-{i}")


def token(base: str, username: str, client: str = "fuzz") -> str:
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    # Staff pass the second factor: the code of the published demonstration secret (README).
    from jobgrant.service.accounts.demo_credentials import demo_code

    credentials = {"username": username, "password": DEMO_PASSWORD, "client": client}
    body = json.dumps(
        {**credentials, **({} if username == "demo-employer" else {"otp": demo_code()})}
    )
    connection.request("POST", "/api/v1/auth/token", body, {"Content-Type": "application/json"})
    answer = connection.getresponse()
    if answer.status != 201:
        raise SystemExit(f"no token for {username}: {answer.status} {answer.read()!r}")
    return str(json.loads(answer.read())["token"])


# --- Schemathesis ---------------------------------------------------------------------------


def fuzz(
    base: str,
    persona: str,
    bearer: str,
    examples: int,
    options: argparse.Namespace,
    var: Path,
) -> Outcome:
    reports = var / f"report-{persona}"
    command = [
        str(BIN / "schemathesis"),
        "run",
        f"{base}/api/v1/openapi.json",
        "--header",
        f"Authorization: Bearer {bearer}",
        "--checks",
        ",".join(CHECKS),
        "--exclude-checks",
        ",".join(EXCLUDED_CHECKS),
        "--max-examples",
        str(examples),
        "--workers",
        "1",
        "--report",
        "json,har",
        "--report-dir",
        str(reports),
        "--no-color",
        "--suppress-health-check",
        "too_slow,filter_too_much",
        # An answer is a failure past gunicorn's worker timeout (30 s), which would kill it, not
        # past Schemathesis's 10 s: on a loaded CI machine a first PDF (fonts loaded, subset and
        # embedded by WeasyPrint) took longer than 10 s.
        "--request-timeout",
        str(REQUEST_TIMEOUT_SECONDS),
        # The same limit for the response-time check, which "all" turns on at 10 s (a PDF took
        # 10.6 s at a load of 15 on 2026-12-05): speed is measured in bench/, not here.
        "--max-response-time",
        str(REQUEST_TIMEOUT_SECONDS),
        *(["--seed", str(options.seed)] if options.seed is not None else []),
    ]
    if options.coverage_once and persona != COVERAGE_PERSONA:
        command += ["--phases", "examples,fuzzing,stateful"]
    print(f"\n=== {persona} ===", flush=True)
    # Run in the temporary directory: Schemathesis keeps its replay store in ./.schemathesis.
    finished = subprocess.run(command, capture_output=True, text=True, check=False, cwd=var)
    outcome = _read_reports(persona, reports, finished.returncode)
    if not outcome.ok:
        print(finished.stdout[-20000:], finished.stderr[-4000:], sep="\n")
    return outcome


def _read_reports(persona: str, reports: Path, exit_code: int) -> Outcome:
    outcome = Outcome(persona, exit_code=exit_code)
    run = json.loads(next(reports.glob("json-*.json")).read_text())
    har = json.loads(next(reports.glob("har-*.json")).read_text())
    outcome.requests = len(har["log"]["entries"])
    outcome.test_cases = int(run["test_cases"]["generated"])
    outcome.failures = {f"{f['code']} {f['title']}": int(f["count"]) for f in run["failures"]}
    outcome.errors = {e["title"]: int(e["count"]) for e in run["errors"]}
    return outcome


def report(outcomes: list[Outcome]) -> None:
    print("\nSchemathesis against the live API")
    print(f"checks: {','.join(CHECKS)} except {','.join(EXCLUDED_CHECKS)}")
    for o in outcomes:
        found = ", ".join(f"{title}: {n}" for title, n in {**o.failures, **o.errors}.items())
        print(
            f"  {o.persona:<20} {o.requests:>6} requests, {o.test_cases:>6} test cases, "
            f"failures: {found or 'none'}"
        )
    total = sum(o.requests for o in outcomes)
    failed = sum(sum(o.failures.values()) + sum(o.errors.values()) for o in outcomes)
    print(f"  {'total':<20} {total:>6} requests, {failed} failures and errors")


if __name__ == "__main__":
    sys.exit(main())
