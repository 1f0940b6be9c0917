"""The Makefile's entry points build, in a fresh checkout, what their tests and servers read.

`make -n` prints the plan without running it; the targets that stand for the front-end files
and for Pango are pointed at paths that do not exist, as in a fresh checkout, so each entry
point must plan to make them (`npm ci`, then the vendor files and the compiled French
messages; Pango and HarfBuzz from Debian's packages, which WeasyPrint loads)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("target", ["check", "pytest-no-database", "run"])
def test_a_fresh_checkout_builds_what_the_tests_read_first(target: str, tmp_path: Path) -> None:
    # Run inside `make test`, the parent's flags (its jobserver, -j, --output-sync) stay with it.
    env = {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL"}}
    plan = subprocess.run(
        [
            "make",
            "-n",
            "--no-print-directory",
            target,
            f"ASSETS={tmp_path / 'vendor' / '.done'}",
            f"PANGO={tmp_path / 'libharfbuzz-subset.so.0'}",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "npm ci" in plan, f"`make {target}` does not build the front-end files:\n{plan}"
    assert "jobgrant.service.web.messages compile" in plan
    assert "libpango-1.0-0" in plan, f"`make {target}` does not install Pango:\n{plan}"
