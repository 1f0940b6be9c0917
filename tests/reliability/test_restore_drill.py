"""T6's restore (tests/reliability/restore_pitr.py) fails fast when the restore fails: an archive
missing the WAL the target needs stops PostgreSQL, and the drill says so within seconds, with the
PostgreSQL log's lines that say why, instead of waiting out its timeout; a recovery target before
the base backup (which PostgreSQL would not refuse) is refused before anything is copied. And a
good restore is promoted, with the commits before its target and not the one after.

A tiny cluster of its own (initdb in a temporary directory, WAL archiving on, a base backup, a
table with a row before and after it), no server: a few seconds in all.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # restore_pitr imports crash_t4 by its name

import restore_pitr as t6

pytestmark = pytest.mark.skipif(
    not list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")), reason="PostgreSQL is missing"
)
#: What a failed restore may take here, all in (the drill's own timeout is far above it).
BOUND = 30.0


@dataclass
class Backed:
    root: Path
    backup: Path
    archive: Path
    before_backup: str  # a moment before the base backup
    target: str  # a moment between the second row and the third (archived)
    port: int  # the first cluster's (stopped)


def moment(at: float) -> str:
    return dt.datetime.fromtimestamp(at, dt.UTC).isoformat(sep=" ")


def execute(cluster: t6.ArchivingCluster, statement: str) -> None:
    import psycopg

    with psycopg.connect(cluster.url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as db:
        db.execute(statement)


@pytest.fixture(scope="module")
def backed() -> Iterator[Backed]:
    with tempfile.TemporaryDirectory(prefix="jobgrant-t6-drill-") as directory:
        root = Path(directory)
        if os.geteuid() == 0:
            shutil.chown(root, "postgres")
        cluster = t6.ArchivingCluster(root, root / "archive")
        try:
            cluster.start()
            execute(cluster, "CREATE TABLE acknowledged (n int)")
            execute(cluster, "INSERT INTO acknowledged VALUES (1)")
            before_backup = moment(time.time() - 1)
            cluster.base_backup(root / "backups" / "base")
            execute(cluster, "INSERT INTO acknowledged VALUES (2)")
            time.sleep(0.05)
            target = moment(time.time())
            time.sleep(0.05)
            # A commit after the target: recovery stops at the first commit past it (without
            # one, it ends before reaching the target, as with a missing archive).
            execute(cluster, "INSERT INTO acknowledged VALUES (3)")
            cluster.archive_last_segment(timeout=BOUND)
        finally:
            cluster.stop()
        yield Backed(
            root, root / "backups" / "base", cluster.archive, before_backup, target, cluster.port
        )


def restore_and_promote(backed: Backed, root: Path, archive: Path, target: str) -> None:
    """The drill's restore, with its own timeout (120 s at the drill's default), then stopped."""
    restored = t6.restore(backed.backup, root, archive, target, t6.t4.free_port(), timeout=120)
    try:
        t6.wait_promoted(restored, timeout=120)
    finally:
        restored.stop()


def attempt(backed: Backed, name: str, archive: Path, target: str) -> tuple[float, str]:
    """Restore into a directory of its own; it must fail: the seconds it took, and why."""
    root = backed.root / name
    root.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    began = time.monotonic()
    with pytest.raises(t6.RestoreFailedError) as failed:
        restore_and_promote(backed, root, archive, target)
    return time.monotonic() - began, str(failed.value)


def test_a_target_before_the_base_backup_is_refused_before_postgresql_starts(
    backed: Backed,
) -> None:
    # PostgreSQL itself would not refuse it: with no commit between the backup's start and its
    # end, it restores the backup as it is, later than the target, and promotes it.
    seconds, message = attempt(backed, "too-early", backed.archive, backed.before_backup)
    assert seconds < BOUND, message
    assert f"the recovery target {backed.before_backup} is before the base backup began" in (
        message
    )
    assert not (backed.root / "too-early" / "restored").exists()


def test_a_missing_wal_archive_fails_fast_with_postgresqls_reason(backed: Backed) -> None:
    empty = backed.root / "empty-archive"
    empty.mkdir()
    seconds, message = attempt(backed, "no-archive", empty, backed.target)
    assert seconds < BOUND, message
    assert "stopped before it was promoted" in message or "did not start" in message, message
    assert "recovery ended before configured recovery target was reached" in message, message


def test_a_good_restore_is_promoted_with_what_was_committed_before_its_target(
    backed: Backed,
) -> None:
    root = backed.root / "good"
    root.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    # On the first cluster's port, as the drill does: the backup holds that cluster's socket
    # lock file, which the restore removes (PostgreSQL refuses to start while its postmaster
    # is not yet reaped).
    assert list(backed.backup.glob(".s.PGSQL.*.lock"))
    restored = t6.restore(
        backed.backup, root, backed.archive, backed.target, backed.port, timeout=BOUND
    )
    try:
        t6.wait_promoted(restored, timeout=BOUND)
        import psycopg

        with psycopg.connect(restored.url.rsplit("/", 1)[0] + "/postgres") as db:
            rows = db.execute("SELECT n FROM acknowledged ORDER BY n").fetchall()
        assert rows == [(1,), (2,)]  # not the third, committed after the target
    finally:
        restored.stop()
