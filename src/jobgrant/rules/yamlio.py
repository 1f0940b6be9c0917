"""YAML reading without the two classic traps: float money and `ON:` read as a boolean.

Floats are read as Decimal (so 5000.00 stays exact). Keys are left as YAML gives them; the
parameter schema rejects a boolean where a jurisdiction code belongs, loudly, with the fix.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

# libyaml's parser where PyYAML was built with it (its wheels are): several times faster, which
# `jobgrant quote` feels, since it reads every parameter file on each start.
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _ExactLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    pass


def _construct_decimal(loader: yaml.SafeLoader, node: yaml.Node) -> Decimal:
    value = loader.construct_scalar(node)  # type: ignore[arg-type]
    return Decimal(str(value).replace("_", ""))


_ExactLoader.add_constructor("tag:yaml.org,2002:float", _construct_decimal)


def load_yaml(path: Path) -> Any:
    """Load a YAML file with floats as Decimal."""
    with path.open(encoding="utf-8") as handle:
        return yaml.load(handle, Loader=_ExactLoader)


def load_yaml_text(text: str) -> Any:
    return yaml.load(text, Loader=_ExactLoader)
