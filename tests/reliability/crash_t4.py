"""T4 (docs/reliability.md): acknowledged work survives SIGKILL of the app server and of PostgreSQL.

    python tests/reliability/crash_t4.py                              # 10 app kills, 5 postmaster
    python tests/reliability/crash_t4.py --app-kills 2 --postgres-kills 1 --seed 20261201

It starts a PostgreSQL cluster of its own (initdb in a temporary directory, a free port,
fsync and synchronous_commit on: the defaults), never the shared one, and `jobgrant serve` on it
(gunicorn, as production runs it; migrated, with the demonstration data). Client threads then
walk grant files through the JSON API, every POST with an Idempotency-Key: the employer
creates and submits an application, one officer recommends it, another approves it (the budget
is committed, the agreement issued), the employer accepts the agreement. Every answer the
client receives (an HTTP status below 500) is logged as acknowledged; a request without one (the
connection refused or cut, a time-out, a 5xx while the database is down) has an unknown outcome
and is retried with the same key and body until it is acknowledged.

Meanwhile, at random moments, the whole app server (gunicorn's master and its workers, one
process group) is killed with SIGKILL --app-kills times, and the cluster's postmaster --postgres-
kills times; each time it is started again (PostgreSQL replays its WAL) and the clients go on.

When every file is done: each acknowledged answer is in the database (its idempotency record holds
the same status and body), and a replay of it answers the same bytes; each file's state is the
one its last acknowledged step left (0 acknowledged effects lost); each file's audit entries,
ledger transactions and agreement are exactly those its state implies, once each (0 half-applied,
0 duplicates); as many applications exist as were created; `operations.verify()` finds no
difference and `jobgrant audit verify` an intact chain. It prints the figures and exits 1 when a
check fails. Bounded: --timeout seconds in all.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]
JOBGRANT = Path(sys.executable).with_name("jobgrant")
DEMO_PASSWORD = "jobgrant-demo"
EMPLOYER, RECOMMENDER, APPROVER = "demo-employer", "demo-officer-on-1", "demo-officer-on-2"
REQUEST_SECONDS = 15
START_SECONDS = 900  # a first start migrates, seeds and collects: minutes on a loaded machine
RESTART_SECONDS = 180  # a start after a kill only replays the WAL or forks gunicorn again


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL's tools refuse to run as root: run them as its own user then."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


# --- The cluster and the server, each started, killed and started again -------------------


class Cluster:
    """A PostgreSQL cluster of this test's own, in `root`, on a free port."""

    def __init__(self, root: Path) -> None:
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
        if not found:
            raise SystemExit("T4 needs PostgreSQL's server (/usr/lib/postgresql/*/bin)")
        self.bin, self.data, self.port = found[-1].parent, root / "pgdata", free_port()
        self.data.mkdir()
        if os.geteuid() == 0:
            shutil.chown(root, "postgres")
            shutil.chown(self.data, "postgres")
        self.log = root / "postgres.log"
        self.log.touch()
        if os.geteuid() == 0:
            shutil.chown(self.log, "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")
        self.restarts = 0

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/jobgrant"

    def _run(self, tool: str, *arguments: str) -> None:
        command = as_postgres([str(self.bin / tool), *arguments])
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def start(self, seconds: float = START_SECONDS) -> None:
        """Start the postmaster, trying again for `seconds`; then fail saying why."""
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1"
        deadline = time.monotonic() + seconds
        while True:  # after a SIGKILL, the old backends may hold shared memory for a moment
            try:
                self._run(
                    "pg_ctl",
                    "-D",
                    str(self.data),
                    "-o",
                    options,
                    "-w",
                    "-l",
                    str(self.log),
                    "start",
                )
                return
            except subprocess.CalledProcessError as failed:
                if time.monotonic() > deadline:
                    tail = self.log.read_text(errors="replace")[-3000:]
                    stderr = failed.stderr.decode(errors="replace")
                    raise RuntimeError(
                        f"PostgreSQL did not start within {seconds:.0f} s: {stderr}\n{tail}"
                    ) from failed
                time.sleep(0.5)

    def create_database(self) -> None:
        import psycopg

        with psycopg.connect(self.url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as db:
            db.execute("CREATE DATABASE jobgrant")

    def postmaster(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def kill_postmaster(self) -> None:
        """SIGKILL the postmaster, as a crash would; its backends notice and exit."""
        pid = self.postmaster()
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.05)
        self.restarts += 1

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError, FileNotFoundError):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A killed child of ours stays a zombie until reaped; pg_ctl's postmaster is not our child.
    with contextlib.suppress(FileNotFoundError):
        return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    return False


@dataclass
class Server:
    """`jobgrant serve` (gunicorn master and workers in one process group of their own)."""

    env: dict[str, str]
    log: Path
    workers: int = 2
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [str(JOBGRANT), "serve", "--port", str(self.port), "--workers", str(self.workers)]
        if self.starts:
            command.append("--no-migrate")  # migrated by the first start; only checked again
        self.starts += 1
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command, env=self.env, stdout=log, stderr=log, start_new_session=True
            )
        self.wait_until_healthy(RESTART_SECONDS if self.starts > 1 else START_SECONDS)

    def wait_until_healthy(self, seconds: float = RESTART_SECONDS) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                tail = self.log.read_text(errors="replace")[-3000:]
                raise RuntimeError(f"the server exited ({self.process.returncode}):\n{tail}")
            with contextlib.suppress(requests.RequestException):
                if requests.get(self.base + "/healthz", timeout=5).status_code == 200:
                    return
            time.sleep(0.2)
        tail = self.log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"the server was not healthy within {seconds:.0f} s:\n{tail}")

    def kill(self) -> None:
        """SIGKILL the whole server: the master and every worker, mid-request or not."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill()


# --- The client: grant files walked through the API, every answer logged ------------------


@dataclass(frozen=True)
class Step:
    name: str
    who: str
    path: Callable[[dict[str, Any]], str]
    body: Callable[[dict[str, Any]], dict[str, Any]]
    status: int
    # What the answer tells the rest of the file (the application's id, ...).
    learn: Callable[[dict[str, Any], Any], None] = lambda file, answer: None
    # A body that is not JSON: (bytes, content type) from the file.
    raw: Callable[[dict[str, Any]], tuple[bytes, str]] | None = None
    method: str = "POST"  # a GET is sent until answered, with no key and not logged


def application_body(file: dict[str, Any]) -> dict[str, Any]:
    start = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=45)
    return {
        "jurisdiction": "ON",
        "region": "3550",
        "employers": [{"id": "e", "business_number": file["business_number"]}],
        "training": {
            "setting": "off-site",
            "start_date": start.isoformat(),
            "end_date": (start + dt.timedelta(days=60)).isoformat(),
            "hours": 120,
            "provider": {"name": "Mohawk College", "third_party": True},
        },
        "trainees": [
            {
                "employer_id": "e",
                "status": "existing-employee",
                "costs": {
                    "tuition": f"{3000 + file['number']}.00",
                    "student_fees": "0.00",
                    "materials": "0.00",
                    "exam_fees": "0.00",
                },
            }
        ],
    }


#: The declarations submitting requires, given with the submission rather than the application:
#: the previous release's server (the migrate drill) reads only a submit body's note, while its
#: rules kernel would refuse a field of the application's body it does not know. A copy of
#: jobgrant.service.api.examples.EXAMPLE_DECLARATIONS, not an import: the migrate drill imports
#: this module with the previous release's src/ first, which may not have that module.
DECLARATIONS: dict[str, Any] = {
    "prepared_by": "employer",
    "related_to_provider": False,
    "other_funding": False,
    "provider_public_institution": True,
    "provider_street_address": "135 Fennell Avenue West",
    "provider_city": "Hamilton",
    "provider_postal_code": "L9C 1E9",
    "provider_phone": "905-555-0101",
    "trainer_name": "Dana Whitfield",
    "trainer_attests_no_conflict": True,
    "employer_attests_no_conflict": True,
}


def _learn_id(file: dict[str, Any], answer: dict[str, Any]) -> None:
    file["application"] = answer["id"]


def _on_application(suffix: str) -> Callable[[dict[str, Any]], str]:
    return lambda file: f"/applications/{file['application']}{suffix}"


ACCEPTANCE = {
    "signatory": "Ada Tremblay",
    "title": "Owner",
    "confirmations": ["agreement", "cost_schedule", "general_terms"],
}
STEPS: list[Step] = [
    Step("create", EMPLOYER, lambda f: "/applications", application_body, 201, _learn_id),
    Step(
        "submit",
        EMPLOYER,
        _on_application("/submit"),
        lambda f: {"declarations": DECLARATIONS},
        200,
    ),
    Step("recommend", RECOMMENDER, _on_application("/recommend"), lambda f: {"note": "T4"}, 200),
    Step("approve", APPROVER, _on_application("/approve"), lambda f: {"note": "T4"}, 200),
    Step("accept", EMPLOYER, _on_application("/agreement/accept"), lambda f: ACCEPTANCE, 200),
]


# --- The money's way out: on the demonstration's files ready to claim ------------------------

FINANCE, SECOND_FINANCE = "demo-finance", "demo-finance-2"
BOUNDARY = "t4-receipt-boundary"


def _receipt(file: dict[str, Any]) -> tuple[bytes, str]:
    """One PDF receipt as multipart/form-data, the same bytes at every retry."""
    from tests.service.grants.claim_helpers import pdf_bytes

    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="invoice-{file["application"]}.pdf"\r\nContent-Type: application/pdf\r\n\r\n'
    )
    body = (
        head.encode()
        + pdf_bytes(f"Invoice {file['application']}")
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={BOUNDARY}"


def _on_claim(suffix: str) -> Callable[[dict[str, Any]], str]:
    return lambda file: f"/claims/{file['claim']}{suffix}"


def _learn_claim(file: dict[str, Any], answer: dict[str, Any]) -> None:
    file["claim"] = answer["id"]


CLAIM_STEPS: list[Step] = [
    Step("claim", EMPLOYER, _on_application("/claims"), lambda f: {}, 201, _learn_claim),
    Step("receipt", EMPLOYER, _on_claim("/receipts"), lambda f: {}, 201, raw=_receipt),
    Step("claim_submit", EMPLOYER, _on_claim("/submit"), lambda f: {}, 200),
    Step("claim_approve", RECOMMENDER, _on_claim("/approve"), lambda f: {}, 200),
]


def _learn_batch(file: dict[str, Any], answer: dict[str, Any]) -> None:
    file["batch"] = answer["id"]


def _learn_export(file: dict[str, Any], answer: bytes) -> None:
    file["export"] = answer


def _confirmation(file: dict[str, Any]) -> tuple[bytes, str]:
    """The paying system's file for the export: every payment made as asked."""
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(file["export"].decode("utf-8"))))
    lines = ["document_number,amount,paid_on,payment_reference"] + [
        f"{row['document_number']},{row['amount']},2026-12-01,EFT-{n:05d}"
        for n, row in enumerate(rows, start=1)
    ]
    return ("\r\n".join(lines) + "\r\n").encode(), "text/csv"


def _on_batch(suffix: str) -> Callable[[dict[str, Any]], str]:
    return lambda file: f"/payment-batches/{file['batch']}{suffix}"


PAYMENT_STEPS: list[Step] = [
    Step(
        "batch",
        FINANCE,
        lambda f: "/payment-batches",
        lambda f: {"jurisdiction": "ON", "fiscal_year": f["fiscal_year"]},
        201,
        _learn_batch,
    ),
    Step("authorize", SECOND_FINANCE, _on_batch("/authorize"), lambda f: {}, 200),
    Step(
        "export", FINANCE, _on_batch("/export.csv"), lambda f: {}, 200, _learn_export, method="GET"
    ),
    Step("confirm", FINANCE, _on_batch("/confirmations"), lambda f: {}, 200, raw=_confirmation),
]


def money_thread(client: Client, ready: list[int], fiscal_year: str, until: float) -> None:
    """Claim on each file ready to claim, certify, then pay them in one batch."""
    history = client.history
    try:
        for application in ready:
            file = {"number": f"ready{application}", "application": application}
            with history.lock:
                history.money.append(file)
            client.walk(file, until, CLAIM_STEPS)
            if file.get("done") != "claim_approve":
                return
        payments = {"number": "payments", "fiscal_year": fiscal_year}
        with history.lock:
            history.money.append(payments)
        client.walk(payments, until, PAYMENT_STEPS)
    except Exception as error:
        with history.lock:
            history.crashes.append(f"money: {type(error).__name__}: {error}")


@dataclass(frozen=True)
class Acknowledged:
    file: int
    step: str
    who: str
    key: str
    path: str
    body: bytes
    status: int
    content: bytes


@dataclass
class History:
    acknowledged: list[Acknowledged] = field(default_factory=list)
    unknown: Counter[str] = field(default_factory=Counter)  # attempts without an answer, by step
    replayed: Counter[str] = field(default_factory=Counter)  # retries answered from the record
    files: list[dict[str, Any]] = field(default_factory=list)
    money: list[dict[str, Any]] = field(default_factory=list)  # claims and their payment
    crashes: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self) -> int:
        with self.lock:
            return len(self.acknowledged)


class Client:
    def __init__(self, base: str, tokens: dict[str, str], history: History, run: str) -> None:
        self.base, self.tokens, self.history, self.run = base, tokens, history, run
        self.session = requests.Session()

    def post(self, file: dict[str, Any], step: Step, until: float) -> Acknowledged | None:
        """Send the step until it is acknowledged (retrying the same key and body)."""
        key = f"t4-{self.run}-{file['number']}-{step.name}"
        path = step.path(file)
        body, content_type = (
            step.raw(file)
            if step.raw
            else (json.dumps(step.body(file)).encode(), "application/json")
        )
        headers = {
            "Authorization": f"Bearer {self.tokens[step.who]}",
            "Idempotency-Key": key,
            "Content-Type": content_type,
        }
        retried = False
        while time.monotonic() < until:
            try:
                answer = self.session.request(
                    step.method,
                    f"{self.base}/api/v1{path}",
                    data=body if step.method == "POST" else None,
                    headers=headers,
                    timeout=REQUEST_SECONDS,
                )
            except requests.RequestException:
                answer = None
            if answer is None or answer.status_code >= 500:
                with self.history.lock:
                    self.history.unknown[step.name] += 1
                retried = True
                self.session = requests.Session()  # the old connection may be half-closed
                time.sleep(0.2)
                continue
            if step.method != "POST":
                return Acknowledged(
                    file["number"],
                    step.name,
                    step.who,
                    "",
                    path,
                    b"",
                    answer.status_code,
                    answer.content,
                )
            logged = Acknowledged(
                file["number"],
                step.name,
                step.who,
                key,
                path,
                body,
                answer.status_code,
                answer.content,
            )
            with self.history.lock:
                self.history.acknowledged.append(logged)
                if retried and answer.headers.get("Idempotent-Replayed") == "true":
                    self.history.replayed[step.name] += 1
            return logged
        return None

    def walk(self, file: dict[str, Any], until: float, steps: list[Step] | None = None) -> None:
        for step in steps or STEPS:
            logged = self.post(file, step, until)
            if logged is None:
                file["unfinished"] = step.name
                return
            if logged.status != step.status:
                file["refused"] = (step.name, logged.status, logged.content[:300])
                return
            content = logged.content
            step.learn(file, json.loads(content) if content[:1] in (b"{", b"[") else content)
            file["done"] = step.name


def client_thread(
    client: Client,
    numbers: Iterator[int],
    employers: list[str],
    more: threading.Event,
    until: float,
) -> None:
    try:
        while more.is_set() and time.monotonic() < until:
            try:
                number = next(numbers)
            except StopIteration:
                return
            file: dict[str, Any] = {
                "number": number,
                "business_number": employers[number % len(employers)],
            }
            with client.history.lock:
                client.history.files.append(file)
            client.walk(file, until)
    except Exception as error:
        with client.history.lock:
            client.history.crashes.append(f"{type(error).__name__}: {error}")


# --- The scene ----------------------------------------------------------------------------


def server_env(cluster: Cluster, var: Path) -> dict[str, str]:
    return {
        **os.environ,
        "JOBGRANT_ENV": "development",
        "JOBGRANT_VAR_DIR": str(var),
        "JOBGRANT_DATABASE_URL": cluster.url,
        "DJANGO_SETTINGS_MODULE": "jobgrant.service.settings",
        # What is under test is a crash's effect on acknowledged work, not the rate limits
        # (tests/service/accounts/test_rate_limits.py): one employer submits every file here.
        "JOBGRANT_RATE_SUBMIT": "1000000/h",
    }


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()


def make_employers(count: int) -> list[str]:
    """One employer per few files for the demo employer, so that no per-employer cap binds;
    verified, as an officer would have (a release before organization verification has no
    such column: `jobgrant.reliability.migrate_online` makes them with that release's code)."""
    from django.db import connections

    from jobgrant.service.accounts.models import User
    from jobgrant.service.demo import business_number
    from jobgrant.service.registry.models import Employer

    fields = {field.name for field in Employer._meta.get_fields()}
    verified = {"verification": "verified"} if "verification" in fields else {}
    employers = Employer.objects.bulk_create(
        Employer(
            business_number=business_number(f"{40_000_000 + n}"),
            name=f"Crash test {n}",
            employees=40,
            naics="332710",
            jurisdiction="ON",
            region="3550",
            **verified,
        )
        for n in range(count)
    )
    User.objects.get(username=EMPLOYER).employers.add(*employers)
    connections.close_all()
    return [employer.business_number for employer in employers]


def ready_to_claim() -> tuple[list[int], str]:
    """The demonstration's files ready to claim (`jobgrant serve` loaded them), and their
    fiscal year."""
    from django.db import connections

    from jobgrant.service.grants.models.applications import Application

    files = Application.objects.filter(agreement__state="accepted", claims__isnull=True)
    found = sorted(files.values_list("pk", "fiscal_year"))
    connections.close_all()
    if not found:
        raise SystemExit("T4: the demonstration data has no file ready to claim")
    return [pk for pk, _ in found], found[0][1]


def issue_tokens(base: str) -> dict[str, str]:
    """One token each; staff pass the second factor with the code of the published
    demonstration secret (README), once each, as their app would show it."""
    from jobgrant.service.accounts.demo_credentials import demo_code

    tokens = {}
    for username in (EMPLOYER, RECOMMENDER, APPROVER, FINANCE, SECOND_FINANCE):
        credentials = {"username": username, "password": DEMO_PASSWORD, "client": "t4"}
        if username != EMPLOYER:
            credentials["otp"] = demo_code()
        answer = requests.post(
            f"{base}/api/v1/auth/token", json=credentials, timeout=REQUEST_SECONDS
        )
        answer.raise_for_status()
        tokens[username] = answer.json()["token"]
    return tokens


@dataclass
class Kills:
    app: int = 0
    postgres: int = 0
    moments: list[str] = field(default_factory=list)


def crash_at_random(
    server: Server, cluster: Cluster, history: History, args: argparse.Namespace, kills: Kills
) -> None:
    """Kill the app server and the postmaster in a random order, each after a random stretch of
    acknowledged traffic (and a random fraction of a second more: mid-request), then restart."""
    chooser = random.Random(args.seed)
    order = ["app"] * args.app_kills + ["postgres"] * args.postgres_kills
    chooser.shuffle(order)
    for victim in order:
        target = history.count() + chooser.randint(3, 12)
        deadline = time.monotonic() + 60
        while history.count() < target and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(chooser.uniform(0, 0.3))
        began = time.monotonic()
        if victim == "app":
            server.kill()
            kills.app += 1
            server.start()
        else:
            cluster.kill_postmaster()
            kills.postgres += 1
            cluster.start(RESTART_SECONDS)
            server.wait_until_healthy()
        kills.moments.append(
            f"{victim} after {history.count()} answers, back in {time.monotonic() - began:.1f} s"
        )
        progress(f"killed {kills.moments[-1]}")


# --- The checks ---------------------------------------------------------------------------

# The audit entries each step leaves: (object type, action).
AUDIT = {
    "create": [("application", "application.create")],
    "submit": [("application", "application.submit")],
    "recommend": [("application", "application.recommend")],
    "approve": [("application", "application.approve"), ("agreement", "agreement.issue")],
    "accept": [("agreement", "agreement.accept")],
}
KNOWN_ACTIONS = {entry for entries in AUDIT.values() for entry in entries}
STATE_AFTER = {
    "create": "draft",
    "submit": "submitted",
    "recommend": "recommended",
    "approve": "approved",
    "accept": "approved",
}


def check(history: History, env: dict[str, str], employers: list[str]) -> dict[str, list[str]]:
    """Every problem found, by kind: lost, half-applied, duplicate, verify."""
    from django.db import connections

    connections.close_all()  # the database was restarted under any connection we had
    problems: dict[str, list[str]] = {"lost": [], "half": [], "duplicate": [], "verify": []}
    problems["lost"] += acknowledged_are_recorded(history)
    problems["lost"] += files_in_their_last_state(history)
    half, duplicate = effects_once_each(history, employers)
    problems["half"] += half
    problems["duplicate"] += duplicate
    half, duplicate = money_once_each(history)
    problems["half"] += half
    problems["duplicate"] += duplicate
    problems["verify"] += verifications(env)
    return problems


def money_once_each(history: History) -> tuple[list[str], list[str]]:
    """(half-applied or lost, duplicates) on the way out: one claim per file ready to claim, in
    the state its last acknowledged step left, one receipt, its ledger movements once per funder;
    one batch, authorized, each of its payments disbursed once, one confirmation import."""
    from jobgrant.service.audit.models import AuditEntry
    from jobgrant.service.grants.models.claims import Claim, ClaimShare, Receipt
    from jobgrant.service.grants.models.payments import (
        ConfirmationImport,
        PaymentBatch,
        PaymentRequest,
    )
    from jobgrant.service.ledger.models import LedgerTransaction

    half: list[str] = []
    duplicate: list[str] = []
    state_after = {
        "claim": "draft",
        "receipt": "draft",
        "claim_submit": "submitted",
        "claim_approve": "approved",
    }
    for file in history.money:
        if "application" not in file or "claim" not in file:
            continue
        claims = list(Claim.objects.filter(application_id=file["application"]))
        receipts = Receipt.objects.filter(claim__in=claims).count()
        if len(claims) != 1:
            duplicate.append(f"{file['number']}: {len(claims)} claims")
            continue
        claim, done = claims[0], file["done"]
        if claim.state != state_after[done]:
            half.append(f"{file['number']}: claim {claim.state}, acknowledged {done}")
        if receipts != (0 if done == "claim" else 1):
            (duplicate if receipts > 1 else half).append(f"{file['number']}: {receipts} receipts")
        kinds = Counter(
            LedgerTransaction.objects.filter(reference=f"claim:{claim.pk}").values_list(
                "kind", flat=True
            )
        )
        # One movement per funder whose share the submission moved to claimed (a share the
        # caps brought to nothing moves nothing).
        funders = ClaimShare.objects.filter(claim=claim, claimed_cents__gt=0).count()
        expected: Counter[str] = Counter()
        if done in ("claim_submit", "claim_approve"):
            expected["claim"] = funders
        if done == "claim_approve":
            expected["approve_claim"] = funders
        if done in ("claim_submit", "claim_approve") and not funders:
            half.append(f"{file['number']}: a submitted claim moved no money")
        if kinds != expected:
            (duplicate if sum(kinds.values()) > sum(expected.values()) else half).append(
                f"{file['number']}: ledger {dict(kinds)}, expected {dict(expected)}"
            )
        actions = Counter(
            AuditEntry.objects.filter(object_type="claim", object_id=str(claim.pk)).values_list(
                "action", flat=True
            )
        )
        for action in ("claim.start", "claim.submit", "claim.approve"):
            if actions[action] > 1:
                duplicate.append(f"{file['number']}: {actions[action]} {action}")
    payments = next((f for f in history.money if f["number"] == "payments"), None)
    batches = PaymentBatch.objects.count()
    if payments is None or "batch" not in payments:
        if batches:
            duplicate.append(f"{batches} payment batches, none acknowledged")
        return half, duplicate
    if batches != 1:
        duplicate.append(f"{batches} payment batches for one acknowledged")
    batch = PaymentBatch.objects.get(pk=payments["batch"])
    requests_ = list(PaymentRequest.objects.filter(batch=batch))
    done = payments["done"]
    expected_state = {
        "batch": "built",
        "authorize": "authorized",
        "export": "exported",
        "confirm": "reconciled",
    }[done]
    if batch.state != expected_state:
        half.append(f"batch {batch.state}, acknowledged {done}")
    imports = ConfirmationImport.objects.count()
    if imports != (1 if done == "confirm" else 0):
        (duplicate if imports > 1 else half).append(f"{imports} confirmation imports")
    for request in requests_:
        disbursed = LedgerTransaction.objects.filter(
            kind="disburse", reference=f"payment:{request.document_number}"
        ).count()
        if disbursed != (1 if done == "confirm" else 0):
            (duplicate if disbursed > 1 else half).append(
                f"{request.document_number}: disbursed {disbursed} times"
            )
    return half, duplicate


def acknowledged_are_recorded(history: History) -> list[str]:
    """Each acknowledged answer is the one its idempotency record holds."""
    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.models.applications import IdempotencyKey

    users = {user.username: user.pk for user in User.objects.all()}
    records = {
        (record.user_id, record.key): record
        for record in IdempotencyKey.objects.filter(key__startswith="t4-")
    }
    lost = []
    for answer in history.acknowledged:
        record = records.get((users[answer.who], answer.key))
        if record is None:
            # A refusal (4xx) raised inside the work is rolled back with its key: no record,
            # and none is owed. A success must be recorded.
            if answer.status < 400:
                lost.append(f"{answer.key}: acknowledged {answer.status}, no record")
            continue
        if (record.status, record.body) != (answer.status, answer.content.decode()):
            lost.append(f"{answer.key}: acknowledged {answer.status}, recorded {record.status}")
    return lost


def files_in_their_last_state(history: History) -> list[str]:
    from jobgrant.service.grants.models.agreements import Agreement
    from jobgrant.service.grants.models.applications import Application

    lost = []
    for file in history.files:
        if "application" not in file:
            continue
        application = Application.objects.filter(pk=file["application"]).first()
        if application is None:
            lost.append(f"file {file['number']}: application {file['application']} missing")
            continue
        expected = STATE_AFTER[file["done"]]
        if application.state != expected:
            lost.append(f"file {file['number']}: {application.state}, acknowledged {expected}")
        agreement = Agreement.objects.filter(application=application).first()
        if file["done"] == "accept" and (agreement is None or agreement.state != "accepted"):
            lost.append(f"file {file['number']}: the accepted agreement is not accepted")
    return lost


def effects_once_each(history: History, employers: list[str]) -> tuple[list[str], list[str]]:
    """(half-applied, duplicates): per file, the audit entries, the ledger's commitments and
    the agreement are exactly those its state implies, once each."""
    from jobgrant.service.grants.models.applications import Application

    half: list[str] = []
    duplicate: list[str] = []
    t4 = Application.objects.filter(employers__employer__business_number__in=employers)
    created = [f for f in history.files if "application" in f]
    if t4.count() != len(created):
        duplicate.append(f"{t4.count()} applications for {len(created)} files created")
    for file in created:
        names = [s.name for s in STEPS]
        reached = names[: names.index(file["done"]) + 1]
        application = Application.objects.get(pk=file["application"])
        for found, expected, what in file_effects(application, reached):
            if found != expected:
                more = any(found[k] > expected[k] for k in found)
                (duplicate if more else half).append(
                    f"file {file['number']} {what}: {dict(found)}, expected {dict(expected)}"
                )
    return half, duplicate


def file_effects(
    application: Any, reached: list[str]
) -> list[tuple[Counter[Any], Counter[Any], str]]:
    """(found, expected, what) for the file's audit entries, commitments and agreement."""
    from jobgrant.service.audit.models import AuditEntry
    from jobgrant.service.grants.models.agreements import Agreement
    from jobgrant.service.ledger.models import Posting

    agreement = Agreement.objects.filter(application=application).first()
    objects = [("application", application.pk)] + (
        [("agreement", agreement.pk)] if agreement else []
    )
    audit: Counter[Any] = Counter()
    for kind, pk in objects:
        entries = AuditEntry.objects.filter(object_type=kind, object_id=str(pk))
        audit.update(
            (kind, action)
            for action in entries.values_list("action", flat=True)
            if (kind, action) in KNOWN_ACTIONS
        )
    approved = "approve" in reached
    commitments = Counter(
        Posting.objects.filter(
            transaction__application=application, transaction__kind="commit", bucket="committed"
        ).values_list("account__funder", "amount_cents")
    )
    shares = (("federal", application.federal_cents), ("provincial", application.provincial_cents))
    return [
        (audit, Counter(entry for step in reached for entry in AUDIT[step]), "audit entries"),
        (commitments, Counter(s for s in shares if s[1] and approved), "commitments"),
        (
            Counter({"agreements": int(agreement is not None)}),
            Counter({"agreements": int(approved)}),
            "agreement",
        ),
    ]


def verifications(env: dict[str, str]) -> list[str]:
    """`operations.verify()` in this process, then `jobgrant ledger verify` and `jobgrant audit
    verify` as an operator runs them."""
    from jobgrant.service.ledger import operations

    found = [f"ledger: {difference}" for difference in operations.verify()]
    for command in (["ledger", "verify"], ["audit", "verify"]):
        done = subprocess.run(
            [str(JOBGRANT), *command], env=env, capture_output=True, text=True, check=False
        )
        print(f"  jobgrant {' '.join(command)}: {done.stdout.strip()[-300:]}")
        if done.returncode != 0:
            found.append(f"{' '.join(command)}: {done.stdout.strip()} {done.stderr[-300:]}")
    return found


# --- The run ------------------------------------------------------------------------------


def progress(line: str) -> None:
    """A line as it happens, so that a run that hangs shows where in the CI log."""
    print(f"T4 {time.strftime('%H:%M:%S')} {line}", flush=True)


def run(args: argparse.Namespace) -> int:
    began = time.monotonic()
    until = began + args.timeout
    with tempfile.TemporaryDirectory(prefix="jobgrant-t4-") as root:
        cluster = Cluster(Path(root))
        server: Server | None = None
        try:
            cluster.start()
            cluster.create_database()
            env = server_env(cluster, Path(root) / "var")
            server = Server(env, Path(root) / "server.log", workers=args.server_workers)
            server.start()
            setup_django(env)
            employers = make_employers(max(1, args.files // 4))
            tokens = issue_tokens(server.base)
            history, kills = History(), Kills()
            more = threading.Event()
            more.set()
            numbers = iter(range(args.files * 100))  # files go on until the crashes are done
            clients = [
                threading.Thread(
                    target=client_thread,
                    args=(
                        Client(server.base, tokens, history, str(args.seed)),
                        numbers,
                        employers,
                        more,
                        until,
                    ),
                )
                for _ in range(args.clients)
            ]
            ready, fiscal_year = ready_to_claim()
            clients.append(
                threading.Thread(
                    target=money_thread,
                    args=(
                        Client(server.base, tokens, history, str(args.seed)),
                        ready,
                        fiscal_year,
                        until,
                    ),
                )
            )
            for thread in clients:
                thread.start()
            progress("server healthy; clients walking files")
            crash_at_random(server, cluster, history, args, kills)
            # A few more files after the last crash: the service is whole again (unless every
            # client has stopped, on a crash of its own, which the report then gives).
            target = len(history.files) + args.clients
            while (
                len(history.files) < max(target, args.files)
                and time.monotonic() < until
                and any(thread.is_alive() for thread in clients[: args.clients])
            ):
                time.sleep(0.05)
            progress(f"{len(history.files)} files begun; waiting for the clients to finish")
            more.clear()
            for thread in clients:
                thread.join()
            elapsed = time.monotonic() - began
            problems = check(history, env, employers)
            return report(args, history, kills, problems, elapsed, server.log)
        finally:
            if server is not None:
                server.stop()
            cluster.stop()


def report(
    args: argparse.Namespace,
    history: History,
    kills: Kills,
    problems: dict[str, list[str]],
    elapsed: float,
    log: Path,
) -> int:
    steps = Counter(answer.step for answer in history.acknowledged)
    statuses = Counter(answer.status for answer in history.acknowledged)
    unfinished = [f for f in history.files + history.money if "unfinished" in f]
    refused = [f["refused"] for f in history.files + history.money if "refused" in f]
    money = {f["number"]: f.get("done") for f in history.money}
    print(
        f"T4 crash on PostgreSQL (a cluster of its own): {kills.app} app-server SIGKILLs, "
        f"{kills.postgres} postmaster SIGKILLs, {args.clients} clients, seed {args.seed}\n"
        f"  {len(history.files)} files, {len(history.acknowledged)} acknowledged answers "
        f"{dict(sorted(steps.items()))}, statuses {dict(sorted(statuses.items()))}\n"
        f"  attempts without an answer (retried with their key) {sum(history.unknown.values())} "
        f"{dict(history.unknown)}; retries answered from the record (the effect had committed) "
        f"{sum(history.replayed.values())} {dict(history.replayed)}\n"
        f"  lost {len(problems['lost'])}, half-applied {len(problems['half'])}, "
        f"duplicates {len(problems['duplicate'])}, verify problems {len(problems['verify'])}, "
        f"unfinished files {len(unfinished)}, refused {len(refused)}\n"
        f"  claims and payments, last acknowledged step: {money}\n"
        f"  elapsed {elapsed:.1f} s; load average {os.getloadavg()[0]:.1f}"
    )
    for moment in kills.moments:
        print(f"    killed {moment}")
    failures = [f"{kind}: {found[:5]}" for kind, found in problems.items() if found]
    if history.crashes:
        failures.append(f"client crashes: {history.crashes[:5]}")
    if unfinished:
        failures.append(f"{len(unfinished)} files unfinished at the deadline")
    if refused:
        failures.append(f"refused: {refused[:3]}")
    if (kills.app, kills.postgres) != (args.app_kills, args.postgres_kills):
        failures.append("not every kill happened")
    if failures:
        print("T4 FAILED: " + "; ".join(failures))
        print(log.read_text(errors="replace")[-3000:])
        return 1
    print("T4 passed")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app-kills", type=int, default=10)
    parser.add_argument("--postgres-kills", type=int, default=5)
    parser.add_argument("--files", type=int, default=20, help="at least this many grant files")
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--server-workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    sys.exit(run(args))


if __name__ == "__main__":
    main()
