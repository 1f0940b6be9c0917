"""What `jobgrant serve`, `jobgrant migrate`, `jobgrant worker`, `jobgrant audit verify` and
`jobgrant ledger verify` do (Django is only imported here)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jobgrant.service.settings")
    import django

    django.setup()


def prepare_database(*, with_demo: bool, migrate: bool = True) -> None:
    """Migrate, then load the demonstration data unless it is there (or we are in production).

    Servers started at once on one database take turns (`one_at_a_time`): the first migrates
    and seeds, the others wait for it and then find nothing left to do. With `migrate=False`
    (`jobgrant serve --no-migrate`, after `jobgrant migrate` ran once for the release) the
    schema is only checked: a server refuses to start on a database its code is ahead of."""
    setup_django()
    from django.conf import settings

    # The static files are each host's own (STATIC_ROOT is under JOBGRANT_VAR_DIR); their
    # hashed names depend only on their content, so every server links the same URLs. They are
    # collected once per content and copied from there (static_files.py).
    from jobgrant.service.static_files import collect_static

    collect_static()
    if not migrate:
        _refuse_unapplied_migrations()
        return
    migrate_and_seed(with_demo=with_demo and not settings.PRODUCTION)


def migrate_and_seed(*, with_demo: bool) -> None:
    """Migrate and load the demonstration data, one process at a time (`one_at_a_time`)."""
    from django.core.management import call_command

    with one_at_a_time():
        _fresh_sqlite_from_template()
        call_command("migrate", verbosity=0)
        if with_demo:
            from jobgrant.service.demo import seed, seed_awaiting_verification, seed_ready_to_claim

            if seed():
                ready = seed_ready_to_claim()
                seed_awaiting_verification()
                print(
                    "Loaded the demonstration data (accounts demo-*, password jobgrant-demo; "
                    f"applications {', '.join(map(str, ready))} are ready to claim)."
                )


def _fresh_sqlite_from_template() -> None:
    """A fresh SQLite database starts as a copy of the migrated template (migrated_template.py):
    `migrate` then finds everything applied instead of spending seconds of CPU."""
    from django.db import connection

    from jobgrant.service.migrated_template import start_from_template

    name = str(connection.settings_dict["NAME"])
    if connection.vendor != "sqlite" or name == ":memory:" or name.startswith("file:"):
        return
    connection.close()
    start_from_template(Path(name))


# The key of the PostgreSQL advisory lock that migrating and seeding hold ("jobgrant" in ASCII).
PREPARE_LOCK = int.from_bytes(b"jobgrant", "big") & 0x7FFF_FFFF_FFFF_FFFF
PREPARE_LOCK_RETRY_SECONDS = 0.2


@contextmanager
def one_at_a_time() -> Iterator[None]:
    """Hold a lock that every process preparing this database takes: on PostgreSQL a session
    advisory lock, on SQLite an exclusive lock on a file beside the database.

    The advisory lock is taken on a connection of its own, so that nothing migrate does with
    Django's connection (closing it, a failed transaction) can release it early; it goes with
    that connection, also when the process dies. It is asked for again and again rather than
    waited for in one statement: a statement waiting on the lock is a transaction that a
    migration's CREATE INDEX CONCURRENTLY, run by the holder, would wait for in turn (a wait
    PostgreSQL does not see as a deadlock: two servers started at once hung)."""
    from django.db import connections

    holder = connections.create_connection("default")
    if holder.vendor == "postgresql":
        try:
            with holder.cursor() as cursor:
                while True:
                    cursor.execute("SELECT pg_try_advisory_lock(%s)", [PREPARE_LOCK])
                    if cursor.fetchone()[0]:
                        break
                    time.sleep(PREPARE_LOCK_RETRY_SECONDS)
            yield
        finally:
            holder.close()
        return
    import fcntl

    with open(f"{holder.settings_dict['NAME']}.prepare-lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _refuse_unapplied_migrations() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    unapplied = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if unapplied:
        names = ", ".join(f"{m.app_label}.{m.name}" for m, _backwards in unapplied[:5])
        raise SystemExit(
            f"The database is behind this release ({len(unapplied)} migrations not applied: "
            f"{names}). Run `jobgrant migrate` once, then start the servers."
        )


def migrate_database() -> None:
    """Apply the migrations (once per release, before the servers start with --no-migrate)."""
    prepare_database(with_demo=False)
    print("The database is up to date.")


# How `jobgrant serve` runs gunicorn by default, and what bench/approvals.py measures: worker
# processes with one thread each (gunicorn's sync workers). Under the GIL, threads of one process
# take turns, so a thread holding the budget rows can wait milliseconds for the interpreter
# after each statement while every other approval waits for it; processes are scheduled by the
# OS and a handful of them keeps two cores busy while one waits on the database. Sync workers
# serve one request at a time and close the connection after it: behind a reverse proxy (as in
# production), slow clients do not hold them.
WORKERS = 4
THREADS = 1


def gunicorn_arguments(
    bind: str, workers: int = WORKERS, threads: int = THREADS, control_socket: Path | None = None
) -> list[str]:
    """The gunicorn command line (after `python -m`) that serves the application.

    gunicorn's control socket (`gunicornc`) is one path per user by default
    ($XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl): a second server started on the
    same host took it over from the first, and the first one stopped removed the second's. So a
    server has its own (`control_socket`, which `jobgrant serve` puts in its var directory) or
    none."""
    control = (
        ["--control-socket", str(control_socket)]
        if control_socket is not None
        else ["--no-control-socket"]
    )
    options = {
        "--bind": bind,
        "--workers": str(workers),
        "--threads": str(threads),
        "--access-logfile": "-",
        "--logger-class": "jobgrant.service.observability.logs.JsonGunicornLogger",
        "--graceful-timeout": "10",
        "--config": "python:jobgrant.service.gunicorn_config",  # no Server: banner
    }
    flags_and_values = [part for option in options.items() for part in option]
    return ["gunicorn", "jobgrant.service.wsgi:application", *flags_and_values, *control]


#: The longest path a Unix socket can have on Linux (sun_path is 108 bytes, with its NUL).
UNIX_SOCKET_PATH_MAX = 107


def control_socket_for(var_dir: Path, port: int) -> Path | None:
    """This server's own control socket: `gunicorn-<port>.ctl` in its var directory (two servers
    on one host listen on different ports), or None (no socket) when that path is too long
    for a Unix socket."""
    path = var_dir.resolve() / f"gunicorn-{port}.ctl"
    return path if len(str(path).encode()) <= UNIX_SOCKET_PATH_MAX else None


def serve(
    host: str, port: int, workers: int = WORKERS, threads: int = THREADS, migrate: bool = True
) -> None:
    """Migrate, seed, then replace this process with gunicorn serving the WSGI application."""
    prepare_database(with_demo=True, migrate=migrate)
    from django.conf import settings

    from jobgrant.service.observability import endpoint

    var_dir = Path(settings.VAR_DIR)
    if endpoint.configured_port(endpoint.PORT) is not None:
        endpoint.prepare_server_metrics(var_dir, port)
    control = control_socket_for(var_dir, port)
    print(f"jobgrant on http://{host}:{port}/  (API: http://{host}:{port}/api/v1/docs)", flush=True)
    if control is None:
        print(f"No control socket: {var_dir} is too deep for one (gunicornc is off).")
    arguments = gunicorn_arguments(f"{host}:{port}", workers, threads, control)
    os.execv(sys.executable, [sys.executable, "-m", *arguments])


def verify_audit() -> int:
    """Check the whole chain; print the result; return the exit code (0 intact, 1 broken)."""
    setup_django()
    from jobgrant.service.audit.anchors import mismatches
    from jobgrant.service.audit.chain import verify

    result = verify()
    if not result.ok:
        print(
            f"audit chain broken at entry {result.first_broken}: {result.problem} "
            f"({result.checked} entries verified before it)"
        )
        return 1
    edited = mismatches()  # notes and reasons kept outside the entries (audit.anchors)
    for problem in edited:
        print(f"audit chain intact, but {problem}")
    if edited:
        return 1
    print(f"audit chain intact: {result.checked} entries verified, notes and reasons match")
    return 0


def rekey_sins() -> int:
    """Re-encrypt every SIN and reseal every direct-deposit account number under the current
    key, and recompute their blind indexes."""
    setup_django()
    from jobgrant.service.grants.participants.sin_keys import rekey_sins as rekey

    done = rekey()
    print(f"{done.rows} SINs held; {done.rewritten} re-encrypted under the current key")
    print(f"{done.accounts} bank accounts held; {done.resealed} resealed under the current key")
    return 0


def rekey_otp_seeds() -> int:
    """Seal every authenticator seed under the current key of JOBGRANT_OTP_KEYS."""
    setup_django()
    from jobgrant.service.accounts.sealed_secrets import seal_stored_secrets

    print(f"{seal_stored_secrets()} authenticator seeds sealed under the current key")
    return 0


def verify_ledger() -> int:
    """Recompute every budget balance from its postings; name each difference (exit 1), or say
    how much was checked (exit 0)."""
    setup_django()
    from jobgrant.service.ledger import operations
    from jobgrant.service.ledger.models import BudgetAccount, Posting

    differences = operations.verify()
    for difference in differences:
        print(difference)
    if differences:
        print(f"ledger: {len(differences)} differences")
        return 1
    print(
        f"ledger balanced: {BudgetAccount.objects.count()} budget accounts, "
        f"{Posting.objects.count()} postings, every balance equals its postings"
    )
    return 0


def load_demo_history(seed: int | None = None, files_per_year: dict[str, int] | None = None) -> int:
    """Migrate and seed as `serve` does (waiting for a server doing it), then load the
    demonstration history (demo_outcomes), printing its progress; the exit code."""
    setup_django()
    from django.conf import settings

    if settings.PRODUCTION:
        print("The demonstration history is refused when JOBGRANT_ENV=production.")
        return 2
    migrate_and_seed(with_demo=True)
    from jobgrant.service.demo_history.load import HistoryInterrupted, history_state, seed_history

    def say(line: str) -> None:
        print(f"demonstration history: {line}", flush=True)

    if history_state() == "absent":
        say("loading (the files of past years, walked through the service's actions)")
    try:
        loaded = seed_history(seed, files_per_year=files_per_year, progress=say)
    except HistoryInterrupted as error:
        say(str(error))
        return 1
    if loaded is None:
        say("already loaded")
        return 0
    say(
        f"loaded {loaded.files} files, {loaded.trainees} trainees, and {loaded.refused} files "
        f"refused for lack of budget (the comparison group) in {loaded.steps} steps "
        f"(seed {loaded.seed}; {loaded.seconds:.0f} s, {loaded.cpu_seconds:.0f} s of CPU)"
    )
    return 0


def work(interval: float, worker_id: str, demo_history: bool = False) -> None:
    """Run the worker: django-tasks' database tasks (the outbox's deliveries), the outbox sweep
    and the periodic jobs of jobgrant.service.schedule, until SIGTERM or SIGINT. With
    `demo_history` (make run), first load the demonstration history: the periodic jobs must not
    run on its files while they are walked through their years."""
    import logging
    import signal

    # A stop asked for while the worker starts (imports, the demonstration history) finds no
    # task in hand: exit at once, and cleanly. OutboxWorker.run then installs the handler that
    # lets the task in hand finish.
    signal.signal(signal.SIGTERM, _exit_before_the_first_task)
    if demo_history:
        load_demo_history()
    setup_django()
    from jobgrant.service.notifications.worker import (
        OutboxWorker,
        periodic_jobs,
        relax_commit_durability,
    )
    from jobgrant.service.schedule import PERIODIC_JOBS

    relax_commit_durability()
    logging.getLogger("jobgrant.notifications").setLevel(logging.INFO)
    from jobgrant.service.observability import endpoint

    metrics_port = endpoint.configured_port(endpoint.WORKER_PORT)
    if metrics_port is not None:
        endpoint.start_worker_listener(metrics_port)
        logging.getLogger("jobgrant.notifications").info(
            "worker %s: metrics on http://%s:%s/metrics", worker_id, endpoint.host(), metrics_port
        )
    worker = OutboxWorker(worker_id, interval, periodic_jobs(PERIODIC_JOBS))
    worker.run()


def _exit_before_the_first_task(signum: int, frame: object) -> None:
    raise SystemExit(0)


def prebuild(postgres_urls: list[str]) -> None:
    """`make test`: what the servers and test processes it starts reuse, made once before they
    need it (they would otherwise wait for the first of them to make it): the static files
    collected (static_files.py), the SQLite template and, for each PostgreSQL URL, a template
    database on that server (migrated_template.py)."""
    import time

    import psycopg

    setup_django()
    from django.conf import settings

    from jobgrant.service.migrated_template import postgres_template, sqlite_template
    from jobgrant.service.settings import database_from_url
    from jobgrant.service.static_files import collected_once, sources_digest

    if settings.JOBGRANT_BUILD_DIR is None:
        print("No build directory (JOBGRANT_BUILD_DIR is unset in production): nothing to do.")
        return
    build = Path(settings.JOBGRANT_BUILD_DIR)
    started = time.perf_counter()
    made: list[object] = [collected_once(build / "static", sources_digest())]
    made.append(sqlite_template(build / "migrated"))
    for url in postgres_urls:
        try:
            made.append(postgres_template(database_from_url(url)))
        except psycopg.OperationalError as error:  # the PostgreSQL pass will say it, and fail
            print(f"No PostgreSQL template at {url}: {error}")
    print(f"Prebuilt in {time.perf_counter() - started:.1f} s: {', '.join(map(str, made))}")


if __name__ == "__main__":  # python -m jobgrant.service.commands [POSTGRES_URL ...]
    prebuild(sys.argv[1:])
