"""`jobgrant serve`, `jobgrant migrate`, `jobgrant worker` and `jobgrant audit verify`: the service
from the command line.

jobgrant.service.commands imports Django only inside the functions that need it, so listing
these commands (and their defaults) costs every other command nothing.
"""

from __future__ import annotations

import os
import socket
from typing import Annotated

import typer

from jobgrant.service import commands as serving


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    workers: Annotated[int, typer.Option(help="gunicorn worker processes.")] = serving.WORKERS,
    threads: Annotated[int, typer.Option(help="Threads per worker process.")] = serving.THREADS,
    migrate: Annotated[
        bool,
        typer.Option(
            help="Migrate (and outside production load the demonstration data) before serving; "
            "with --no-migrate only check that `jobgrant migrate` has been run."
        ),
    ] = True,
) -> None:
    """Migrate the database, load the demonstration data and serve the application."""
    serving.serve(host, port, workers, threads, migrate)


def migrate() -> None:
    """Apply the database migrations: once per release, before the servers start."""
    serving.migrate_database()


def worker(
    interval: Annotated[
        float, typer.Option(help="Seconds to wait when there is nothing to do.")
    ] = 1.0,
    worker_id: Annotated[
        str, typer.Option(help="A name for this worker, unique among the workers (logs).")
    ] = "",
    demo_history: Annotated[
        bool,
        typer.Option(
            help="First load the demonstration history once (make run), as `jobgrant "
            "demo-history` does."
        ),
    ] = False,
) -> None:
    """Deliver the outbox's messages (retrying with back-off) and run the periodic jobs."""
    serving.work(interval, worker_id or f"{socket.gethostname()}-{os.getpid()}", demo_history)


def demo_history(
    seed: Annotated[
        int | None, typer.Option(help="The draws' seed (default: the one in demo-history.yaml).")
    ] = None,
    files_per_year: Annotated[
        str,
        typer.Option(
            help="A smaller history: files per fiscal year by jurisdiction, e.g. ON=2,PE=1 "
            "(default: the file's)."
        ),
    ] = "",
) -> None:
    """Load the demonstration history once: past years' files applied for, paid, completed
    and followed up, walked through the service's actions (not in production)."""
    raise typer.Exit(serving.load_demo_history(seed, _per_jurisdiction(files_per_year)))


def _per_jurisdiction(text: str) -> dict[str, int] | None:
    if not text.strip():
        return None
    counts = {}
    for part in text.split(","):
        code, _, count = part.partition("=")
        if not code.strip() or not count.strip().isdigit():
            raise typer.BadParameter(
                f"{part!r}: write CODE=COUNT, e.g. ON=2", param_hint="--files-per-year"
            )
        counts[code.strip().upper()] = int(count)
    return counts


audit = typer.Typer(help="The tamper-evident audit trail.", no_args_is_help=True)


@audit.command("verify")
def audit_verify() -> None:
    """Check the whole hash chain; name the first broken entry (exit 1) if any."""
    raise typer.Exit(serving.verify_audit())


ledger = typer.Typer(help="The budgets' double-entry ledger.", no_args_is_help=True)


@ledger.command("verify")
def ledger_verify() -> None:
    """Recompute every budget balance from the postings; name each difference (exit 1) if any."""
    raise typer.Exit(serving.verify_ledger())


sin = typer.Typer(help="The Social Insurance Numbers held, encrypted.", no_args_is_help=True)


@sin.command("rekey")
def sin_rekey() -> None:
    """Re-encrypt every SIN and reseal every direct-deposit account number under the first key
    of JOBGRANT_SIN_KEYS (after a rotation)."""
    raise typer.Exit(serving.rekey_sins())


otp = typer.Typer(help="The second factor's secrets, sealed at rest.", no_args_is_help=True)


@otp.command("rekey")
def otp_rekey() -> None:
    """Seal every authenticator seed under the first key of JOBGRANT_OTP_KEYS (after a rotation)."""
    raise typer.Exit(serving.rekey_otp_seeds())
