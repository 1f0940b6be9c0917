"""T2 (docs/reliability.md): the ledger's invariants hold under concurrent mixed work, at every
read.

    python tests/reliability/ledger_t2.py --seconds 60                                  # SQLite
    python tests/reliability/ledger_t2.py --database postgresql://postgres@127.0.0.1:5432/jobgrant

It makes a fresh database (a SQLite file in a temporary directory, or the PostgreSQL database
`<name>_t2` beside the one named, dropped afterwards), four pools (jurisdictions) with a
federal and a provincial budget account each (8 accounts), and grant files spread over them.
Then --workers threads, each with its own database connection, move money through the ledger
operations of the money's way for --seconds: commit (an approval, both funders at
once), claim, unclaim (a claim returned), approve (certify part or all of a claim), lower (an
amendment lowers an unpaid approval), pay (disburse), receivable (paid in error), recover,
write off, release, and now and then a top-up allocation. Every movement is one database
transaction touching both funders' accounts of its pool, in the same order every time, as the
actions do. Each worker owns its files (a file's money is changed by one worker at a time, as
a claim's row lock does in the service), while every worker shares the pools' budget rows: that
contention is what is under test. Commitments are refused when a budget is exhausted.

A reader, on its own connection, reads the budget rows and sums all postings every 10 ms, each
time in one transaction (REPEATABLE READ on PostgreSQL; a WAL snapshot on SQLite), and checks:
the postings sum to zero (every read balances); each row's balances equal its postings
(NESTED_BUCKETS); no bucket is negative; 0 <= disbursed <= payable <= claimed <= committed <=
allocated. At the end: `operations.verify()` is empty, each file's own balances (summed from its
postings by `operations.application_balances`) equal what its worker recorded and nest, and no
worker crashed. It prints the figures (reads, movements by kind, refusals, retries, violations)
and exits 1 if any check fails or the reader made fewer than --min-reads reads.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import random
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.reliability.outbox_t5 import fresh_database  # noqa: E402

FUNDERS = ("federal", "provincial")
JURISDICTIONS = ("ON", "QC", "BC", "AB")
FISCAL_YEAR = "2031-32"
FILES_PER_WORKER = 3
EVERY_KIND_SECONDS = 20  # a run this long must have made every kind of movement
ALLOCATION_CENTS = 20_000_000  # $200,000 per account: commitments meet refusals within seconds
TOP_UP_CENTS = 500_000
READ_EVERY = 0.010
RETRIES = 20

# How often each movement is tried, when the file allows it.
WEIGHTS = {
    "commit": 6,
    "claim": 8,
    "unclaim": 1,
    "approve": 8,
    "lower": 1,
    "pay": 8,
    "receivable": 2,
    "recover": 3,
    "write_off": 1,
    "release": 2,
    "allocate": 1,
}


# --- The files: what each worker knows of its own grant files ------------------------------


@dataclass
class FileMoney:
    """One funder's money in one file, in the ledger's disjoint buckets."""

    committed: int = 0  # committed, not claimed
    claimed: int = 0  # claimed, not decided
    payable: int = 0  # certified, not paid
    disbursed: int = 0
    receivable: int = 0
    recovered: int = 0
    written_off: int = 0

    def nested(self) -> dict[str, int]:
        """The balances as application_balances reports them (nested)."""
        return {
            "committed": self.committed + self.claimed + self.payable + self.disbursed,
            "claimed": self.claimed + self.payable + self.disbursed,
            "payable": self.payable + self.disbursed,
            "disbursed": self.disbursed,
            "receivable": self.receivable,
            "recovered": self.recovered,
            "written_off": self.written_off,
        }


@dataclass
class GrantFile:
    application: Any  # grants.Application
    pool: Any  # ledger.operations.Pool
    accounts: dict[str, Any]  # funder -> BudgetAccount
    money: dict[str, FileMoney] = field(default_factory=lambda: {f: FileMoney() for f in FUNDERS})

    @property
    def reference(self) -> str:
        return f"t2-file:{self.application.pk}"


# A movement: (kind, the per-funder amounts to move, how to apply them to the ledger, how to
# apply them to the file's own record once the transaction committed).
Plan = tuple[str, dict[str, tuple[int, ...]]]


def plan(kind: str, grant: GrantFile, draw: random.Random) -> dict[str, tuple[int, ...]] | None:
    """Amounts per funder for `kind` on this file, or None when the file does not allow it."""
    amounts: dict[str, tuple[int, ...]] = {}
    for funder, money in grant.money.items():
        if kind == "commit":
            amounts[funder] = (draw.randint(10_000, 1_500_000),)
        elif kind == "allocate":
            amounts[funder] = (TOP_UP_CENTS,)
        elif kind == "claim" and money.committed:
            amounts[funder] = (draw.randint(1, money.committed),)
        elif kind == "unclaim" and money.claimed:
            amounts[funder] = (money.claimed,)
        elif kind == "approve" and money.claimed:
            amounts[funder] = (money.claimed, draw.randint(0, money.claimed))
        elif kind == "lower" and money.payable:
            amounts[funder] = (draw.randint(1, money.payable),)
        elif kind == "pay" and money.payable:
            amounts[funder] = (money.payable,)
        elif kind == "receivable" and money.disbursed:
            amounts[funder] = (draw.randint(1, max(1, money.disbursed // 4)),)
        elif kind == "recover" and money.receivable:
            amounts[funder] = (draw.randint(1, money.receivable),)
        elif kind == "write_off" and money.receivable:
            amounts[funder] = (money.receivable,)
        elif kind == "release" and money.committed:
            amounts[funder] = (money.committed,)
    return amounts or None


def apply_to_ledger(kind: str, grant: GrantFile, amounts: dict[str, tuple[int, ...]]) -> None:
    """The ledger operations for one movement, both funders in FUNDERS order."""
    from jobgrant.service.ledger import operations

    actor, application, reference = "t2-worker", grant.application, grant.reference
    if kind == "commit":
        shares = [(funder, amounts[funder][0]) for funder in FUNDERS]
        operations.commit_shares(grant.pool, shares, actor=actor, application=application)
        return
    simple: dict[str, Callable[..., None]] = {
        "claim": operations.claim,
        "unclaim": operations.unclaim,
        "lower": operations.lower_approval,
        "pay": operations.disburse,
        "receivable": operations.raise_receivable,
        "recover": operations.recover,
        "write_off": operations.write_off,
    }
    for funder in FUNDERS:
        if funder not in amounts:
            continue
        account, cents = grant.accounts[funder], amounts[funder]
        if kind == "allocate":
            operations.allocate(account, cents[0], actor=actor)
        elif kind == "release":
            operations.release(account, cents[0], actor=actor, application=application)
        elif kind == "approve":
            operations.approve_claim(
                account, *cents, actor=actor, application=application, reference=reference
            )
        else:
            simple[kind](
                account, cents[0], actor=actor, application=application, reference=reference
            )


def apply_to_file(kind: str, grant: GrantFile, amounts: dict[str, tuple[int, ...]]) -> None:
    """What the movement did to the file's own money (after its transaction committed)."""
    for funder, cents in amounts.items():
        money, first = grant.money[funder], cents[0]
        if kind == "commit":
            money.committed += first
        elif kind == "claim":
            money.committed -= first
            money.claimed += first
        elif kind == "unclaim":
            money.claimed -= first
            money.committed += first
        elif kind == "approve":
            approved = cents[1]
            money.claimed -= first
            money.payable += approved
            money.committed += first - approved
        elif kind == "lower":
            money.payable -= first
            money.committed += first
        elif kind == "pay":
            money.payable -= first
            money.disbursed += first
        elif kind == "receivable":
            money.disbursed -= first
            money.receivable += first
        elif kind == "recover":
            money.receivable -= first
            money.recovered += first
        elif kind == "write_off":
            money.receivable -= first
            money.written_off += first
        elif kind == "release":
            money.committed -= first


# --- The workers ---------------------------------------------------------------------------


@dataclass
class Tally:
    movements: Counter[str] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)
    retries: Counter[str] = field(default_factory=Counter)
    crashes: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def transient(error: Exception) -> bool:
    """A conflict the database asks us to retry: deadlock, serialization, SQLite busy."""
    cause = error.__cause__ or error
    code = getattr(cause, "sqlstate", None) or getattr(getattr(cause, "diag", None), "sqlstate", "")
    return code in {"40001", "40P01"} or "database is locked" in str(error)


def lower_priority(nice: int) -> None:
    """Lower this worker thread, and its PostgreSQL backend when the server runs on this
    machine, by `nice` (the test is about what a reader sees: on two cores, sixteen writers and
    their backends at the reader's priority leave it a sixteenth of the CPU, and it falls behind
    its 10 ms). The writers still all run at once against the same rows; they only yield the
    CPU first when the reader wants it. The thread's niceness dies with it, the backend's with
    its connection."""
    from django.db import connection

    if not nice:
        return
    os.setpriority(os.PRIO_PROCESS, 0, nice)  # Linux: the calling thread only
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid(), current_database()")
        backend, database = cursor.fetchone()
    try:  # only a backend of this database on this machine (its title names the database)
        title = Path(f"/proc/{backend}/cmdline").read_bytes()
    except OSError:
        return
    if title.startswith(b"postgres: ") and f" {database} ".encode() in title:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, backend, nice)


def worker(files: list[GrantFile], until: float, seed: int, tally: Tally, nice: int = 0) -> None:
    from django.db import DatabaseError, connections, transaction

    from jobgrant.service.ledger.operations import BucketShort, InsufficientBudget

    draw = random.Random(seed)
    kinds, weights = list(WEIGHTS), list(WEIGHTS.values())
    moved: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    retried: Counter[str] = Counter()
    try:
        lower_priority(nice)
        while time.monotonic() < until:
            grant = draw.choice(files)
            kind = draw.choices(kinds, weights)[0]
            amounts = plan(kind, grant, draw)
            if amounts is None:
                continue
            for attempt in range(RETRIES):
                try:
                    with transaction.atomic():
                        apply_to_ledger(kind, grant, amounts)
                except (InsufficientBudget, BucketShort):
                    refused[kind] += 1
                except DatabaseError as error:
                    if not transient(error) or attempt == RETRIES - 1:
                        raise
                    retried[kind] += 1
                    time.sleep(draw.uniform(0, 0.002 * (attempt + 1)))
                    continue
                else:
                    apply_to_file(kind, grant, amounts)
                    moved[kind] += 1
                break
    except Exception as error:  # a crash must fail the run, not vanish with the thread
        with tally.lock:
            tally.crashes.append(f"{type(error).__name__}: {error}")
    finally:
        with tally.lock:
            tally.movements.update(moved)
            tally.refusals.update(refused)
            tally.retries.update(retried)
        connections.close_all()


# --- The reader ----------------------------------------------------------------------------


@dataclass
class Reads:
    count: int = 0
    violations: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)


_BALANCES = (
    "allocated_cents, committed_cents, claimed_cents, payable_cents, disbursed_cents,"
    " receivable_cents, recovered_cents, written_off_cents"
)


class Reader:
    """A connection of its own (the driver's, not Django's), one snapshot per read.

    On PostgreSQL a read is one statement in autocommit (a statement sees one snapshot: the
    budget rows and the postings' sums of the same instant) that never waits for a writer
    (MVCC: readers take no row locks): one round trip, where BEGIN, two SELECTs and COMMIT
    were four. On SQLite, a read transaction (the WAL snapshot) around the two SELECTs."""

    def __init__(self, url: str, account_ids: list[int]) -> None:
        from jobgrant.service.ledger.models import BudgetAccount, Posting

        ids = ", ".join(str(pk) for pk in account_ids)
        accounts, postings = BudgetAccount._meta.db_table, Posting._meta.db_table
        self.accounts_sql = f'SELECT id, {_BALANCES} FROM "{accounts}" WHERE id IN ({ids})'
        self.postings_sql = (
            f'SELECT account_id, bucket, SUM(amount_cents) FROM "{postings}"'
            " GROUP BY account_id, bucket"
        )
        # Both parts as JSON arrays of one row: the same snapshot, one round trip.
        self.one_sql = (
            f'SELECT (SELECT json_agg(json_build_array(id, {_BALANCES})) FROM "{accounts}"'
            f" WHERE id IN ({ids})),"
            " (SELECT json_agg(json_build_array(account_id, bucket, total)) FROM"
            f' (SELECT account_id, bucket, SUM(amount_cents) AS total FROM "{postings}"'
            " GROUP BY account_id, bucket) AS sums)"
        )
        self.postgres = not url.startswith("sqlite")
        if self.postgres:
            import psycopg

            self.connection: Any = psycopg.connect(url, autocommit=True)
            self.connection.execute("SET default_transaction_read_only = on")
        else:
            self.connection = sqlite3.connect(url.removeprefix("sqlite:///"))
            self.connection.isolation_level = None  # we say BEGIN and COMMIT ourselves

    def snapshot(self) -> tuple[list[tuple[int, ...]], list[tuple[int, str, int]]]:
        cursor = self.connection.cursor()
        if self.postgres:
            rows, sums = cursor.execute(self.one_sql).fetchone()
            return [tuple(row) for row in rows or []], [tuple(row) for row in sums or []]
        cursor.execute("BEGIN DEFERRED")
        try:
            rows = cursor.execute(self.accounts_sql).fetchall()
            sums = cursor.execute(self.postings_sql).fetchall()
        finally:
            cursor.execute("COMMIT")
        return rows, sums

    def close(self) -> None:
        self.connection.close()


def violations_in(rows: list[tuple[int, ...]], sums: list[tuple[int, str, int]]) -> list[str]:
    """Everything wrong with one snapshot of the budget rows and the postings' sums."""
    from jobgrant.service.ledger.models import NESTED_BUCKETS, Bucket

    found = []
    total = sum(int(amount) for _, _, amount in sums)
    if total != 0:
        found.append(f"the postings sum to {total} cents, not 0")
    buckets: dict[int, dict[str, int]] = {}
    for account, bucket, amount in sums:
        buckets.setdefault(account, {})[bucket] = int(amount)
    names = ("allocated", *NESTED_BUCKETS)
    for account, *figures in rows:
        row = dict(zip(names, (int(f) for f in figures), strict=True))
        own = buckets.get(account, {})
        expected = {
            balance: sum(own.get(b, 0) for b in members)
            for balance, members in NESTED_BUCKETS.items()
        } | {"allocated": -own.get(Bucket.APPROPRIATION, 0)}
        if expected != row:
            found.append(f"account {account}: row {row} but postings {expected}")
        negative = [b for b, cents in own.items() if cents < 0 and b != Bucket.APPROPRIATION]
        if negative:
            found.append(f"account {account}: negative buckets {negative}")
        nest = [row[name] for name in ("disbursed", "payable", "claimed", "committed", "allocated")]
        if not 0 <= nest[0] <= nest[1] <= nest[2] <= nest[3] <= nest[4]:
            found.append(f"account {account}: balances do not nest {row}")
        if min(row["receivable"], row["recovered"], row["written_off"]) < 0:
            found.append(f"account {account}: a recovery bucket is negative {row}")
    return found


def read_until(url: str, account_ids: list[int], stop: Any, answer: Any) -> None:
    """Read every READ_EVERY seconds (start to start) until `stop` is set; send back the Reads.

    Run in a process of its own (forked), so that the workers' threads never make it wait for
    the interpreter: its reads are as frequent as the database allows."""
    reads = Reads()
    reader = Reader(url, account_ids)
    next_read = time.monotonic()
    try:
        while not stop.is_set():
            began = time.monotonic()
            rows, sums = reader.snapshot()
            reads.seconds.append(time.monotonic() - began)
            reads.count += 1
            for violation in violations_in(rows, sums):
                if len(reads.violations) < 50:
                    reads.violations.append(f"read {reads.count}: {violation}")
                else:
                    reads.violations.append("...")
                    break
            next_read += READ_EVERY
            time.sleep(max(0.0, next_read - time.monotonic()))
    except Exception as error:
        reads.crashes.append(f"{type(error).__name__}: {error}")
    finally:
        reader.close()
        answer.send(reads)


# --- The scene and the run -----------------------------------------------------------------


def configure(url: str, var: str) -> None:
    os.environ.update(
        {
            "JOBGRANT_ENV": "development",
            "JOBGRANT_VAR_DIR": var,
            "JOBGRANT_DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "jobgrant.service.settings",
        }
    )
    import django

    django.setup()
    from jobgrant.service.commands import migrate_and_seed

    migrate_and_seed(with_demo=False)  # as `jobgrant migrate`: a fresh SQLite file is a copy


def make_files(count: int) -> list[GrantFile]:
    """The pools' budget accounts, allocated, and `count` approved files spread over them."""
    import datetime as dt

    from django.db import transaction

    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.models.applications import Application, Program, State, Stream
    from jobgrant.service.ledger import operations
    from jobgrant.service.ledger.models import BudgetAccount

    user = User.objects.create(username="t2-employer")
    pools = {}
    with transaction.atomic():
        for jurisdiction in JURISDICTIONS:
            program = Program.objects.create(
                jurisdiction=jurisdiction, fiscal_year=FISCAL_YEAR, policy="t2", delivery="t2"
            )
            stream = Stream.objects.create(program=program, name_en="T2", name_fr="T2")
            pool = operations.Pool(jurisdiction, FISCAL_YEAR, "CJG")
            for funder in FUNDERS:
                account = BudgetAccount.objects.create(
                    funder=funder, jurisdiction=jurisdiction, fiscal_year=FISCAL_YEAR
                )
                operations.allocate(account, ALLOCATION_CENTS, actor="t2-setup")
            pools[jurisdiction] = (pool, stream, operations.pool_accounts(pool))
    files = []
    for number in range(count):
        pool, stream, accounts = pools[JURISDICTIONS[number % len(JURISDICTIONS)]]
        application = Application.objects.create(
            stream=stream,
            state=State.APPROVED,
            jurisdiction=pool.jurisdiction,
            fiscal_year=FISCAL_YEAR,
            delivery="t2",
            created_by=user,
            received_on=dt.date(2031, 4, 1),
            request={},
            policy="t2",
            policy_version="t2",
            quote={},
            explanation={},
            eligible=True,
            federal_cents=0,
            provincial_cents=0,
            employer_cents=0,
        )
        files.append(GrantFile(application, pool, accounts))
    return files


def files_disagreeing(files: list[GrantFile]) -> list[str]:
    """Files whose postings (application_balances) differ from what their worker recorded,
    or whose own balances do not nest."""
    from dataclasses import asdict

    from jobgrant.service.ledger import operations

    found = []
    for grant in files:
        balances = operations.application_balances(grant.application)
        for funder in FUNDERS:
            recorded = grant.money[funder].nested()
            posted = asdict(balances.get(funder, operations.Balances()))
            if posted != recorded:
                found.append(f"{grant.reference} {funder}: postings {posted}, worker {recorded}")
            nest = [posted[n] for n in ("disbursed", "payable", "claimed", "committed")]
            if not 0 <= nest[0] <= nest[1] <= nest[2] <= nest[3]:
                found.append(f"{grant.reference} {funder}: balances do not nest {posted}")
    return found


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="jobgrant-t2-") as var:
        url, remove = fresh_database(args.database, var, "_t2")
        try:
            configure(url, var)
            return race(args, url)
        finally:
            from django.db import connections

            connections.close_all()
            remove()


def race(args: argparse.Namespace, url: str) -> int:
    from django.db import connections

    from jobgrant.service.ledger import operations
    from jobgrant.service.ledger.models import BudgetAccount

    files = make_files(args.workers * FILES_PER_WORKER)
    account_ids = list(BudgetAccount.objects.values_list("pk", flat=True))
    connections.close_all()  # nothing of this process's connections goes into the fork
    processes = multiprocessing.get_context("fork")
    tally, stop = Tally(), processes.Event()
    answers, answer = processes.Pipe(duplex=False)
    reader = processes.Process(target=read_until, args=(url, account_ids, stop, answer))
    until = time.monotonic() + args.seconds
    workers = [
        threading.Thread(
            target=worker,
            args=(files[n :: args.workers], until, args.seed + n, tally, args.worker_nice),
        )
        for n in range(args.workers)
    ]
    began = time.monotonic()
    reader.start()
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    elapsed = time.monotonic() - began
    stop.set()
    reads: Reads = answers.recv()
    reader.join()
    final = Reader(url, account_ids)
    reads.count += 1
    reads.violations += [f"final read: {v}" for v in violations_in(*final.snapshot())]
    final.close()
    differences = operations.verify()
    disagreeing = files_disagreeing(files)
    return report(args, elapsed, tally, reads, differences, disagreeing)


def report(
    args: argparse.Namespace,
    elapsed: float,
    tally: Tally,
    reads: Reads,
    differences: list[str],
    disagreeing: list[str],
) -> int:
    from jobgrant.service.ledger.models import Posting

    engine = "SQLite" if args.database == "sqlite" else "PostgreSQL"
    moved = sum(tally.movements.values())
    ordered = sorted(reads.seconds)
    p50 = 1000 * ordered[len(ordered) // 2] if ordered else 0.0
    p99 = 1000 * ordered[int(len(ordered) * 0.99)] if ordered else 0.0
    print(
        f"T2 ledger on {engine}: {args.workers} workers, {len(JURISDICTIONS)} pools "
        f"({2 * len(JURISDICTIONS)} accounts), {elapsed:.1f} s, seed {args.seed}\n"
        f"  movements {moved} ({moved / elapsed:.0f}/s): {dict(sorted(tally.movements.items()))}\n"
        f"  refusals {sum(tally.refusals.values())}: {dict(sorted(tally.refusals.items()))}\n"
        f"  retries {sum(tally.retries.values())}: {dict(sorted(tally.retries.items()))}\n"
        f"  reads {reads.count} (each: p50 {p50:.1f} ms, p99 {p99:.1f} ms), "
        f"violations {len(reads.violations)}, postings {Posting.objects.count()}\n"
        f"  verify: {len(differences)} differences; files disagreeing: {len(disagreeing)}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    problems = []
    if tally.crashes or reads.crashes:
        problems.append(f"crashes: {(tally.crashes + reads.crashes)[:5]}")
    if reads.violations:
        problems.append(f"{len(reads.violations)} violations: {reads.violations[:5]}")
    if differences:
        problems.append(f"verify: {differences[:5]}")
    if disagreeing:
        problems.append(f"files: {disagreeing[:5]}")
    if reads.count < args.min_reads:
        problems.append(f"only {reads.count} reads, fewer than {args.min_reads}")
    missing = [kind for kind in WEIGHTS if not tally.movements[kind]]
    if missing and args.seconds >= EVERY_KIND_SECONDS:
        problems.append(f"movements never made: {missing}")
    elif missing:
        print(f"  (a run this short did not reach every movement: {missing} never made)")
    if problems:
        print("T2 FAILED: " + "; ".join(problems))
        return 1
    print("T2 passed")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database", default="sqlite", help="sqlite, or a postgresql:// URL (its _t2 twin is used)"
    )
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--min-reads", type=int, default=5001)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=10,
        help="lower the workers (threads and their PostgreSQL backends) by this much; 0: not",
    )
    args = parser.parse_args()
    sys.exit(run(args))


if __name__ == "__main__":
    main()
