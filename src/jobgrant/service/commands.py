"""What `jobgrant serve`, `jobgrant worker` and `jobgrant audit verify` do (Django is only
imported here)."""

from __future__ import annotations

import os
import sys


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jobgrant.service.settings")
    import django

    django.setup()


def prepare_database(*, with_demo: bool) -> None:
    """Migrate, then load the demonstration data unless it is there (or we are in production)."""
    setup_django()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    if with_demo and not settings.PRODUCTION:
        from jobgrant.service.demo import seed

        if seed():
            print("Loaded the demonstration data (accounts demo-*, password jobgrant-demo).")


# How `jobgrant serve` runs gunicorn by default, and what bench/approvals.py measures: worker
# processes with one thread each (gunicorn's sync workers). Under the GIL, threads of one process
# take turns, so a thread holding the budget rows can wait milliseconds for the interpreter
# after each statement while every other approval waits for it; processes are scheduled by the
# OS and a handful of them keeps two cores busy while one waits on the database. Sync workers
# serve one request at a time and close the connection after it: behind a reverse proxy (as in
# production), slow clients do not hold them.
WORKERS = 4
THREADS = 1


def gunicorn_arguments(bind: str, workers: int = WORKERS, threads: int = THREADS) -> list[str]:
    """The gunicorn command line (after `python -m`) that serves the application."""
    options = {
        "--bind": bind,
        "--workers": str(workers),
        "--threads": str(threads),
        "--access-logfile": "-",
        "--graceful-timeout": "10",
    }
    flags_and_values = [part for option in options.items() for part in option]
    return ["gunicorn", "jobgrant.service.wsgi:application", *flags_and_values]


def serve(host: str, port: int, workers: int = WORKERS, threads: int = THREADS) -> None:
    """Migrate, seed, then replace this process with gunicorn serving the WSGI application."""
    prepare_database(with_demo=True)
    print(f"jobgrant on http://{host}:{port}/  (API: http://{host}:{port}/api/v1/docs)", flush=True)
    arguments = gunicorn_arguments(f"{host}:{port}", workers, threads)
    os.execv(sys.executable, [sys.executable, "-m", *arguments])


def verify_audit() -> int:
    """Check the whole chain; print the result; return the exit code (0 intact, 1 broken)."""
    setup_django()
    from jobgrant.service.audit.chain import verify

    result = verify()
    if result.ok:
        print(f"audit chain intact: {result.checked} entries verified")
        return 0
    print(
        f"audit chain broken at entry {result.first_broken}: {result.problem} "
        f"({result.checked} entries verified before it)"
    )
    return 1


def work(interval: float, worker_id: str) -> None:
    """Run the worker: django-tasks' database tasks (the outbox's deliveries), the outbox sweep
    and the periodic jobs of jobgrant.service.schedule, until SIGTERM or SIGINT."""
    import logging

    setup_django()
    from jobgrant.service.notifications.worker import (
        OutboxWorker,
        periodic_jobs,
        relax_commit_durability,
    )
    from jobgrant.service.schedule import PERIODIC_JOBS

    relax_commit_durability()
    logging.getLogger("jobgrant.notifications").setLevel(logging.INFO)
    worker = OutboxWorker(worker_id, interval, periodic_jobs(PERIODIC_JOBS))
    worker.run()
