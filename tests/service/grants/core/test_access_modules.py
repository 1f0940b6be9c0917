"""Each stage's permission-checked reads live in its `access.py`, and nowhere else in grants/.

A read for a user is either a query of what they may see (`visible_*`) or one object of it, or
the refusal (`get_visible_*`, or any `get_*(user, <thing>_id)`). The test reads every module of
the grant's stages, so a new helper of that kind beside the actions is caught where it is added.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import jobgrant.service.grants as grants
import jobgrant.service.people as people

STAGES = Path(grants.__file__).parent
PEOPLE = Path(people.__file__).parent


def _functions(path: Path) -> Iterator[ast.FunctionDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    yield from (node for node in tree.body if isinstance(node, ast.FunctionDef))


def _is_access_read(function: ast.FunctionDef) -> bool:
    """Named as a visibility read, or a fetch by id on behalf of a user."""
    if function.name.startswith(("visible_", "get_visible_")):
        return True
    names = [argument.arg for argument in function.args.args]
    return (
        function.name.startswith("get_")
        and len(names) >= 2
        and names[0] in ("user", "admin", "viewer")
        and names[1].endswith("_id")
    )


def _modules() -> list[Path]:
    """The grant's stages' modules, and the people's (their reads follow the same rule)."""
    stages = (p for p in STAGES.rglob("*.py") if "migrations" not in p.parts)
    return sorted([*stages, *PEOPLE.glob("*.py")])


def test_the_stages_modules_are_read_at_all() -> None:
    assert any(p.name == "access.py" for p in _modules())
    assert any(p.parent.name == "payments" for p in _modules())


def test_permission_checked_reads_are_only_in_access_modules() -> None:
    misplaced = [
        f"{path.parent.name}/{path.name}: {function.name}"
        for path in _modules()
        if path.name != "access.py"
        for function in _functions(path)
        if _is_access_read(function)
    ]
    assert misplaced == []


def test_the_rule_recognizes_the_reads_of_every_access_module() -> None:
    """The rule is not empty: in the access modules, it finds the reads the stages use."""
    found = {
        f"{path.parent.name}.{function.name}"
        for path in _modules()
        if path.name == "access.py"
        for function in _functions(path)
        if _is_access_read(function)
    }
    assert {
        "core.visible_applications",
        "core.visible_partner_requests",
        "core.get_visible_partner_request",
        "payments.visible_batches",
        "payments.get_visible_batch",
        "payments.visible_receivables",
        "payments.get_visible_receivable",
        "claims.get_visible_claim",
        "changes.get_visible_change",
        "agreements.get_visible_agreement",
        "participants.get_visible_participant",
        "people.get_visible_organization",
        "people.get_visible_staff_account",
    } <= found


def test_every_fetch_by_id_in_an_access_module_is_named_get_visible() -> None:
    """One name for one kind of read: a fetch of one object for a user is `get_visible_<thing>`."""
    misnamed = [
        f"{path.parent.name}.{function.name}"
        for path in _modules()
        if path.name == "access.py"
        for function in _functions(path)
        if _is_access_read(function) and function.name.startswith("get_")
        if not function.name.startswith("get_visible_")
    ]
    assert misnamed == []
