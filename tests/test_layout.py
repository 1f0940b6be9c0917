"""The shape of the code that import-linter's contracts cannot see: `grants/` holds only its
package files at its top (everything else is in a stage), and no module of jobgrant imports
itself back through others at run time."""

from __future__ import annotations

from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
GRANTS = ROOT / "src" / "jobgrant" / "service" / "grants"
#: Imported only for a type hint (under TYPE_CHECKING), never at run time.
TYPE_ONLY = {
    frozenset({"jobgrant.service.demo_history.walk", "jobgrant.service.demo_history.outcome_steps"})
}


def test_grants_holds_only_its_package_files_at_its_top() -> None:
    assert sorted(p.name for p in GRANTS.glob("*.py")) == ["__init__.py", "apps.py"]


def _cycles(graph: grimp.ImportGraph) -> list[frozenset[str]]:
    """The groups of modules that import each other, directly or through others (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if not imported.startswith("jobgrant."):
                continue
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(frozenset(group))

    for module in sorted(graph.modules):
        if module.startswith("jobgrant.") and module not in index:
            visit(module)
    return found


def test_no_import_cycle_but_the_one_for_a_type_hint() -> None:
    graph = grimp.build_graph("jobgrant", cache_dir=None)
    assert set(_cycles(graph)) <= TYPE_ONLY


def test_every_module_that_branches_on_the_engine_has_its_tests_in_both_sets() -> None:
    """A module that asks which database it runs on has a branch per engine: its tests run in
    both the SQLite and the PostgreSQL set (ENGINE_BRANCHES, tests/conftest.py), each listed
    test path exists, and no module is listed that no longer branches."""
    from tests.conftest import ENGINE_BRANCHES

    source = ROOT / "src"
    branching = {
        ".".join(path.relative_to(source).with_suffix("").parts)
        for path in source.rglob("*.py")
        if ".vendor" in path.read_text() and "web/vendor" not in path.as_posix()
    }
    assert branching == set(ENGINE_BRANCHES)
    for paths in ENGINE_BRANCHES.values():
        for path in paths:
            assert (ROOT / path).exists(), path
