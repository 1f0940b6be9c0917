"""The previous release's servers keep serving while `jobgrant migrate` of this release runs
(docs/deployment.md, "Migrations that never stop the service").

    python tests/reliability/migrate_online.py         # the release before the newest migration
    python tests/reliability/migrate_online.py --previous <commit>

The previous release is the code of the commit before the one that added the newest migration
(or --previous): its tree is taken with `git archive` into a temporary directory (with this
checkout's build products under src/ beside it: vendor files, compiled messages). On a PostgreSQL
cluster of its own (as T4's), `jobgrant serve` of that release migrates to its schema and loads the
demonstration data. Then a crowd walks grant files through the API against it (T4's clients:
create, submit, recommend, approve, accept, every POST with an Idempotency-Key), with readers
listing applications and reading /healthz, while this checkout's `jobgrant migrate` applies the
new migrations under it; the crowd goes on for a few seconds after. Required: the migration
succeeds, and the old server answered every request as it should: 0 server errors, 0 requests
without an answer, 0 refusals. Then a server of this release starts with `--no-migrate` on the
migrated database and answers /readyz.

With --control (run by `make reliability-migrate` after the check), the drill is then shown to
catch a migration that breaks the previous release: the same crowd goes on against the old server
while a copy of this release with one more migration, which renames a column of grant
applications that the old code reads (`RunSQL`, as a careless rename would), is migrated under
it. That round must FAIL the same checks (server errors counted): the run exits 0 only if it
does.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# T4's cluster, server, client and steps (this script's directory is on sys.path[0]).
import crash_t4 as t4
import requests

ROOT = t4.ROOT


def employers_made_by(env: dict[str, str], count: int) -> list[str]:
    """T4's employers, made by the previous release's code: the database has its schema until
    `jobgrant migrate` runs, and this release's models may have columns it has not yet."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
        "import crash_t4 as t4; "
        # crash_t4 puts this checkout's src/ first; the PYTHONPATH's release must win here
        "sys.path[:] = [p for p in sys.path if p != str(t4.ROOT / 'src')]; "
        "t4.setup_django({}); "
        f"print(json.dumps(t4.make_employers({count})))"
    )
    made = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0:
        raise RuntimeError(
            f"the previous release could not make the employers:\n{made.stderr[-3000:]}"
        )
    return list(json.loads(made.stdout.strip().splitlines()[-1]))


def previous_release(given: str | None) -> str:
    if given:
        return given
    newest = subprocess.run(
        [
            "git",
            "log",
            "-1",
            "--format=%H",
            "--diff-filter=A",
            "--",
            "src/jobgrant/**/migrations/0*.py",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not newest:
        raise SystemExit("no commit adds a migration")
    return f"{newest}^"


def checkout(commit: str, into: Path) -> Path:
    """The release's tree, with this checkout's untracked build products under src/ it lacks."""
    into.mkdir()
    archive = subprocess.run(
        ["git", "archive", commit], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    built = subprocess.run(
        ["git", "ls-files", "--others", "--ignored", "--exclude-standard", "src"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in built:
        if "__pycache__" in name:
            continue
        target = into / name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
    return into / "src"


def pending() -> list[str]:
    """The migrations of this release not applied to the database."""
    from django.db import connection, connections
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    names = [f"{migration.app_label}.{migration.name}" for migration, _ in plan]
    connections.close_all()
    return names


def reader(
    base: str, token: str, errors: Counter[str], answers: Counter[str], stop: threading.Event
) -> None:
    session = requests.Session()
    headers = {"Authorization": f"Bearer {token}"}
    while not stop.is_set():
        for path, auth in (("/api/v1/applications", headers), ("/healthz", {})):
            try:
                answer = session.get(base + path, headers=auth, timeout=30)
                answers[str(answer.status_code)] += 1
                if answer.status_code != 200:
                    errors[f"{path} {answer.status_code}"] += 1
            except requests.RequestException as error:
                errors[f"{path} {type(error).__name__}"] += 1


#: The control's breaking migration: a column every query on grant applications selects.
BROKEN_TABLE, BROKEN_COLUMN = "grants_application", "decision_reason"


def with_breaking_migration(into: Path) -> Path:
    """A copy of this release's sources with one more migration, after the newest of `grants`,
    renaming a column the previous release's code reads (and this release's too)."""
    from django.db import connection, connections
    from django.db.migrations.loader import MigrationLoader

    leaf = max(n for app, n in MigrationLoader(connection).graph.leaf_nodes() if app == "grants")
    connections.close_all()
    shutil.copytree(ROOT / "src", into, ignore=shutil.ignore_patterns("__pycache__"))
    (into / "jobgrant" / "service" / "grants" / "migrations" / "9999_control_rename.py").write_text(
        "from django.db import migrations\n\n\n"
        "class Migration(migrations.Migration):\n"
        f"    dependencies = [('grants', {leaf!r})]\n"
        "    operations = [\n"
        "        migrations.RunSQL(\n"
        f"            'ALTER TABLE {BROKEN_TABLE} RENAME COLUMN {BROKEN_COLUMN} TO renamed',\n"
        f"            'ALTER TABLE {BROKEN_TABLE} RENAME COLUMN renamed TO {BROKEN_COLUMN}',\n"
        "        )\n"
        "    ]\n"
    )
    return into


@dataclass
class Round:
    """One round of traffic against a server: writers walking files, readers reading."""

    history: t4.History
    errors: Counter[str]
    reads: Counter[str]
    threads: list[threading.Thread]
    more: threading.Event
    stop: threading.Event

    @classmethod
    def start(
        cls,
        args: argparse.Namespace,
        base: str,
        tokens: dict[str, str],
        employers: list[str],
        numbers: Iterator[int],
        until: float,
        run: str,
    ) -> Round:
        history, errors, reads = t4.History(), Counter[str](), Counter[str]()
        more, stop = threading.Event(), threading.Event()
        more.set()
        threads = [
            threading.Thread(
                target=t4.client_thread,
                args=(t4.Client(base, tokens, history, run), numbers, employers, more, until),
            )
            for _ in range(args.clients)
        ] + [
            threading.Thread(target=reader, args=(base, tokens[t4.EMPLOYER], errors, reads, stop))
            for _ in range(args.readers)
        ]
        for thread in threads:
            thread.start()
        return cls(history, errors, reads, threads, more, stop)

    def finish(self) -> None:
        self.more.clear()
        self.stop.set()
        for thread in self.threads:
            thread.join()

    def failures(self) -> list[str]:
        """What the check refuses in this round's traffic."""
        history = self.history
        refused = [f["refused"] for f in history.files if "refused" in f]
        unfinished = [f for f in history.files if "unfinished" in f]
        found = []
        if sum(history.unknown.values()) or self.errors:
            found.append(
                f"requests failed: {sum(history.unknown.values()) + sum(self.errors.values())} "
                f"{dict(history.unknown)} {dict(self.errors)}"
            )
        if refused or history.crashes or unfinished:
            found.append(
                f"refused {refused[:3]}, crashes {history.crashes[:3]}, "
                f"unfinished {len(unfinished)}"
            )
        if not history.count() or not self.reads:
            found.append("no traffic")
        return found


def control(
    args: argparse.Namespace,
    root: Path,
    env: dict[str, str],
    old: t4.Server,
    tokens: dict[str, str],
    employers: list[str],
    numbers: Iterator[int],
) -> int:
    """The breaking migration under the old server: the check must fail."""
    broken_src = with_breaking_migration(root / "broken" / "src")
    began = time.monotonic()
    # The writers retry a request without an answer until this moment (the readers go on until
    # the end): what keeps the round short once requests fail.
    traffic = Round.start(
        args, old.base, tokens, employers, numbers, began + 2 * args.after + 10, f"{args.seed}c"
    )
    time.sleep(args.after)
    migrated = subprocess.run(
        [str(t4.JOBGRANT), "migrate"],
        env={**env, "PYTHONPATH": str(broken_src)},
        capture_output=True,
        text=True,
        check=False,
    )
    time.sleep(args.after)
    traffic.finish()
    failures = traffic.failures()
    print(
        f"Control: a migration renaming {BROKEN_TABLE}.{BROKEN_COLUMN} under the previous "
        f"release's server: exit {migrated.returncode}; {traffic.history.count()} acknowledged "
        f"writes, {sum(traffic.reads.values())} reads {dict(traffic.reads)}; found: {failures}; "
        f"{time.monotonic() - began:.1f} s"
    )
    if migrated.returncode != 0:
        print(f"control FAILED: the breaking migration did not apply: {migrated.stderr[-1000:]}")
        return 1
    if not any(failure.startswith("requests failed") for failure in failures):
        print("control FAILED: a migration that breaks the old servers, and no request failed")
        return 1
    print("control: the breaking migration is caught (requests failed)")
    return 0


def run(args: argparse.Namespace) -> int:
    began = time.monotonic()
    until = began + args.timeout
    commit = previous_release(args.previous)
    label = subprocess.run(
        ["git", "log", "-1", "--format=%h %s", commit],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()[:100]
    with tempfile.TemporaryDirectory(prefix="jobgrant-migrate-online-") as directory:
        root = Path(directory)
        old_src = checkout(commit, root / "previous")
        cluster = t4.Cluster(root)
        old: t4.Server | None = None
        new: t4.Server | None = None
        try:
            cluster.start()
            cluster.create_database()
            env = t4.server_env(cluster, root / "var")
            old_env = {**env, "PYTHONPATH": str(old_src)}
            new_env = {**env, "PYTHONPATH": str(ROOT / "src")}
            old = t4.Server(old_env, root / "old-server.log", workers=args.server_workers)
            old.start()
            t4.setup_django(new_env)
            employers = employers_made_by(old_env, max(1, args.clients * 2))
            tokens = t4.issue_tokens(old.base)
            numbers = iter(range(100_000))
            traffic = Round.start(args, old.base, tokens, employers, numbers, until, str(args.seed))
            history, errors, reads = traffic.history, traffic.errors, traffic.reads
            time.sleep(args.before)
            to_apply = pending()
            migrate_began = time.monotonic()
            migrated = subprocess.run(
                [str(t4.JOBGRANT), "migrate"],
                env=new_env,
                capture_output=True,
                text=True,
                check=False,
            )
            migrate_seconds = time.monotonic() - migrate_began
            answers_during = history.count()
            left = pending()
            time.sleep(args.after)
            traffic.finish()
            answered = history.count()
            new = t4.Server(new_env, root / "new-server.log", workers=1)
            new.starts = 1  # --no-migrate: the database is migrated already
            new.start()
            ready = requests.get(new.base + "/readyz", timeout=30).status_code
            refused = [f["refused"] for f in history.files if "refused" in f]
            unknown = sum(history.unknown.values())
            print(
                f"Migration under the previous release's server, PostgreSQL (a cluster of its "
                f"own): previous release {label}\n"
                f"  jobgrant migrate (this release): {len(to_apply)} migrations {to_apply}, "
                f"exit {migrated.returncode} in {migrate_seconds:.1f} s, {len(left)} left: "
                f"{migrated.stdout.strip()[-300:]}\n"
                f"  {args.clients} clients walking files, {args.readers} readers: "
                f"{answered} acknowledged writes ({answers_during} when the migration ended), "
                f"{sum(reads.values())} reads {dict(reads)}, {len(history.files)} files\n"
                f"  server errors or requests without an answer {unknown + sum(errors.values())} "
                f"{dict(history.unknown)} {dict(errors)}, refusals {len(refused)}, crashes "
                f"{len(history.crashes)}; this release's server --no-migrate: /readyz {ready}\n"
                f"  elapsed {time.monotonic() - began:.1f} s; load average "
                f"{os.getloadavg()[0]:.1f}"
            )
            failures = traffic.failures()
            if not to_apply or left:
                failures.append(f"migrations to apply {to_apply}, left after {left}")
            if migrated.returncode != 0:
                failures.append(f"migrate failed: {migrated.stderr[-1000:]}")
            if ready != 200:
                failures.append(f"/readyz {ready} after the migration")
            if failures:
                print("FAILED: " + "; ".join(failures))
                print((root / "old-server.log").read_text(errors="replace")[-3000:])
                return 1
            print("passed")
            if args.control:
                new.stop()
                return control(args, root, env, old, tokens, employers, numbers)
            return 0
        finally:
            for server in (old, new):
                if server is not None:
                    server.stop()
            cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--previous", help="the previous release's commit (default: computed)")
    parser.add_argument("--before", type=float, default=5.0, help="seconds of traffic first")
    parser.add_argument("--after", type=float, default=5.0, help="seconds after the migration")
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--server-workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument(
        "--control",
        action="store_true",
        help="then a migration that breaks the old servers: the check must fail on it",
    )
    parser.add_argument("--timeout", type=float, default=1500.0)
    args = parser.parse_args()
    sys.exit(run(args))


if __name__ == "__main__":
    main()
