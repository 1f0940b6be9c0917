"""Benchmark: the time one `jobgrant worker` takes per message, to a local SMTP server.

    make bench                    # SQLite, then PostgreSQL
    python bench/messages.py --database sqlite --messages 500

For each database it makes a fresh one (as tests/reliability/outbox_t5.py does), starts an
aiosmtpd server that accepts everything, writes --messages messages through the outbox with no
worker running, then starts one real `jobgrant worker` and waits until all are sent. With the
queue full, the time between two consecutive `sent_at` is what the worker spends on one message
(claiming its django-tasks task, claiming the outbox row, the SMTP conversation on the worker's
open connection, recording both outcomes); the first message is left out (it pays for the start).
It prints the median and p95 of that time, and messages per second. Other work on the machine
changes the figures: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.reliability.outbox_t5 import (  # noqa: E402
    Workers,
    configure,
    enqueue_messages,
    fresh_database,
    unfinished,
)
from tests.smtp_sink import RunningSink, SmtpSink  # noqa: E402

POSTGRES = os.environ.get("JOBGRANT_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432")


def measure(database: str, count: int) -> None:
    with tempfile.TemporaryDirectory(prefix="jobgrant-bench-messages-") as var:
        url, remove = fresh_database(database, var, suffix="_messages")
        sink = RunningSink(SmtpSink())
        try:
            env = configure(url, var, sink.port)
            enqueue_messages(count)
            workers = Workers(env, Path(var) / "worker.log")
            workers.start()
            while unfinished():
                time.sleep(0.2)
            workers.stop()
            report(database, count)
        finally:
            sink.stop()
            from django.db import connections

            connections.close_all()
            remove()


def report(database: str, count: int) -> None:
    from jobgrant.service.notifications.models import Message

    sent = sorted(Message.objects.values_list("sent_at", flat=True))
    gaps = [(b - a).total_seconds() * 1000 for a, b in itertools.pairwise(sent)]
    quantiles = statistics.quantiles(gaps, n=20)
    total = (sent[-1] - sent[0]).total_seconds()
    engine = "SQLite" if database == "sqlite" else "PostgreSQL"
    print(
        f"messages on {engine}, 1 worker, {count} messages: per message median "
        f"{statistics.median(gaps):.1f} ms, p95 {quantiles[18]:.1f} ms, "
        f"{(count - 1) / total:.1f} messages/s (load average {os.getloadavg()[0]:.2f})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--messages", type=int, default=500)
    args = parser.parse_args()
    kinds = ["sqlite", "postgresql"] if args.database == "both" else [args.database]
    for kind in kinds:
        # A child process each: Django is configured once per process.
        if len(kinds) > 1:
            import subprocess

            subprocess.run(
                [sys.executable, __file__, "--database", kind, "--messages", str(args.messages)],
                check=True,
            )
        else:
            measure("sqlite" if kind == "sqlite" else f"{POSTGRES}/jobgrant_bench", args.messages)


if __name__ == "__main__":
    main()
