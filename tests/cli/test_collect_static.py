"""`jobgrant serve` collects the static files once per content of the sources (static_files.py):
a server started on a fresh var directory copies the collection from the shared cache instead of
spending most of a minute of CPU compressing the same files again, and a changed source is
collected anew, never served stale."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from jobgrant.service.static_files import STAMP, collect_static, sources_digest


@pytest.fixture
def cache(tmp_path: Path, settings: Any) -> Path:
    settings.JOBGRANT_BUILD_DIR = tmp_path / "build"
    return tmp_path / "build" / "static"


def collected_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name != STAMP)


def test_static_files_are_collected_again_only_when_the_sources_differ(
    tmp_path: Path, settings: Any, cache: Path
) -> None:
    settings.STATIC_ROOT = tmp_path / "static"
    collect_static()
    stamp = tmp_path / "static" / STAMP
    collected = collected_files(tmp_path / "static")
    assert stamp.exists() and collected
    victim = collected[0]
    victim.unlink()
    collect_static()  # the same sources: nothing is copied again
    assert not victim.exists()
    stamp.write_text("the sources of another release")
    collect_static()
    assert victim.exists()


def test_a_second_server_copies_the_cached_collection(
    tmp_path: Path, settings: Any, cache: Path
) -> None:
    settings.STATIC_ROOT = tmp_path / "first"
    collect_static()
    in_cache = cache / sources_digest()
    assert (in_cache / STAMP).read_text() == sources_digest()
    (in_cache / "only-in-the-cache.txt").write_text("copied, not collected")
    settings.STATIC_ROOT = tmp_path / "second"
    collect_static()
    assert (tmp_path / "second" / "only-in-the-cache.txt").read_text() == "copied, not collected"
    first = [p.relative_to(tmp_path / "first") for p in collected_files(tmp_path / "first")]
    second = [p.relative_to(tmp_path / "second") for p in collected_files(tmp_path / "second")]
    assert set(first) < set(second)


def test_a_changed_source_is_collected_anew_even_with_its_size_and_time_unchanged(
    tmp_path: Path, settings: Any, cache: Path
) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    script = sources / "changing.js"
    script.write_text("one")
    settings.STATICFILES_DIRS = [str(sources)]
    settings.STATIC_ROOT = tmp_path / "static"
    collect_static()
    assert (tmp_path / "static" / "changing.js").read_text() == "one"
    before = script.stat()
    script.write_text("two")
    os.utime(script, ns=(before.st_atime_ns, before.st_mtime_ns))
    collect_static()
    assert (tmp_path / "static" / "changing.js").read_text() == "two"
    assert len([entry for entry in cache.iterdir() if entry.is_dir()]) == 2


def test_a_collection_left_half_built_is_never_used(
    tmp_path: Path, settings: Any, cache: Path
) -> None:
    digest = sources_digest()
    (cache / digest).mkdir(parents=True)  # a directory without its stamp: not finished
    (cache / digest / "unfinished.js").write_text("unfinished")
    (cache / f"{digest}.building").mkdir()  # what a killed collection leaves
    (cache / f"{digest}.building" / "half.js").write_text("half")
    settings.STATIC_ROOT = tmp_path / "static"
    collect_static()
    assert not (cache / f"{digest}.building").exists()
    assert not (tmp_path / "static" / "half.js").exists()
    assert not (tmp_path / "static" / "unfinished.js").exists()
    assert (tmp_path / "static" / STAMP).read_text() == digest
    assert collected_files(tmp_path / "static")


def test_without_a_cache_the_files_are_collected_into_static_root(
    tmp_path: Path, settings: Any
) -> None:
    settings.JOBGRANT_BUILD_DIR = None  # production's default
    settings.STATIC_ROOT = tmp_path / "static"
    collect_static()
    assert (tmp_path / "static" / STAMP).read_text() == sources_digest()
    assert collected_files(tmp_path / "static")
    assert list(tmp_path.iterdir()) == [tmp_path / "static"]
