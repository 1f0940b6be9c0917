"""One OpenFisca run of the benchmark: `python -m openfisca_cjg.run DATA OUT` (OpenFisca's venv).

Reads the synthetic trainees bench/simulate.py wrote in DATA (.npy columns), computes the three
shares for every trainee under the 2013 and the 2014 split (the months of the two application
dates) in one simulation, as a country package's user would, and writes the totals and a sample
of trainees' shares to OUT (JSON), with its peak memory, for the benchmark to check against
jobgrant's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from openfisca_core.indexed_enums import EnumArray
from openfisca_core.simulations import SimulationBuilder

from openfisca_cjg import CountryTaxBenefitSystem
from openfisca_cjg.variables import Jurisdiction

COSTS = ("tuition", "student_fees", "materials", "exam_fees")
SHARES = {
    "federal": "federal_share",
    "provincial": "provincial_share",
    "employer": "employer_share",
}


def main(data: Path, out: Path) -> None:
    splits = json.loads((data / "splits.json").read_text())  # {"2013": [date, month], ...}
    system = CountryTaxBenefitSystem()
    jurisdiction = np.load(data / "jurisdiction.npy")
    simulation = SimulationBuilder().build_default_simulation(system, len(jurisdiction))
    codes = EnumArray(jurisdiction.astype(np.int16), Jurisdiction)
    simulation.set_input("jurisdiction", "eternity", codes)
    for name in COSTS:
        simulation.set_input(name, "eternity", np.load(data / f"{name}.npy"))
    sample = np.load(data / "sample.npy")
    result: dict[str, dict[str, object]] = {}
    for split, (_, month) in splits.items():
        figures = {key: simulation.calculate(variable, month) for key, variable in SHARES.items()}
        result[split] = {
            "totals": {key: int(values.sum(dtype=np.int64)) for key, values in figures.items()},
            "sample": {key: values[sample].tolist() for key, values in figures.items()},
        }
    result["peak"] = peak_memory()  # type: ignore[assignment]
    out.write_text(json.dumps(result))


def peak_memory() -> int:
    """This process's peak resident memory in bytes (VmHWM), as bench/simulate.py's own."""
    status = Path("/proc/self/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
