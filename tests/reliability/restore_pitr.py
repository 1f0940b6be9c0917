"""T6 (docs/reliability.md): a base backup and the archived WAL restore to a point in time, losing
nothing acknowledged before it and keeping nothing after it.

    python tests/reliability/restore_pitr.py                       # 30 s of traffic each side
    python tests/reliability/restore_pitr.py --before 6 --after 4 --seed 20261201

It starts a PostgreSQL cluster of its own (initdb in a temporary directory, a free port, as T4
does) with WAL archiving on (`archive_command` copying each segment into an archive directory),
and `jobgrant serve` on it (migrated, with the demonstration data). It takes a base backup
(`pg_basebackup`), then client threads walk grant files through the JSON API (create, submit,
recommend, approve, accept the agreement; T4's steps, every POST with an Idempotency-Key) while
another claims on the demonstration's files ready to claim and pays them in a batch (claim,
receipt, submit, certify, batch, authorize, export, confirmation file). Every acknowledged answer
is logged with the moment its request was sent and the moment its answer came back, on the
server's clock (the same host's clock, which PostgreSQL stamps its commits with).

After --before seconds and a first round of claims and payments, a moment is chosen: the target.
The traffic goes on for --after seconds (a second round of claims and a second payment batch),
then the server stops, the last WAL segment is archived, and the first cluster stops. A second
cluster is restored from the base backup alone (`recovery.signal`, `restore_command` copying from
the archive, `recovery_target_time` the target, promoted at the target) and checked:

- every write acknowledged before the target is there: its idempotency record holds the same
  status and body, and each file is in the state its last step before the target left;
- no write sent after the target is there: no idempotency record, no application created after it,
  no file in a later state; a request in flight at the target (sent before, answered after) may be
  either, and is counted apart;
- `jobgrant ledger verify` and `jobgrant audit verify` pass on the restored database.

It prints the figures (writes before and after the target, in flight, lost, kept after the target,
the restore's time) and exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# T4's cluster, server, client and steps (this script's directory is on sys.path[0]).
import crash_t4 as t4

JOBGRANT = t4.JOBGRANT
ORDER = ["draft", "submitted", "recommended", "approved"]  # the states T4's steps leave


# --- The cluster, archiving its WAL; the backup; the restore ------------------------------


class ArchivingCluster(t4.Cluster):
    """T4's cluster with WAL archiving into `archive` (a directory of segments)."""

    def __init__(self, root: Path, archive: Path) -> None:
        super().__init__(root)
        self.archive = archive
        archive.mkdir()
        if os.geteuid() == 0:
            shutil.chown(archive, "postgres")
        self.configure(
            wal_level="replica",
            archive_mode="on",
            # Copied under a temporary name, then renamed: a segment is never seen half-copied
            # (a restore reading one stops with "has wrong size").
            archive_command=(
                f"test ! -f {archive}/%f && cp %p {archive}/%f.partial"
                f" && mv {archive}/%f.partial {archive}/%f"
            ),
            archive_timeout="60",
            # The base backup's label says when it began in this zone (backup_started), and the
            # log speaks the recovery target's.
            log_timezone="UTC",
        )

    def configure(self, **settings: str) -> None:
        lines = "".join(f"{name} = '{value}'\n" for name, value in settings.items())
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(lines)

    def sql(self, statement: str, database: str = "postgres") -> Any:
        import psycopg

        url = self.url.rsplit("/", 1)[0] + "/" + database
        with psycopg.connect(url, autocommit=True) as db:
            row = db.execute(statement).fetchone()
            return row[0] if row else None

    def base_backup(self, into: Path) -> None:
        """`pg_basebackup` over a replication connection, with the WAL it needs (streamed)."""
        into.parent.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(into.parent, "postgres")
        self._run(
            "pg_basebackup",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "-D",
            str(into),
            "-X",
            "stream",
            "-c",
            "fast",
        )

    def archive_last_segment(self, timeout: float = 120) -> str:
        """Switch to a new WAL segment and wait until the one it closed is in the archive; fail
        at once, with the log's last lines, when the archiver reports it failed on it."""
        closed = self.sql("SELECT pg_walfile_name(pg_switch_wal())")
        deadline = time.monotonic() + timeout
        while not (self.archive / closed).exists():
            if self.sql("SELECT last_failed_wal FROM pg_stat_archiver") == closed:
                raise RestoreFailedError(
                    f"archive_command failed on WAL segment {closed}", self.log
                )
            if time.monotonic() > deadline:
                raise RestoreFailedError(
                    f"WAL segment {closed} was not archived in {timeout} s", self.log
                )
            time.sleep(0.2)
        return str(closed)


class RestoreFailedError(RuntimeError):
    """A restore (or the archiving it needs) failed: the message ends with the PostgreSQL log's
    last lines, which say why (`requested recovery stop point is before consistent recovery
    point`, `recovery ended before configured recovery target was reached`, a restore_command
    that could not find a segment...)."""

    def __init__(self, what: str, log: Path | None = None, lines: int = 25) -> None:
        if log is not None:
            what += f"; the last lines of {log.name}:\n{log_tail(log, lines)}"
        super().__init__(what)


def log_tail(log: Path, lines: int = 25) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


def running(cluster: t4.Cluster) -> bool:
    """Whether the cluster's postmaster is alive (its pid file is removed when it stops)."""
    try:
        pid = int((cluster.data / "postmaster.pid").read_text().split()[0])
    except (FileNotFoundError, IndexError, ValueError):
        return False
    return t4._alive(pid)


def backup_started(backup: Path) -> float | None:
    """When the base backup began (its backup_label's START TIME, to the second), if the label
    gives it in UTC (the archiving cluster logs in UTC)."""
    for line in (backup / "backup_label").read_text().splitlines():
        if line.startswith("START TIME: "):
            stamp, _, zone = line.removeprefix("START TIME: ").strip().rpartition(" ")
            if zone in ("UTC", "GMT"):
                began = dt.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.UTC)
                return began.timestamp()
    return None


def restore(
    backup: Path, root: Path, archive: Path, target: str, port: int, timeout: float = 120
) -> t4.Cluster:
    """A second cluster from the base backup, replaying the archive up to `target`, promoted
    there, on `port` (the first cluster's, which is stopped: the same URL reaches it). Started
    once, not retried: a restore that cannot start (a target before the backup was consistent,
    a segment missing before that) raises RestoreFailedError at once, as does a target before
    the base backup began, which PostgreSQL does not refuse: with no commit between the backup's
    start and its end it restores the backup as it is, later than the target."""
    began = backup_started(backup)
    if began is not None and dt.datetime.fromisoformat(target).timestamp() < began:
        at = dt.datetime.fromtimestamp(began, dt.UTC).isoformat(sep=" ")
        raise RestoreFailedError(
            f"the recovery target {target} is before the base backup began ({at}): restore "
            "from a base backup taken before the target"
        )
    restored = t4.Cluster.__new__(t4.Cluster)
    restored.bin = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))[-1].parent
    restored.data, restored.port, restored.restarts = root / "restored", port, 0
    restored.log = root / "restored.log"
    shutil.copytree(backup, restored.data)
    # The first cluster's socket lock files (its sockets were in its data directory, and
    # pg_basebackup copies them): on the same port, PostgreSQL would refuse to start while that
    # cluster's postmaster is not yet reaped ("lock file ... already exists").
    for lock in restored.data.glob(".s.PGSQL.*.lock"):
        lock.unlink()
    restored.log.touch()
    if os.geteuid() == 0:
        for path in [restored.log, restored.data, *restored.data.rglob("*")]:
            shutil.chown(path, "postgres", "postgres")
    restored.data.chmod(0o700)
    with (restored.data / "postgresql.conf").open("a") as conf:
        conf.write(
            f"restore_command = 'cp {archive}/%f %p'\n"
            f"recovery_target_time = '{target}'\n"
            "recovery_target_action = 'promote'\n"
            "archive_mode = 'off'\n"
        )
    (restored.data / "recovery.signal").touch()
    if os.geteuid() == 0:
        shutil.chown(restored.data / "recovery.signal", "postgres", "postgres")
    options = f"-p {port} -k {restored.data} -c listen_addresses=127.0.0.1"
    # -w: until it accepts connections (once consistent, still replaying) or its postmaster
    # exits; -t: at most `timeout` seconds.
    command = [str(restored.bin / "pg_ctl"), "-D", str(restored.data), "-o", options]
    command += ["-w", "-t", str(max(1, round(timeout))), "-l", str(restored.log), "start"]
    started = subprocess.run(t4.as_postgres(command), capture_output=True, text=True, check=False)
    if started.returncode != 0:
        said = (started.stderr or started.stdout).strip()
        raise RestoreFailedError(
            f"the restored cluster did not start (pg_ctl: {said or started.returncode})",
            restored.log,
        )
    return restored


def wait_promoted(cluster: t4.Cluster, timeout: float = 120) -> None:
    """Until the restored cluster is promoted (out of recovery). Raises RestoreFailedError as soon
    as its postmaster is gone (recovery stopped with a FATAL), or after `timeout` seconds with
    how far it replayed."""
    import psycopg

    url = cluster.url.rsplit("/", 1)[0] + "/postgres"
    deadline = time.monotonic() + timeout
    replayed = "nothing replayed yet"
    while True:
        if not running(cluster):
            raise RestoreFailedError(
                "the restored cluster stopped before it was promoted", cluster.log
            )
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=5) as db:
                row = db.execute(
                    "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn(),"
                    " pg_last_xact_replay_timestamp()"
                ).fetchone()
                if row is not None and not row[0]:
                    return
                if row is not None:
                    replayed = f"replayed up to {row[1]}, its last commit at {row[2]}"
        except psycopg.OperationalError:
            pass
        if time.monotonic() > deadline:
            raise RestoreFailedError(
                f"the restored cluster was not promoted in {timeout:g} s ({replayed})", cluster.log
            )
        time.sleep(0.2)


# --- The traffic, every acknowledged answer with its moments -------------------------------


@dataclass(frozen=True)
class Write:
    file: str
    step: str
    who: str
    key: str
    status: int
    content: bytes
    sent: float  # time.time(): the host's clock, the one PostgreSQL stamps commits with
    answered: float


@dataclass
class Log:
    writes: list[Write] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class TimedClient(t4.Client):
    """T4's client; each acknowledged POST logged with the moments it was sent and answered."""

    def __init__(self, base: str, tokens: dict[str, str], history: t4.History, log: Log, run: str):
        super().__init__(base, tokens, history, run)
        self.log = log

    def post(self, file: dict[str, Any], step: t4.Step, until: float) -> t4.Acknowledged | None:
        sent = time.time()
        answer = super().post(file, step, until)
        answered = time.time()
        if answer is not None and step.method == "POST":
            with self.log.lock:
                self.log.writes.append(
                    Write(
                        str(file["number"]),
                        step.name,
                        step.who,
                        answer.key,
                        answer.status,
                        answer.content,
                        sent,
                        answered,
                    )
                )
        return answer


def claims_and_payment(
    client: TimedClient, ready: list[int], fiscal_year: str, round_: int, until: float
) -> None:
    """Claim on each of `ready`, certify them, then pay them in one batch (round `round_`)."""
    history = client.history
    try:
        for application in ready:
            file = {"number": f"ready{application}", "application": application}
            with history.lock:
                history.money.append(file)
            client.walk(file, until, t4.CLAIM_STEPS)
            if file.get("done") != "claim_approve":
                return
        payments = {"number": f"payments{round_}", "fiscal_year": fiscal_year}
        with history.lock:
            history.money.append(payments)
        client.walk(payments, until, t4.PAYMENT_STEPS)
    except Exception as error:
        with history.lock:
            history.crashes.append(f"money {round_}: {type(error).__name__}: {error}")


# --- The checks on the restored database ---------------------------------------------------


@dataclass
class Verdict:
    before: int = 0
    after: int = 0
    in_flight: int = 0
    lost: list[str] = field(default_factory=list)
    kept_after: list[str] = field(default_factory=list)
    verify: list[str] = field(default_factory=list)


def check(log: Log, history: t4.History, target: float, env: dict[str, str]) -> Verdict:
    from django.db import connections

    from jobgrant.service.accounts.models import User
    from jobgrant.service.grants.models.applications import Application, IdempotencyKey

    connections.close_all()  # the same URL now reaches the restored cluster
    verdict = Verdict()
    users = {user.username: user.pk for user in User.objects.all()}
    records = {
        (record.user_id, record.key): record
        for record in IdempotencyKey.objects.filter(key__startswith="t4-")
    }
    for write in log.writes:
        record = records.get((users[write.who], write.key))
        if write.answered < target:
            verdict.before += 1
            # A refusal (4xx) is rolled back with its key: no record, and none is owed.
            if write.status < 400 and (
                record is None
                or (record.status, record.body) != (write.status, write.content.decode())
            ):
                verdict.lost.append(f"{write.file} {write.step} ({write.key})")
        elif write.sent > target:
            verdict.after += 1
            if record is not None:
                verdict.kept_after.append(f"{write.file} {write.step} ({write.key})")
        else:
            verdict.in_flight += 1
    # Each file's state: the one its last step acknowledged before the target left (or, with a
    # step in flight at the target, that step's); a file created after the target is absent.
    names = [step.name for step in t4.STEPS]
    by_file: dict[str, list[Write]] = {}
    for write in log.writes:
        by_file.setdefault(write.file, []).append(write)
    for file in history.files:
        if "application" not in file:
            continue
        writes = by_file.get(str(file["number"]), [])
        done = [w for w in writes if w.answered < target and w.status < 400]
        flying = [w for w in writes if w.sent <= target <= w.answered and w.status < 400]
        application = Application.objects.filter(pk=file["application"]).first()
        if not done and not flying:
            if application is not None:
                verdict.kept_after.append(f"file {file['number']}: created after the target")
            continue
        allowed = {t4.STATE_AFTER[w.step] for w in done[-1:] + flying}
        if application is None:
            if done:
                verdict.lost.append(f"file {file['number']}: application missing")
            continue
        if application.state not in allowed:
            last = max(done + flying, key=lambda w: names.index(w.step)).step
            earlier = ORDER.index(application.state) < min(ORDER.index(s) for s in allowed)
            (verdict.lost if earlier else verdict.kept_after).append(
                f"file {file['number']}: {application.state}, acknowledged up to {last}"
            )
    verdict.verify = t4.verifications(env)
    return verdict


# --- The run ------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    began = time.monotonic()
    until = began + args.timeout
    with tempfile.TemporaryDirectory(prefix="jobgrant-t6-") as directory:
        root = Path(directory)
        if os.geteuid() == 0:
            shutil.chown(root, "postgres")
        cluster = ArchivingCluster(root, root / "archive")
        restored: t4.Cluster | None = None
        server: t4.Server | None = None
        try:
            cluster.start()
            cluster.create_database()
            env = t4.server_env(cluster, root / "var")
            server = t4.Server(env, root / "server.log", workers=args.server_workers)
            server.start()
            t4.setup_django(env)
            employers = t4.make_employers(max(1, args.clients * 2))
            ready, fiscal_year = t4.ready_to_claim()
            backup_began = time.monotonic()
            cluster.base_backup(root / "backups" / "base")
            backup_seconds = time.monotonic() - backup_began
            tokens = t4.issue_tokens(server.base)
            history, log = t4.History(), Log()
            more = threading.Event()
            more.set()
            numbers = iter(range(100_000))

            def client() -> TimedClient:
                return TimedClient(server.base, tokens, history, log, str(args.seed))

            clients = [
                threading.Thread(
                    target=t4.client_thread, args=(client(), numbers, employers, more, until)
                )
                for _ in range(args.clients)
            ]
            half = max(1, len(ready) // 2)
            first = threading.Thread(
                target=claims_and_payment, args=(client(), ready[:half], fiscal_year, 1, until)
            )
            for thread in [*clients, first]:
                thread.start()
            time.sleep(args.before)
            first.join()  # a payment round wholly before the target
            target = time.time()
            time.sleep(0.05)
            second = threading.Thread(
                target=claims_and_payment, args=(client(), ready[half:], fiscal_year, 2, until)
            )
            second.start()
            time.sleep(args.after)
            second.join()
            more.clear()
            for thread in clients:
                thread.join()
            server.stop()
            segment = cluster.archive_last_segment()
            cluster.stop()
            # --control: restored to a moment before the target but checked against it, the run
            # must find writes lost (the check is not one that passes whatever was restored).
            restore_to = target - args.control
            target_text = dt.datetime.fromtimestamp(restore_to, dt.UTC).isoformat(sep=" ")
            restore_began = time.monotonic()
            restored = restore(
                root / "backups" / "base",
                root,
                cluster.archive,
                target_text,
                cluster.port,
                args.restore_timeout,
            )
            wait_promoted(restored, args.restore_timeout)
            restore_seconds = time.monotonic() - restore_began
            verdict = check(log, history, target, env)
            archived = len([p for p in cluster.archive.iterdir() if len(p.name) == 24])
            return report(
                args,
                history,
                verdict,
                {
                    "target": target_text,
                    "backup": backup_seconds,
                    "restore": restore_seconds,
                    "segments": archived,
                    "last": segment,
                    "elapsed": time.monotonic() - began,
                },
                root,
            )
        finally:
            if server is not None:
                server.stop()
            cluster.stop()
            if restored is not None:
                restored.stop()


def report(
    args: argparse.Namespace,
    history: t4.History,
    verdict: Verdict,
    figures: dict[str, Any],
    root: Path,
) -> int:
    money = {f["number"]: f.get("done") for f in history.money}
    refused = [f["refused"] for f in history.files + history.money if "refused" in f]
    print(
        f"T6 point-in-time restore on PostgreSQL (a cluster of its own): {args.clients} clients, "
        f"seed {args.seed}, {args.before:g} s before the target, {args.after:g} s after\n"
        f"  target {figures['target']} UTC; base backup {figures['backup']:.1f} s; "
        f"{figures['segments']} WAL segments archived (the last {figures['last']})\n"
        f"  acknowledged writes before the target {verdict.before}, after it {verdict.after}, "
        f"in flight at it {verdict.in_flight}; {len(history.files)} files\n"
        f"  claims and payments, last acknowledged step: {money}\n"
        f"  restored to the target in {figures['restore']:.1f} s (copy, replay, promotion)\n"
        f"  lost {len(verdict.lost)}, kept after the target {len(verdict.kept_after)}, "
        f"verify problems {len(verdict.verify)}\n"
        f"  elapsed {figures['elapsed']:.1f} s; load average {os.getloadavg()[0]:.1f}"
    )
    failures = []
    for name, found in (
        ("lost", verdict.lost),
        ("kept after the target", verdict.kept_after),
        ("verify", verdict.verify),
    ):
        if found:
            failures.append(f"{name}: {found[:5]}")
    if history.crashes:
        failures.append(f"client crashes: {history.crashes[:5]}")
    if refused:
        failures.append(f"refused: {refused[:3]}")
    if not verdict.before or not verdict.after:
        failures.append("no write on one side of the target")
    payments = [f for f in history.money if str(f["number"]).startswith("payments")]
    if [f.get("done") for f in payments] != ["confirm", "confirm"]:
        failures.append(f"the two payment rounds did not finish: {payments}")
    if args.control:
        if verdict.lost:
            print(f"T6 control: restored {args.control:g} s early, {len(verdict.lost)} lost: found")
            return 0
        print("T6 control FAILED: restored early, yet nothing found lost")
        return 1
    if failures:
        print("T6 FAILED: " + "; ".join(failures))
        for log in ("server.log", "restored.log"):
            path = root / log
            if path.exists():
                print(f"--- {log}\n" + path.read_text(errors="replace")[-3000:])
        return 1
    print("T6 passed")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=float, default=30.0, help="seconds before the target")
    parser.add_argument("--after", type=float, default=30.0, help="seconds after the target")
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--server-workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument(
        "--control",
        type=float,
        default=0.0,
        help="restore this many seconds before the target (checked against it): must find lost",
    )
    parser.add_argument(
        "--restore-timeout",
        type=float,
        default=120.0,
        help="seconds the restored cluster has to start and be promoted (it fails at once if "
        "PostgreSQL stops, with its log's last lines)",
    )
    parser.add_argument("--timeout", type=float, default=1500.0)
    args = parser.parse_args()
    sys.exit(run(args))


if __name__ == "__main__":
    main()
