"""Benchmark of payments on PostgreSQL: N certified claims -> one batch -> authorize -> export ->
confirm (the paying system's file for every payment), for N = 1,000 and 10,000.

    python bench/payments.py [--claims 1000 10000]

It makes a fresh database (JOBGRANT_BENCH_POSTGRES, default postgresql://postgres@127.0.0.1:5432,
database JOBGRANT_BENCH_DATABASE, default jobgrant_bench_payments, dropped afterwards), migrates
it and loads the demonstration data, approves one application as the demonstration officers do,
then writes N more files like it in bulk (application, agreement, one certified claim with a
federal and a provincial share, the budget's ledger moved as the claims' approvals would move
it): that set-up is not timed.
Then each step is timed as finance runs it (the payments stage's batches, export and
confirmation): build the batch (2 N payment requests), authorize it (a second finance officer),
export it (the CSV), import the confirmation file (every payment disbursed, per funder, in the
import's transaction, and each employer told). It prints the seconds of each step with the CPU
time of this process and of its PostgreSQL backend (read from /proc when the server runs on this
machine), the peak resident memory of the process and the load average (other work on the
machine changes the figures), and checks the ledger (`verify()`) and the disbursed total to the
cent. The URLconf is loaded before the steps, as a server loads it when it starts (the first
message's link would otherwise import every view and API schema inside the confirmation: seconds
that no server spends there).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

POSTGRES_SERVER = os.environ.get("JOBGRANT_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432")
DATABASE = os.environ.get("JOBGRANT_BENCH_DATABASE", "jobgrant_bench_payments")
EMPLOYERS = 200  # payees: the claims are spread over this many employers
FEDERAL, PROVINCIAL = 400_000, 100_000  # each claim's approved shares, in cents
PROFILE = False


def _postgres(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{POSTGRES_SERVER}/postgres", autocommit=True) as connection:
        connection.execute(statement)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--profile", action="store_true", help="cProfile each step")
    options = parser.parse_args()
    sizes = options.claims
    global PROFILE
    PROFILE = options.profile
    var = tempfile.mkdtemp(prefix="jobgrant-bench-payments-")
    os.environ.update(
        JOBGRANT_VAR_DIR=var,
        JOBGRANT_ENV="development",
        JOBGRANT_DATABASE_URL=f"{POSTGRES_SERVER}/{DATABASE}",
    )
    _postgres(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    _postgres(f"CREATE DATABASE {DATABASE}")
    try:
        from jobgrant.service.commands import prepare_database

        prepare_database(with_demo=True)
        _load_urls()
        template = _template()
        for count in sizes:
            _run(count, template)
    finally:
        from django.db import connections

        connections.close_all()
        _postgres(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")


def _load_urls() -> None:
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports every view, as a server does at start


def _backend_cpu() -> float | None:
    """CPU seconds of this process's PostgreSQL backend so far (None when the server is not on
    this machine)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (backend,) = cursor.fetchone()
    try:
        fields = Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _template() -> Any:
    from django.utils import timezone

    from jobgrant.service.accounts.models import User
    from jobgrant.service.api.openapi import example_application
    from jobgrant.service.grants.applications import actions

    employer = User.objects.get(username="demo-employer")
    application = actions.create_application(employer, example_application(timezone.localdate()))
    actions.submit_application(employer, application)
    actions.recommend_application(User.objects.get(username="demo-officer-on-1"), application)
    actions.approve_application(User.objects.get(username="demo-officer-on-2"), application)
    return application


def _run(count: int, template: Any) -> None:
    from django.db import transaction

    from jobgrant.service.accounts.models import Role, User
    from jobgrant.service.grants.models.payments import PaymentBatch
    from jobgrant.service.grants.payments import batches as payment_batches
    from jobgrant.service.grants.payments import confirmation as payment_confirmation
    from jobgrant.service.grants.payments import export as payment_export
    from jobgrant.service.ledger import operations

    with transaction.atomic():
        _make_claims(count, template)
    builder, _ = User.objects.get_or_create(username="bench-finance-1", role=Role.FINANCE)
    authorizer, _ = User.objects.get_or_create(username="bench-finance-2", role=Role.FINANCE)
    pool = {"jurisdiction": template.jurisdiction, "fiscal_year": template.fiscal_year}
    before = _disbursed(template)
    timings: list[tuple[str, float, float, float | None]] = []

    def timed(name: str, step: Callable[[], Any]) -> Any:
        backend = _backend_cpu()
        began, cpu = time.perf_counter(), time.process_time()
        if PROFILE:
            import cProfile
            import pstats

            profile = cProfile.Profile()
            result = profile.runcall(step)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        else:
            result = step()
        seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
        after = _backend_cpu()
        used = after - backend if after is not None and backend is not None else None
        timings.append((name, seconds, cpu, used))
        return result

    batch: PaymentBatch = timed("build", lambda: payment_batches.build_batch(builder, pool))
    timed("authorize", lambda: payment_batches.authorize_batch(authorizer, batch))
    content = timed("export", lambda: payment_export.export_batch(builder, batch))
    answer = _confirmation(content)
    imported = timed(
        "confirm", lambda: payment_confirmation.import_confirmations(builder, batch, answer)
    )
    paid = _disbursed(template) - before
    problems = operations.verify()
    total = sum(seconds for _, seconds, _cpu, _backend in timings)
    cpu_total = sum(cpu for _, _seconds, cpu, _backend in timings)
    backends = [backend for *_, backend in timings if backend is not None]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    steps = ", ".join(
        f"{name} {seconds:.2f} s ({cpu:.2f} s CPU{_and_backend(backend)})"
        for name, seconds, cpu, backend in timings
    )
    backend_total = f", {sum(backends):.2f} s of its PostgreSQL backend" if backends else ""
    sys.stdout.write(
        f"{count:,} claims ({batch.requests_count:,} payments): {steps}; total {total:.2f} s "
        f"({cpu_total:.2f} s CPU of this process{backend_total}); peak memory {peak:.0f} MiB; "
        f"load average {load}\n"
    )
    expected = count * (FEDERAL + PROVINCIAL)
    if paid != expected or imported.confirmation.reconciled_count != 2 * count or problems:
        sys.stdout.write(f"WRONG: disbursed {paid}, expected {expected}; {problems[:3]}\n")
        raise SystemExit(1)


def _and_backend(seconds: float | None) -> str:
    return "" if seconds is None else f" + {seconds:.2f} s backend"


def _disbursed(template: Any) -> int:
    from django.db.models import Sum

    from jobgrant.service.ledger.models import BudgetAccount

    found = BudgetAccount.objects.filter(
        jurisdiction=template.jurisdiction, fiscal_year=template.fiscal_year
    ).aggregate(total=Sum("disbursed_cents"))
    return int(found["total"] or 0)


def _confirmation(export: bytes) -> bytes:
    lines = export.decode("utf-8").splitlines()[1:]
    rows = ["document_number,amount,paid_on,payment_reference"]
    for number, line in enumerate(lines, start=1):
        document, _bn, _payee, amount, *_ = line.split(",")
        rows.append(f"{document},{amount},2026-11-30,EFT-{number:07d}")
    return ("\r\n".join(rows) + "\r\n").encode()


def _make_claims(count: int, template: Any) -> None:
    """`count` files like `template`, each with one certified claim, written in bulk; the
    ledger moved as commits, claims and approvals would move it (one transaction per funder for
    all of them: the per-file postings are not what is measured)."""
    from django.utils import timezone

    from jobgrant.service.accounts.models import User
    from jobgrant.service.demo_support import business_number
    from jobgrant.service.grants.models.agreements import Agreement, AgreementState
    from jobgrant.service.grants.models.applications import Application, ApplicationEmployer
    from jobgrant.service.grants.models.claims import Claim, ClaimShare, ClaimState
    from jobgrant.service.ledger import operations
    from jobgrant.service.ledger.models import BudgetAccount
    from jobgrant.service.registry.models import Employer, Verification

    now = timezone.now()
    offset = Employer.objects.count()
    employers = Employer.objects.bulk_create(
        Employer(
            business_number=business_number(f"{50_000_000 + offset + n}"),
            verification=Verification.VERIFIED,  # as if an officer had verified it
            name=f"Bench employer {offset + n}",
            employees=40,
            naics="332710",
            jurisdiction=template.jurisdiction,
            region="3550",
        )
        for n in range(EMPLOYERS)
    )
    fields = {
        f.name: getattr(template, f.name)
        for f in Application._meta.concrete_fields
        if f.name not in ("id", "created_at", "updated_at")
    }
    applications = Application.objects.bulk_create(
        [Application(**fields) for _ in range(count)], batch_size=2000
    )
    ApplicationEmployer.objects.bulk_create(
        [
            ApplicationEmployer(
                application=a,
                employer=employers[i % EMPLOYERS],
                reference="acme",
                position=0,
                government_cents=FEDERAL + PROVINCIAL,
            )
            for i, a in enumerate(applications)
        ],
        batch_size=2000,
    )
    version = template.agreement.versions.get()
    agreements = Agreement.objects.bulk_create(
        [
            Agreement(
                application=a,
                state=AgreementState.ACCEPTED,
                issued_at=now,
                issued_by=template.agreement.issued_by,
            )
            for a in applications
        ],
        batch_size=2000,
    )
    version_fields = {
        f.name: getattr(version, f.name)
        for f in type(version)._meta.concrete_fields
        if f.name not in ("id", "agreement")
    }
    versions = type(version).objects.bulk_create(
        [type(version)(agreement=ag, **version_fields) for ag in agreements], batch_size=2000
    )
    officer = User.objects.get(username="demo-officer-on-2")
    claims = Claim.objects.bulk_create(
        [
            Claim(
                application=a,
                agreement_version=v,
                number=1,
                state=ClaimState.APPROVED,
                created_by=template.created_by,
                submitted_at=now,
                decided_by=officer,
                decided_at=now,
                certified_by=officer,
                certified_at=now,
                claimed_cents=FEDERAL + PROVINCIAL,
                approved_cents=FEDERAL + PROVINCIAL,
            )
            for a, v in zip(applications, versions, strict=True)
        ],
        batch_size=2000,
    )
    ClaimShare.objects.bulk_create(
        [
            ClaimShare(claim=c, funder=funder, claimed_cents=cents, approved_cents=cents)
            for c in claims
            for funder, cents in (("federal", FEDERAL), ("provincial", PROVINCIAL))
        ],
        batch_size=4000,
    )
    stream = template.stream.code
    for funder, cents in (("federal", FEDERAL), ("provincial", PROVINCIAL)):
        account = BudgetAccount.objects.get(
            funder=funder,
            jurisdiction=template.jurisdiction,
            fiscal_year=template.fiscal_year,
            stream=stream,
        )
        total = cents * count
        operations.allocate(account, total, actor="bench")
        operations.commit(account, total, actor="bench", application=None)
        operations.claim(account, total, actor="bench", application=template, reference="bench")
        operations.approve_claim(
            account, total, total, actor="bench", application=template, reference="bench"
        )


if __name__ == "__main__":
    main()
