"""A stream's rules as the rules kernel resolves them: the share rates, the most per trainee and
the eligible training settings under its program's policy, each with its source.

No policy of the kernel's library lets a stream choose its share rates: each policy sets them
(an agreement, a province's overlay), so a stream shows them and its manager chooses the policy.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from jobgrant.rules.evaluate import default_library
from jobgrant.rules.parameters import Reference, Value
from jobgrant.service.grants.models.applications import Program

#: The parameters a stream's page shows, in its order: (name, unit).
RATES = (
    ("cjg.federal.rate", "ratio"),
    ("cjg.federal.max_per_trainee", "CAD"),
    ("cjg.provincial.rate", "ratio"),
    ("cjg.provincial.max_per_trainee", "CAD"),
)
SETTINGS = (
    ("cjg.training.setting.on_site", "boolean"),
    ("cjg.training.setting.off_site", "boolean"),
    ("cjg.training.setting.online", "boolean"),
)


@dataclass(frozen=True)
class Rule:
    name: str
    unit: str
    value: Value
    effective: dt.date
    references: tuple[Reference, ...]


def program_rules(program: Program, on: dt.date) -> dict[str, list[Rule]]:
    """The rates and settings of the program's policy in its jurisdiction on `on`."""
    library = default_library()
    resolved = library.resolve(library.get(program.policy), program.jurisdiction, None, on)

    def rules(names: tuple[tuple[str, str], ...]) -> list[Rule]:
        found = [(name, unit, resolved.get(name)) for name, unit in names]
        return [
            Rule(name, unit, value.value, value.effective, value.reference)
            for name, unit, value in found
            if value is not None
        ]

    return {"rates": rules(RATES), "settings": rules(SETTINGS)}
