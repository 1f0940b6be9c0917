"""The scenarios an analyst may simulate: the files of scenarios/ that the simulator loads."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from django.conf import settings

from jobgrant.simulation.scenario import Scenario, ScenarioError, load_scenario

#: Budget 2013 as announced: the arrangement the calibration fits the model to.
BASELINE = "budget-2013"


def scenarios_dir() -> Path:
    return Path(settings.BASE_DIR) / "scenarios"


def simulation_scenarios() -> dict[str, Scenario]:
    """Every file of scenarios/ the simulator can run (funding and simulation scenarios; rules
    overlays are left out), the baseline first."""
    files = tuple(sorted(scenarios_dir().glob("*.yaml")))
    found = _load(tuple((f, f.stat().st_mtime_ns) for f in files))
    return dict(sorted(found.items(), key=lambda item: (item[0] != BASELINE, item[0])))


def scenario_file(name: str) -> Path:
    return scenarios_dir() / f"{name}.yaml"


@lru_cache(maxsize=4)
def _load(files: tuple[tuple[Path, int], ...]) -> dict[str, Scenario]:
    found = {}
    for path, _mtime in files:
        try:
            found[path.stem] = load_scenario(path)
        except ScenarioError:
            continue
    return found
