"""No label is silently replaced: a dict written with the same key twice keeps only the later
entry, and the earlier label is lost without a word. Ruff's F601 catches two equal string
literals; this also catches keys that are equal only once evaluated (a constant and a choice's
value, two names for one code), in every dict written at the top of a module of the service.
"""

from __future__ import annotations

import ast
import importlib
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jobgrant.service

SERVICE = Path(jobgrant.service.__file__).resolve().parent
ROOT = SERVICE.parents[1]


def module_dicts(path: Path) -> Iterator[tuple[str, ast.Dict]]:
    """The dicts written as literals at the top of a module: (their name, their node)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name, value = node.target.id, node.value
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            name, value = node.targets[0].id, node.value
        else:
            continue
        if isinstance(value, ast.Dict):
            yield name, value


def duplicates(module: Any, node: ast.Dict) -> list[str]:
    """The keys written more than once in `node`, each evaluated in its module (its source
    lines named)."""
    seen: dict[Any, int] = {}
    found = []
    for key in node.keys:
        if key is None:  # a ** spread: its own keys may rightly be replaced
            continue
        value = eval(compile(ast.Expression(key), module.__file__, "eval"), vars(module))
        if value in seen:
            found.append(f"{value!r} (lines {seen[value]} and {key.lineno})")
        else:
            seen[value] = key.lineno
    return found


def test_no_dict_of_the_service_writes_a_key_twice() -> None:
    checked, problems = 0, []
    for path in sorted(SERVICE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        found = list(module_dicts(path))
        if not found:
            continue
        relative = path.relative_to(ROOT).with_suffix("")
        module = importlib.import_module(".".join(relative.parts))
        for name, node in found:
            checked += 1
            for duplicate in duplicates(module, node):
                problems.append(f"src/{relative}.py {name}: {duplicate}")
    assert checked > 50, f"only {checked} dicts found: the walk missed the service's modules"
    assert not problems, "keys written twice (the earlier entry is lost):\n" + "\n".join(problems)


def test_the_check_finds_a_key_written_twice_through_a_constant(tmp_path: Path) -> None:
    """The check itself: a key equal to an earlier one only once evaluated is found."""
    source = 'CODE = "staff.create"\nLABELS = {"staff.create": "a", CODE: "b", "other": "c"}\n'
    module = types.ModuleType("labels")
    module.__file__ = "labels.py"
    exec(compile(source, "labels.py", "exec"), vars(module))
    [(name, node)] = [
        (target.id, n.value)
        for n in ast.parse(source).body
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict)
        for target in n.targets
        if isinstance(target, ast.Name)
    ]
    assert name == "LABELS"
    assert duplicates(module, node) == ["'staff.create' (lines 2 and 2)"]
