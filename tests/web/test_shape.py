"""The web layer keeps one shape (docs/adr/0006): small modules, one convention, no old helpers."""

from __future__ import annotations

import re
from pathlib import Path

import jobgrant.service as service

WEB = Path(service.__file__).parent / "web"
MOST_LINES = 400


def python_modules() -> list[Path]:
    return sorted(p for p in WEB.rglob("*.py") if "migrations" not in p.parts)


def test_no_module_of_the_web_layer_is_over_400_lines() -> None:
    long = {
        str(p.relative_to(WEB)): n
        for p in python_modules()
        if (n := len(p.read_text().splitlines())) > MOST_LINES
    }
    assert not long, f"split these modules (docs/adr/0006): {long}"


def test_every_page_area_has_its_views_and_its_routes() -> None:
    views = {p.stem.split("_")[0] for p in (WEB / "views").glob("*.py") if p.stem != "__init__"}
    routes = {p.stem for p in (WEB / "urls").glob("*.py") if p.stem != "__init__"}
    assert (
        views
        == routes
        == {
            "public",
            "employer",
            "officer",
            "finance",
            "analyst",
            "auditor",
            "participants",
            "account",
            "organizations",
            "partners",
            "staff",
            "completion",
            "reports",
            "programs",
            "manager",
        }
    )


def test_the_old_form_helpers_and_the_second_convention_are_gone() -> None:
    gone = re.compile(r"class Problems\b|def control\(|def employer_only\b|contrib import messages")
    found = [
        f"{p.relative_to(WEB)}:{number}"
        for p in python_modules()
        for number, line in enumerate(p.read_text().splitlines(), 1)
        if gone.search(line)
    ]
    assert not found, found
