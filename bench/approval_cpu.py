"""CPU time of one approval in the service's own code, without HTTP: what `approve_application`
(the agreement issued with it) costs the server's process, per call.

    python bench/approval_cpu.py                      # PostgreSQL, 200 approvals
    python bench/approval_cpu.py --database sqlite --approvals 100
    python bench/approval_cpu.py --profile /tmp/approve.prof   # and a cProfile of the loop
    python bench/approval_cpu.py --http               # through the API's whole request stack
    python bench/approval_cpu.py --http --statements  # and the SQL of one approval

It prepares a fresh database (as bench/approvals.py does: a SQLite file in a temporary
directory, or a PostgreSQL database it creates and drops), loads the demonstration data, makes
--approvals applications for as many employers and takes each through submit and recommend,
then approves them one after the other, timing each call with the process's CPU clock
(time.process_time: on a loaded machine, wall-clock time says more about the neighbours than
about the code). It prints the median and the 90th percentile of the CPU ms per approval and per
submit, the SQL statements per approval, and the load average. With --http each approval is a
POST to /api/v1/applications/<id>/approve through Django's test client (the bearer token, the
Idempotency-Key, the middleware and the answer's JSON: what a gunicorn worker does for one,
less the socket), rather than a call of the action. With --profile it writes cProfile's
statistics of the approvals to that file and prints the 25 functions with the most cumulative
time.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from approvals import BENCH_DATABASE, application_body, database


def _median_p90(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return f"median {statistics.median(ordered) * 1000:.2f} ms, p90 {p90 * 1000:.2f} ms"


def _timed(calls: list[Callable[[], Any]], profiler: cProfile.Profile | None) -> list[float]:
    samples = []
    for call in calls:
        if profiler:
            profiler.enable()
        began = time.process_time()
        call()
        samples.append(time.process_time() - began)
        if profiler:
            profiler.disable()
    return samples


def _approve_over_http(approver: Any, made: list[Any]) -> list[Callable[[], Any]]:
    from django.test import Client

    from jobgrant.service.accounts.models import ApiToken

    client = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(approver)}")

    def approve(pk: int) -> None:
        answer = client.post(
            f"/api/v1/applications/{pk}/approve",
            "{}",
            content_type="application/json",
            headers={"Idempotency-Key": f"approve-{pk}"},
        )
        if answer.status_code != 200:
            raise RuntimeError(f"approve {pk}: {answer.status_code} {answer.content[:300]!r}")

    return [lambda pk=a.pk: approve(pk) for a in made]


def run(approvals: int, profile: str | None, http: bool = False, show: bool = False) -> None:
    from jobgrant.service.commands import prepare_database

    prepare_database(with_demo=True)
    from django.utils import timezone

    from jobgrant.service.accounts.models import User
    from jobgrant.service.demo_support import business_number, clear_demo_flags
    from jobgrant.service.grants.applications import actions
    from jobgrant.service.registry.models import Employer, Verification

    employer = User.objects.get(username="demo-employer")
    employer.email = employer.email or "demo-employer@example.ca"
    employer.save(update_fields=["email"])
    created = Employer.objects.bulk_create(
        Employer(
            business_number=business_number(f"{41_000_000 + n}"),
            verification=Verification.VERIFIED,  # as if an officer had verified it
            name=f"CPU bench {n}",
            employees=40,
            naics="332710",
            jurisdiction="ON",
            region="3550",
        )
        for n in range(approvals)
    )
    employer.employers.add(*created)
    recommender = User.objects.get(username="demo-officer-on-1")
    approver = User.objects.get(username="demo-officer-on-2")
    today = timezone.localdate()
    made = [actions.create_application(employer, application_body(vars(e), today)) for e in created]
    submits = _timed([lambda a=a: actions.submit_application(employer, a) for a in made], None)
    for application in made:
        clear_demo_flags(recommender, application)  # many like files flag each other's price
        actions.recommend_application(recommender, application)
    from django.db import connection

    profiler = cProfile.Profile(time.process_time) if profile else None
    calls = (
        _approve_over_http(approver, made)
        if http
        else [lambda a=a: actions.approve_application(approver, a) for a in made]
    )
    statements = []

    def counted(execute: Any, sql: str, *rest: Any) -> Any:
        statements.append(sql)
        return execute(sql, *rest)

    with connection.execute_wrapper(counted):
        approves = _timed(calls, profiler)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"load average {load}; {approvals} approvals{' over HTTP' if http else ''}")
    print(f"submit, CPU per call: {_median_p90(submits)}")
    print(f"approve, CPU per call: {_median_p90(approves)}")
    print(f"approve, SQL statements per call: {len(statements) / len(made):.1f}")
    if show:  # the last approval's, one per line
        for sql in statements[-len(statements) // len(made) :]:
            print("   ", " ".join(sql.split())[:220])
    if profiler and profile:
        profiler.dump_stats(profile)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="postgresql")
    parser.add_argument("--approvals", type=int, default=200)
    parser.add_argument("--profile", help="write cProfile statistics of the approvals here")
    parser.add_argument("--http", action="store_true", help="approve through the API")
    parser.add_argument("--statements", action="store_true", help="print an approval's SQL")
    arguments = parser.parse_args()
    with database(arguments.database, name=f"{BENCH_DATABASE}_cpu") as env:
        os.environ.update(env)
        run(arguments.approvals, arguments.profile, arguments.http, arguments.statements)


if __name__ == "__main__":
    main()
