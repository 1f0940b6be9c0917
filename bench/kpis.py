"""Benchmark of the KPIs on PostgreSQL: 1,000,000 trainees in 300,000 files.

    python bench/kpis.py [--files 300000] [--trainees 1000000] [--runs 3] [--keep]
                         [--redraw-equity] [--compare-jit]

It makes its own database (JOBGRANT_BENCH_POSTGRES, default postgresql://postgres@127.0.0.1:5432,
database JOBGRANT_BENCH_DATABASE, default jobgrant_bench_kpis), migrates it, and writes the rows
in bulk on the server (INSERT ... SELECT over generate_series: no action, no Python per row),
consistent as the actions would leave them: three fiscal years (2023-24 to 2025-26), twelve
jurisdictions weighted roughly by population (Quebec has its own agreement; Nunavut's files are
federal-direct), 88% of files approved with an agreement, exactly --trainees participant slots
shared by the approved files (3 or 4 each: a slot is made after approval), answers to the equity
questions drawn independently by a hash, one approved claim each paid per funder 5 to 64 days
after it was submitted, 3 in 100 with a receivable partly recovered, the ledger's commit and
claim legs and a release for 3 in 10; 1 in 20 files a consortium of two employers, a completion
report for 8 in 10 approved files and the 3- and 12-month follow-ups of the trainee and of the
employer; then VACUUM (ANALYZE), as autovacuum would after the load. The set-up is not timed.

Then, for the largest jurisdiction's page (Ontario), a small one's (Prince Edward Island) and
Canada's, each `--runs` times, it prints the median wall seconds, the CPU seconds of this process
and of the PostgreSQL backend that ran the queries (read from /proc: the same machine), and the
load average, of (ADR 0032):
- the page: the stored KPI cells read, added up and suppressed (`outcomes.snapshots.read`, what
  the page, the API and the reports call);
- for Canada, the annual report as `jobgrant report annual` makes it: the figures, the PDF in
  English and in French and the CSV of every table;
- the refresh: the scope's cells computed from the records and stored (what the worker does);
- with --compare-jit, the live `kpis.compute` with PostgreSQL's JIT as configured and off.
Stored cells of an earlier run are deleted first. The database is dropped afterwards unless
--keep (a kept database is re-used; --redraw-equity gives its participants the equity answers
the generator now draws).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from typing import Any

POSTGRES_SERVER = os.environ.get("JOBGRANT_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432")
DATABASE = os.environ.get("JOBGRANT_BENCH_DATABASE", "jobgrant_bench_kpis")
YEARS = ("2023-24", "2024-25", "2025-26")
# Jurisdictions by weight out of 100 (about their share of Canada's population outside Quebec).
WEIGHTS = {
    "ON": 49,
    "BC": 18,
    "AB": 15,
    "MB": 5,
    "SK": 4,
    "NS": 3,
    "NB": 2,
    "NL": 1,
    "PE": 1,
    "YT": 1,
    "NT": 0,
    "NU": 1,
}
FEDERAL_DIRECT = ("NU",)


def _postgres(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{POSTGRES_SERVER}/postgres", autocommit=True) as connection:
        connection.execute(statement)


def _exists() -> bool:
    import psycopg

    with psycopg.connect(f"{POSTGRES_SERVER}/postgres", autocommit=True) as connection:
        found = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE])
        return found.fetchone() is not None


def _generated() -> bool:
    """Whether a kept database holds a whole generation (it is written in one transaction)."""
    import psycopg

    with psycopg.connect(f"{POSTGRES_SERVER}/{DATABASE}", autocommit=True) as connection:
        try:
            found = connection.execute("SELECT 1 FROM grants_application LIMIT 1").fetchone()
        except psycopg.errors.UndefinedTable:
            return False
        return found is not None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=300_000)
    parser.add_argument("--trainees", type=int, default=1_000_000, help="participant slots")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep (and re-use) the database")
    parser.add_argument(
        "--redraw-equity",
        action="store_true",
        help="re-draw a kept database's equity answers as the generator now draws them",
    )
    parser.add_argument(
        "--compare-jit", action="store_true", help="also time the live compute, JIT on and off"
    )
    options = parser.parse_args()
    os.environ.update(
        JOBGRANT_VAR_DIR=tempfile.mkdtemp(prefix="jobgrant-bench-kpis-"),
        JOBGRANT_ENV="development",
        JOBGRANT_DATABASE_URL=f"{POSTGRES_SERVER}/{DATABASE}",
    )
    reuse = options.keep and _exists() and _generated()
    if not (options.keep and _exists()):
        _postgres(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        _postgres(f"CREATE DATABASE {DATABASE}")
    try:
        from jobgrant.service.commands import prepare_database

        prepare_database(with_demo=False)
        if not reuse:
            started = time.perf_counter()
            from kpis_data import generate  # type: ignore[import-not-found]

            generate(options.files, options.trainees, YEARS, WEIGHTS, FEDERAL_DIRECT)
            print(f"generated in {time.perf_counter() - started:.0f} s (not timed below)")
            _settle()
        elif options.redraw_equity:
            _redraw_equity()
        _forget_snapshots()
        _report_sizes()
        _time_all(options.runs, options.compare_jit)
    finally:
        from django.db import connections

        connections.close_all()
        if not options.keep:
            _postgres(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")


def _settle() -> None:
    """VACUUM (ANALYZE), as autovacuum does after a bulk load: statistics for the planner and
    the visibility map that lets the KPIs read the covering indexes alone (index-only scans)."""
    import psycopg

    started = time.perf_counter()
    with psycopg.connect(f"{POSTGRES_SERVER}/{DATABASE}", autocommit=True) as connection:
        connection.execute("VACUUM (ANALYZE)")
    print(f"vacuumed and analyzed in {time.perf_counter() - started:.0f} s (not timed below)")


def _redraw_equity() -> None:
    from django.db import transaction

    from kpis_data import redraw_equity_answers  # type: ignore[import-not-found]

    started = time.perf_counter()
    with transaction.atomic():
        changed = redraw_equity_answers()
    print(
        f"re-drew the equity answers of {changed:,} participants in"
        f" {time.perf_counter() - started:.0f} s (not timed below)"
    )
    _settle()


def _forget_snapshots() -> None:
    """The stored KPI cells of an earlier run: the timings below compute their own."""
    from jobgrant.service.grants.models.kpi import KpiSnapshot

    KpiSnapshot.objects.all().delete()


def _report_sizes() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for table in ("grants_application", "grants_participant", "grants_followup"):
            cursor.execute(f"SELECT COUNT(*) FROM {table}")
            print(f"{table}: {cursor.fetchone()[0]:,} rows")


def _backend_cpu() -> float:
    """CPU seconds (user + system) of the PostgreSQL backend serving this connection."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _time(label: str, call: Any, runs: int) -> None:
    walls, cpus, backends = [], [], []
    for _ in range(runs):
        backend, cpu, wall = _backend_cpu(), time.process_time(), time.perf_counter()
        call()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        backends.append(_backend_cpu() - backend)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"  {label:<44} median {statistics.median(walls):6.2f} s wall"
        f" (runs {' '.join(f'{w:.2f}' for w in walls)})"
        f" | python CPU {statistics.median(cpus):5.2f} s | PostgreSQL CPU"
        f" {statistics.median(backends):5.2f} s | load {load}",
        flush=True,
    )


def _live(jurisdiction: str | None, year: str, jit: bool) -> None:
    """`kpis.compute`, the live path, with PostgreSQL's JIT as configured or off."""
    from django.db import connection, transaction

    from jobgrant.service.outcomes.kpis import compute

    with transaction.atomic():
        if not jit:
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL jit = off")
        compute(jurisdiction, year)


def _refresh(jurisdiction: str | None, year: str) -> None:
    """What the worker does for a scope: its jurisdictions' cells computed and stored."""
    from jobgrant.service.outcomes import snapshot_actions

    for code in snapshot_actions.scope_jurisdictions(jurisdiction):
        snapshot_actions.refresh(code, year)


def _annual(year: str) -> None:
    """`jobgrant report annual` for Canada: the stored cells added up and suppressed, then the
    PDF in English and in French and the CSV of every table."""
    import datetime as dt
    from pathlib import Path

    from jobgrant.cli.report import write_annual
    from jobgrant.service.outcomes.report import source

    kpis = source.annual_report(None, year)
    with tempfile.TemporaryDirectory() as out:
        write_annual(kpis, Path(out), "en", dt.datetime.now(dt.UTC))


def _participants(jurisdiction: str | None, year: str) -> str:
    from jobgrant.service.outcomes import snapshots

    report = snapshots.read(jurisdiction, year, suppress=False)
    value = report.table("headline").rows[0].figures["participants"].value
    return f"{value:,}"


def _time_all(runs: int, compare_jit: bool) -> None:
    from jobgrant.service.outcomes import snapshots

    year = YEARS[-1]
    print(f"KPIs of {year}, {runs} runs each, wall seconds (median):")
    scopes = (("Ontario", "ON"), ("Prince Edward Island", "PE"), ("Canada", None))
    for name, code in scopes:
        print(f"{name} ({_participants(code, year)} participants):", flush=True)
        _time(
            "page: stored cells added up, suppressed", lambda c=code: snapshots.read(c, year), runs
        )
        if code is None:
            _time("annual report: figures, 2 PDFs and CSVs", lambda: _annual(year), runs)
        _time("refresh: cells from the records (JIT off)", lambda c=code: _refresh(c, year), runs)
        if compare_jit:
            _time("live compute, JIT as configured", lambda c=code: _live(c, year, True), runs)
            _time("live compute, JIT off", lambda c=code: _live(c, year, False), runs)


if __name__ == "__main__":
    import sys

    sys.path.insert(0, os.path.dirname(__file__))
    main()
