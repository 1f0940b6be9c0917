"""`jobgrant serve` collects the static files only when they changed: a server restarted after a
crash answers in seconds instead of spending a minute of CPU compressing the same files again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jobgrant.service.commands import collect_static


def test_static_files_are_collected_again_only_when_the_sources_differ(
    tmp_path: Path, settings: Any
) -> None:
    settings.STATIC_ROOT = tmp_path
    collect_static()
    stamp = tmp_path / ".jobgrant-collected"
    collected = sorted(p for p in tmp_path.rglob("*") if p.is_file() and p != stamp)
    assert stamp.exists() and collected
    victim = collected[0]
    victim.unlink()
    collect_static()  # the same sources: nothing is collected again
    assert not victim.exists()
    stamp.write_text("the sources of another release")
    collect_static()
    assert victim.exists()
