"""The static files a server serves: collected (hashed, rewritten, compressed) once per content.

`collectstatic` with WhiteNoise's storage hashes, rewrites and compresses (gzip and Brotli at its
highest level) every file each time, changed or not: most of a minute of CPU for the vendored design
system and Django Ninja's API pages, which every server started on a fresh `JOBGRANT_VAR_DIR` (the
fuzzing, the scale-out test, the crash and outbox runs, `make run`) used to spend before answering.
So the result is kept in a shared cache, one directory per *content* of the sources
(`JOBGRANT_BUILD_DIR`; by default the checkout's `var/build/static/`, none in production), and each
server copies it into its own STATIC_ROOT. A changed source changes the digest, so a changed asset
is collected anew, never served stale.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STAMP = ".jobgrant-collected"
# Collections of other contents kept in the cache beside the newest (a developer switching
# branches finds theirs again); older ones are removed.
KEPT_COLLECTIONS = 4


def collect_static() -> None:
    """Fill STATIC_ROOT with the collected static files of the current sources, unless it
    already holds them: from the shared cache when there is one (collecting into the cache
    first if it lacks them), else by collecting into STATIC_ROOT itself."""
    from django.conf import settings

    root = Path(settings.STATIC_ROOT)
    digest = sources_digest()
    if _holds(root, digest):
        return
    if settings.JOBGRANT_BUILD_DIR is None:
        _collect_into(root, digest)
        return
    collected = collected_once(Path(settings.JOBGRANT_BUILD_DIR) / "static", digest)
    # The old stamp first and the new one last: a copy interrupted half-way is never taken for
    # complete, even by a later start whose sources are those of the old stamp again.
    (root / STAMP).unlink(missing_ok=True)
    shutil.copytree(collected, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(STAMP))
    (root / STAMP).write_text(digest)


def collected_once(cache: Path, digest: str) -> Path:
    """The cache's directory for `digest`, collected now if it is not there yet.

    Processes starting at once take turns on a lock: the first collects, the others then find
    its result. A collection is built under a temporary name and renamed when complete, so that
    one killed half-way (the crash run kills servers as they start) is never taken for finished."""
    done = cache / digest
    if _holds(done, digest):
        return done
    cache.mkdir(parents=True, exist_ok=True)
    with locked(cache / ".lock"):
        if _holds(done, digest):
            return done
        _remove_unfinished_and_old(cache)
        shutil.rmtree(done, ignore_errors=True)  # unfinished, if there at all (no stamp)
        building = cache / f"{digest}.building"
        _collect_into(building, digest)
        building.rename(done)
    return done


def sources_digest() -> str:
    """A digest of every static source file's path and content, and of what decides how they
    are collected (the storage, WhiteNoise's settings, Django's and WhiteNoise's versions)."""
    from django.conf import settings
    from django.contrib.staticfiles.finders import get_finders

    digest = hashlib.sha256()
    how = [
        settings.STORAGES["staticfiles"]["BACKEND"],
        settings.STATIC_URL,
        getattr(settings, "WHITENOISE_SKIP_COMPRESS_EXTENSIONS", None),
        getattr(settings, "WHITENOISE_KEEP_ONLY_HASHED_FILES", False),
        # WhiteNoise compresses with Brotli only when it is installed
        *map(installed_version, ["django", "whitenoise", "brotli"]),
    ]
    digest.update(repr(how).encode())
    sources: dict[str, str] = {}
    for finder in get_finders():
        for path, storage in finder.list([]):
            sources.setdefault(path, storage.path(path))  # the first found is the one collected
    for path in sorted(sources):
        digest.update(path.encode() + b"\0")
        digest.update(hashlib.sha256(Path(sources[path]).read_bytes()).digest())
    return digest.hexdigest()


@functools.cache
def _digest_at_start() -> str:
    """The sources' digest, computed once per process (the sources do not change under it)."""
    return sources_digest()


def ready() -> bool:
    """Whether STATIC_ROOT holds the whole collection of the current sources (/readyz). A
    process that serves the sources themselves (the test settings' finders) is always ready."""
    from django.conf import settings

    if getattr(settings, "WHITENOISE_USE_FINDERS", False):
        return True
    return _holds(Path(settings.STATIC_ROOT), _digest_at_start())


def installed_version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def _holds(directory: Path, digest: str) -> bool:
    from django.conf import settings

    stamp = directory / STAMP
    if not stamp.exists() or stamp.read_text() != digest:
        return False
    needs_manifest = "Manifest" in str(settings.STORAGES["staticfiles"]["BACKEND"])
    return not needs_manifest or (directory / "staticfiles.json").exists()


def _collect_into(directory: Path, digest: str) -> None:
    """collectstatic into `directory` (a storage of the configured kind there, in place of
    STATIC_ROOT's), then the stamp naming `digest`."""
    from django.conf import settings
    from django.contrib.staticfiles.management.commands.collectstatic import Command
    from django.core.management import call_command
    from django.utils.module_loading import import_string

    configured = settings.STORAGES["staticfiles"]
    storage_class = import_string(str(configured["BACKEND"]))
    options = dict(configured.get("OPTIONS", {}))  # type: ignore[call-overload]
    directory.mkdir(parents=True, exist_ok=True)
    command = Command()
    command.storage = storage_class(location=str(directory), **options)
    call_command(command, interactive=False, verbosity=0)
    (directory / STAMP).write_text(digest)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on the file `path` for the block: processes take turns."""
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _remove_unfinished_and_old(cache: Path) -> None:
    """Under the lock: remove collections left half-built by a killed process, and all but the
    newest KEPT_COLLECTIONS finished ones (servers serve their own copies, never these)."""
    for unfinished in cache.glob("*.building"):
        shutil.rmtree(unfinished, ignore_errors=True)
    finished = sorted(
        (entry for entry in cache.iterdir() if entry.is_dir()),
        key=lambda entry: entry.stat().st_mtime,
        reverse=True,
    )
    for old in finished[KEPT_COLLECTIONS:]:
        shutil.rmtree(old, ignore_errors=True)
