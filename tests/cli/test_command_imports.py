"""`jobgrant quote` starts in a new process every time: what it imports is what it costs.

The funding model, Django and matplotlib take from tenths of a second to seconds to import;
only the commands that use them may load them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DEMO = Path(__file__).parents[2] / "src" / "jobgrant" / "data" / "demo-quote.json"
HEAVY = ("jobgrant.funding", "jobgrant.service", "django", "ninja", "matplotlib", "numba")
# Run after the program, in the same process: the HEAVY packages and modules it left loaded.
REPORT = f"""
import json, sys
heavy = {HEAVY!r}
loaded = [n for n in sys.modules if any(n == h or n.startswith(h + ".") for h in heavy)]
print(json.dumps(sorted(loaded)), file=sys.stderr)
"""


def heavy_modules_after(program: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", program + REPORT], capture_output=True, text=True, check=True
    )
    loaded: list[str] = json.loads(done.stderr.splitlines()[-1])
    return loaded


def test_importing_the_quote_commands_loads_no_funding_model_service_or_plotting() -> None:
    assert heavy_modules_after("import jobgrant.cli.quote") == []


def test_a_quote_from_the_command_line_loads_no_django_matplotlib_numba_or_funding_model() -> None:
    program = f"""
import runpy, sys
sys.argv = ["jobgrant", "quote", {str(DEMO)!r}]
try:
    runpy.run_module("jobgrant.cli", run_name="__main__")
except SystemExit as done:
    assert done.code in (0, None), done.code
"""
    # Listing `funding` and `serve` with their options reads two small modules each, no more.
    light = ["jobgrant.funding", "jobgrant.funding.errors", "jobgrant.funding.years"]
    light += ["jobgrant.service", "jobgrant.service.commands"]
    assert heavy_modules_after(program) == sorted(light)
