"""T5 (docs/reliability.md): every message reaches the mail server, once to the recipient, none
lost, while the server refuses 30% of deliveries and the worker is killed with SIGKILL. With
--delivery notify, the same through GC Notify's API, to the local stand-in (tests/notify_stub.py):
it fails --refuse of the requests on purpose (500, 429 with Retry-After, an answer slower than the
client's timeout after accepting, accepted then 500), and each message must be accepted exactly once
(its reference once), since Notify does not deduplicate.

    python tests/reliability/outbox_t5.py --messages 1000                       # SQLite
    python tests/reliability/outbox_t5.py --database postgresql://postgres@127.0.0.1:5432/jobgrant
    python tests/reliability/outbox_t5.py --database postgresql://... --workers 2  # scale-out
    python tests/reliability/outbox_t5.py --delivery notify --messages 200        # GC Notify

It makes a fresh database (a SQLite file in a temporary directory, or the PostgreSQL database
`<name>_t5` beside the one named, dropped afterwards), starts a real SMTP server (aiosmtpd) that
answers a transient `451` to --refuse of the deliveries, and --workers real `jobgrant worker`
processes. It writes --messages messages through the outbox (enqueue, in transactions of 50, as
the actions do), and while they are delivered kills a worker with SIGKILL --kills times, each when
a random share of the messages has arrived, starting a new one in its place. When every row is
sent it stops the workers with SIGTERM (they must exit 0) and checks, from what the server
received:
- every message arrived: the distinct Message-IDs are exactly the outbox's N rows, each to its
  own recipient, and no row ended `failed`;
- duplicates at the server (a message accepted by the server and re-sent because its worker was
  killed before it recorded `sent`) are at most the kills; the recipient sees each once, by its
  Message-ID;
- no row was sent by two workers: no row has two successful "sent" tasks (django-tasks records
  which worker ran each task).
It prints the figures (messages, elapsed, messages per second, attempts and retries, refusals,
duplicates) and exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.notify_stub import NotifyStub  # noqa: E402
from tests.smtp_sink import RunningSink, SmtpSink  # noqa: E402

BATCH = 50
# Delivery settings scaled to a test that lasts seconds, not hours (production: notifications'
# defaults in settings.py): short back-off, a lease that a killed worker's row outlives quickly.
FAST = {
    "JOBGRANT_MESSAGE_BACKOFF_SECONDS": "0.2",
    "JOBGRANT_MESSAGE_BACKOFF_CAP_SECONDS": "2",
    "JOBGRANT_MESSAGE_LEASE_SECONDS": "3",
    "JOBGRANT_MESSAGE_SWEEP_SECONDS": "1",
    "JOBGRANT_MESSAGE_MAX_ATTEMPTS": "60",
}
EN_TEMPLATE, FR_TEMPLATE = (
    "7e570000-0000-4000-8000-00000000e001",
    "7e570000-0000-4000-8000-00000000f002",
)
# GC Notify's published limit, which the stand-in enforces as Notify does (a rolling minute):
# "Your GC Notify service is limited to doing 1,000 API requests per minute"
# (https://documentation.notification.canada.ca/en/limits.html).
NOTIFY_LIMIT = (1000, 60.0)


def notify_stand_in(args: argparse.Namespace) -> NotifyStub:
    placeholders = {"subject", "body"}
    return NotifyStub(
        templates={EN_TEMPLATE: placeholders, FR_TEMPLATE: placeholders},
        fail=args.refuse,
        retry_after="1",
        slow_seconds=0.8,  # past the workers' 0.4 s timeout
        rate_limit=NOTIFY_LIMIT,
        seed=args.seed,
    ).start()


def notify_environment(stub: NotifyStub, workers: int) -> dict[str, str]:
    return {
        "JOBGRANT_DELIVERY": "notify",
        "JOBGRANT_NOTIFY_BASE_URL": stub.base_url,
        "JOBGRANT_NOTIFY_API_KEY": stub.api_key,
        "JOBGRANT_NOTIFY_TEMPLATES": json.dumps({"en": EN_TEMPLATE, "fr": FR_TEMPLATE}),
        "JOBGRANT_NOTIFY_TIMEOUT_SECONDS": "0.4",  # the 3 s lease outlasts 2 turns and 4 of it
        "JOBGRANT_NOTIFY_RATE_PER_MINUTE": str(NOTIFY_LIMIT[0]),
        "JOBGRANT_NOTIFY_WORKERS": str(workers),
        "JOBGRANT_NOTIFY_LISTING_LAG_SECONDS": "0",  # the stand-in lists what it accepted at once
    }


def fresh_database(database: str, var: str, suffix: str = "_t5") -> tuple[str, Any]:
    """(database URL, a function that removes it) for a new empty database: a SQLite file in
    `var`, or the PostgreSQL database named as `database`'s with `suffix`."""
    if database == "sqlite":
        return f"sqlite:///{var}/t5.sqlite3", lambda: None
    import psycopg

    parsed = urlparse(database)
    name = f"{parsed.path.lstrip('/') or 'jobgrant'}{suffix}"
    server = database.rsplit("/", 1)[0]

    def run(statement: str) -> None:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as connection:
            connection.execute(statement)

    run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    run(f'CREATE DATABASE "{name}"')
    return f"{server}/{name}", lambda: run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class Workers:
    """The `jobgrant worker` processes, killed and replaced on demand."""

    env: dict[str, str]
    log: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    started: int = 0

    def start(self) -> subprocess.Popen[bytes]:
        self.started += 1
        command = [str(Path(sys.executable).parent / "jobgrant"), "worker", "--interval", "0.05"]
        command += ["--worker-id", f"t5-{self.started}"]
        with self.log.open("ab") as log:
            process = subprocess.Popen(command, env=self.env, stdout=log, stderr=log)
        self.processes.append(process)
        return process

    def kill_one(self, chooser: random.Random) -> None:
        victim = chooser.choice(self.processes)
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        self.processes.remove(victim)
        self.start()

    def stop(self) -> list[int | None]:
        for process in self.processes:
            process.send_signal(signal.SIGTERM)
        return [process.wait(timeout=60) for process in self.processes]


def configure(url: str, var: str, port: int, delivery: dict[str, str]) -> dict[str, str]:
    env = {
        **os.environ,
        **FAST,
        **delivery,
        "JOBGRANT_ENV": "development",
        "JOBGRANT_VAR_DIR": var,
        "JOBGRANT_DATABASE_URL": url,
        "JOBGRANT_EMAIL_BACKEND": "smtp",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(port),
        "EMAIL_USE_TLS": "",
        "EMAIL_USE_SSL": "",
        "DJANGO_SETTINGS_MODULE": "jobgrant.service.settings",
    }
    os.environ.update(env)
    import django

    django.setup()
    from jobgrant.service.commands import migrate_and_seed

    migrate_and_seed(with_demo=False)  # as `jobgrant migrate`: a fresh SQLite file is a copy
    return env


def enqueue_messages(count: int) -> list[int]:
    """`count` messages about one subject, each its own milestone and recipient."""
    from django.db import transaction

    from jobgrant.service.accounts.models import User
    from jobgrant.service.notifications.outbox import enqueue

    subject = User.objects.create(username="t5-subject")
    ids = []
    for start in range(0, count, BATCH):
        with transaction.atomic():
            for number in range(start, min(start + BATCH, count)):
                message = enqueue(
                    "application_received",
                    subject=subject,
                    milestone=f"t5-{number}",
                    to=f"person-{number}@example.com",
                    language=("en", "fr")[number % 2],
                    context={"reference": str(number), "employer": "T5", "link": "http://x/"},
                )
                assert message is not None
                ids.append(message.pk)
    return ids


def unfinished() -> int:
    from jobgrant.service.notifications.models import Message, MessageState

    return Message.objects.exclude(state__in=[MessageState.SENT, MessageState.FAILED]).count()


@dataclass
class Arrival:
    """One message the receiving end accepted: its Message-ID (through GC Notify, its reference
    in brackets, which is the same) and its recipients."""

    message_id: str
    recipients: list[str]


@dataclass
class Receiver:
    """The SMTP server, or the GC Notify stand-in, and what it accepted."""

    smtp: RunningSink | None = None
    notify: NotifyStub | None = None

    @classmethod
    def start(cls, args: argparse.Namespace) -> Receiver:
        if args.delivery == "notify":
            return cls(notify=notify_stand_in(args))
        return cls(smtp=RunningSink(SmtpSink(refuse=args.refuse, seed=args.seed)))

    def environment(self, workers: int) -> dict[str, str]:
        if self.notify is not None:
            return notify_environment(self.notify, workers)
        return {}

    @property
    def port(self) -> int:
        return self.smtp.port if self.smtp is not None else 0

    def arrivals(self) -> list[Arrival]:
        if self.notify is not None:
            return [Arrival(f"<{a.reference}>", [a.email_address]) for a in self.notify.snapshot()]
        assert self.smtp is not None
        return [Arrival(a.message_id, a.recipients) for a in self.smtp.sink.snapshot()]

    def refusals(self) -> str:
        if self.notify is not None:
            on_purpose = dict(sorted(self.notify.failed_on_purpose.items()))
            return f"failed on purpose {on_purpose}, refused {dict(self.notify.refused)}"
        assert self.smtp is not None
        return f"refused by the server (451) {self.smtp.sink.refused}"

    def stop(self) -> None:
        if self.notify is not None:
            self.notify.stop()
        if self.smtp is not None:
            self.smtp.stop()


def run(args: argparse.Namespace) -> int:
    chooser = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="jobgrant-t5-") as var:
        suffix = "_t5n" if args.delivery == "notify" else "_t5"
        url, remove = fresh_database(args.database, var, suffix)
        receiver = Receiver.start(args)
        try:
            env = configure(url, var, receiver.port, receiver.environment(args.workers))
            workers = Workers(env, Path(var) / "workers.log")
            for _ in range(args.workers):
                workers.start()
            # Each kill when a random share (10% to 90%) of the messages has arrived.
            kill_at = sorted(
                chooser.randint(args.messages // 10, args.messages * 9 // 10)
                for _ in range(args.kills)
            )
            began = time.monotonic()
            ids = enqueue_messages(args.messages)
            kills = 0
            deadline = began + args.timeout
            while time.monotonic() < deadline:
                arrived = len({a.message_id for a in receiver.arrivals()})
                while kills < len(kill_at) and arrived >= kill_at[kills]:
                    time.sleep(chooser.uniform(0, 0.05))  # a random moment of that delivery
                    workers.kill_one(chooser)
                    kills += 1
                if kills == len(kill_at) and not unfinished():
                    break
                time.sleep(0.05)
            elapsed = time.monotonic() - began
            codes = workers.stop()
            outcome = Outcome(ids, receiver, kills, elapsed, codes, Path(var) / "workers.log")
            return report(args, outcome)
        finally:
            receiver.stop()
            from django.db import connections

            connections.close_all()
            remove()


def sent_by_two_workers() -> int:
    """Rows for which two tasks each report having sent them (a double claim)."""
    from django_tasks_db.models import DBTaskResult

    from jobgrant.service.notifications.delivery_actions import deliver_message

    results = DBTaskResult.objects.filter(task_path=deliver_message.module_path).successful()
    sent = Counter(
        result.args_kwargs["args"][0] for result in results if result.return_value == "sent"
    )
    return sum(1 for times in sent.values() if times > 1)


@dataclass
class Outcome:
    ids: list[int]
    receiver: Receiver
    kills: int
    elapsed: float
    codes: list[int | None]
    log: Path


def peak_requests(stub: NotifyStub, seconds: float) -> int:
    """The most requests the stand-in received in any `seconds` (a sliding window)."""
    times = sorted(at for _, at in stub.requests)
    peak, first = 0, 0
    for last, at in enumerate(times):
        while times[first] <= at - seconds:
            first += 1
        peak = max(peak, last - first + 1)
    return peak


def pace_problems(args: argparse.Namespace, stub: NotifyStub) -> tuple[str, list[str]]:
    """GC Notify's limit kept: no 429 for the rate, and in any second at most the workers'
    shares (one request per 60 × workers / 1,000 s each, and one more for the window's edge,
    and one for a request that arrived late)."""
    per_second, per_minute = peak_requests(stub, 1.0), peak_requests(stub, 60.0)
    most = args.workers * (int(NOTIFY_LIMIT[0] / NOTIFY_LIMIT[1] / args.workers) + 2)
    figures = (
        f"  requests to Notify {len(stub.requests)}; at most {per_second} in a second "
        f"(the pace allows {most}), {per_minute} in a minute (the limit {NOTIFY_LIMIT[0]})"
    )
    problems = []
    if stub.refused.get("RateLimitError"):
        problems.append(f"{stub.refused['RateLimitError']} requests over Notify's rate limit")
    if per_second > most:
        problems.append(f"{per_second} requests in a second, more than the pace allows")
    if stub.refused.total() != stub.refused.get("RateLimitError", 0):
        problems.append(f"requests refused by the stand-in's checks: {dict(stub.refused)}")
    return figures, problems


def report(args: argparse.Namespace, outcome: Outcome) -> int:
    from django.db.models import Sum

    from jobgrant.service.notifications.models import Message, MessageState

    rows = {row.message_id: row for row in Message.objects.filter(pk__in=outcome.ids)}
    arrivals = outcome.receiver.arrivals()
    distinct = {a.message_id for a in arrivals}
    wrong_recipient = [
        a.message_id
        for a in arrivals
        if a.message_id not in rows or a.recipients != [rows[a.message_id].recipient]
    ]
    attempts = Message.objects.aggregate(total=Sum("attempts"))["total"] or 0
    failed = Message.objects.filter(state=MessageState.FAILED).count()
    duplicates = len(arrivals) - len(distinct)
    lost = len(set(rows) - distinct)
    double_claims = sent_by_two_workers()
    engine = "SQLite" if args.database == "sqlite" else "PostgreSQL"
    through = "GC Notify (stand-in)" if args.delivery == "notify" else "SMTP"
    kills, elapsed, codes = outcome.kills, outcome.elapsed, outcome.codes
    print(
        f"T5 outbox through {through} on {engine}, {args.workers} worker(s): "
        f"{args.messages} messages, {args.refuse:.0%} refused, {kills} SIGKILLs\n"
        f"  elapsed {elapsed:.1f} s, {args.messages / elapsed:.1f} messages/s\n"
        f"  attempts {attempts} (retries {attempts - args.messages}), "
        f"{outcome.receiver.refusals()}\n"
        f"  arrived {len(arrivals)}, distinct Message-IDs {len(distinct)}, "
        f"duplicates at the server {duplicates}, lost {lost}, failed {failed}, "
        f"rows sent by two workers {double_claims}\n"
        f"  workers stopped by SIGTERM with exit codes {codes}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    problems = []
    if outcome.receiver.notify is not None:
        figures, problems = pace_problems(args, outcome.receiver.notify)
        found = outcome.log.read_text().count("not sent again")
        print(f"{figures}\n  re-sends that found the reference at Notify (not sent again) {found}")
    if len(distinct) != args.messages or lost:
        problems.append(f"{lost} messages lost")
    if wrong_recipient:
        problems.append(f"{len(wrong_recipient)} arrivals unknown or to the wrong recipient")
    if failed:
        problems.append(f"{failed} rows failed")
    # Over SMTP a kill between the server's acceptance and `sent` re-sends (same Message-ID);
    # through GC Notify the re-send looks the reference up first, so there must be none.
    allowed = 0 if args.delivery == "notify" else kills
    if duplicates > allowed:
        problems.append(f"{duplicates} duplicates for {kills} kills")
    if double_claims:
        problems.append(f"{double_claims} rows sent by two workers")
    if kills != args.kills:
        problems.append(f"only {kills} of {args.kills} kills happened")
    if any(code != 0 for code in codes):
        problems.append(f"a worker did not stop cleanly on SIGTERM: {codes}")
    if problems:
        print("T5 FAILED: " + "; ".join(problems))
        print(outcome.log.read_text()[-4000:])
        return 1
    print("T5 passed")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument(
        "--database", default="sqlite", help="sqlite, or a postgresql:// URL (its _t5 twin is used)"
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--refuse", type=float, default=0.3, help="share of deliveries refused")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument(
        "--delivery", choices=["smtp", "notify"], default="smtp", help="the worker's delivery"
    )
    args = parser.parse_args()
    print(f"seed {args.seed}", flush=True)
    sys.exit(run(args))


if __name__ == "__main__":
    main()
