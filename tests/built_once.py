"""What a test makes at great cost and only reads, made once per run and content, not per process.

A test module's fixture is made again in each pytest-xdist worker, and in both engines' sets
(docs/testing.md): the annual report's eight PDFs (WeasyPrint, about 30 s of a loaded machine)
were made four times a run. Kept in the build directory (`JOBGRANT_BUILD_DIR`, `var/build/`),
under a digest of the package's sources and the test files given, they are made by the first
process to ask and read by the others; a changed source is a new digest, never a stale file.
"""

from __future__ import annotations

import functools
import hashlib
import shutil
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

from jobgrant.service.static_files import locked

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "jobgrant"
#: Digests of other contents kept beside the newest (a developer switching branches).
KEPT = 3


def built_bytes(
    kind: str,
    name: str,
    make: Callable[[], bytes],
    *,
    tests: tuple[str, ...],
    packages: tuple[str, ...],
) -> bytes:
    """`make()`'s bytes, made at most once per content: `tests` are the test files (from the
    checkout's root) and `packages` the installed distributions the result depends on."""
    from django.conf import settings

    if settings.JOBGRANT_BUILD_DIR is None:
        return make()
    cache = Path(settings.JOBGRANT_BUILD_DIR) / kind
    done = cache / content_digest(tests, packages) / name
    if done.exists():
        return done.read_bytes()
    cache.mkdir(parents=True, exist_ok=True)
    with locked(cache / ".lock"):
        if done.exists():
            return done.read_bytes()
        _remove_old(cache, keep=done.parent)
        made = make()
        done.parent.mkdir(exist_ok=True)
        building = done.with_name(f"{name}.building")
        building.write_bytes(made)
        building.rename(done)
    return made


@functools.cache
def content_digest(tests: tuple[str, ...], packages: tuple[str, ...]) -> str:
    """The package's sources (code, templates, styles, the French catalogue, data), the test
    files named and the installed versions named."""
    hashed = hashlib.sha256(repr([version(package) for package in packages]).encode())
    sources = sorted(
        path
        for path in PACKAGE.rglob("*")
        if path.is_file()
        and path.suffix not in {".pyc", ".mo"}
        and not {"__pycache__", "vendor"} & set(path.parts)
    )
    for path in [*sources, *(ROOT / test for test in tests)]:
        hashed.update(str(path.relative_to(ROOT)).encode() + b"\0")
        hashed.update(hashlib.sha256(path.read_bytes()).digest())
    return hashed.hexdigest()


def _remove_old(cache: Path, keep: Path) -> None:
    """Under the lock: all but the newest KEPT digests, and never the one in use."""
    others = sorted(
        (path for path in cache.iterdir() if path.is_dir() and path != keep),
        key=lambda path: path.stat().st_mtime,
        reverse=True,
    )
    for old in others[KEPT:]:
        shutil.rmtree(old, ignore_errors=True)
