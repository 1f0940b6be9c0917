"""The docs say what the repository holds, and the code names nothing outside it.

- every path `docs/architecture.md` names in backticks exists;
- no file of the code (`src/`, `tests/`, `bench/`, the Makefile) names an issue number or one of
  the design notes that live outside the repository;
- every ADR has its `Date:` and `Status:` lines under its title;
- the README stays a front door (under 300 lines).

Plain file reads: no database, no Django. Each failure lists every offending file:line.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
ADR_DIR = ROOT / "docs" / "adr"
README = ROOT / "README.md"
README_MAX_LINES = 300

# Folders that hold no text of ours: caches, and what `make` copies or builds there.
SKIPPED_DIRS = {"__pycache__", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
SKIPPED_PATHS = {ROOT / "src" / "jobgrant" / "service" / "web" / "static" / "vendor"}
SKIPPED_SUFFIXES = {".mo", ".pyc", ".png", ".jpg", ".jpeg", ".gif", ".ico", ".woff", ".woff2"}

# Where a bare file name (`actions.py`) may be found.
BARE_NAME_ROOTS = ("src", "tests", "docs", "bench", "scenarios")

ISSUE_NUMBER = re.compile(r"\bissues?\s+#?\d+\b", re.IGNORECASE)
OUTSIDE_FILES = re.compile(
    r"\b(?:DESIGN|post-award|conventions|policy-facts|MISSION)\.md\b", re.IGNORECASE
)

FENCE = re.compile(r"^```.*?^```[^\n]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
PLACEHOLDER = re.compile(r"[<*{]")

DATE_LINE = re.compile(r"^Date: (\S+)$")
STATUS_LINE = re.compile(
    r"^Status: (?:Accepted|Proposed|Deprecated|(?:Superseded|Amended) by (\d{4}(?:, \d{4})*))$"
)


def _walk(top: Path) -> Iterator[Path]:
    """Every file under `top`, sorted, leaving out caches and copied third-party files."""
    for path in sorted(top.iterdir()):
        if path.name in SKIPPED_DIRS or path in SKIPPED_PATHS:
            continue
        if path.is_dir():
            yield from _walk(path)
        elif path.suffix not in SKIPPED_SUFFIXES:
            yield path


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None  # not a text file


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _named_paths(markdown: str) -> list[tuple[int, str]]:
    """(line, path) for each code span that looks like a path: it contains a `/` or ends in
    .py or .md, has no space, and is not a URL. Fenced blocks (diagrams) are left out."""
    blanked = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), markdown)
    found = []
    for number, line in enumerate(blanked.splitlines(), start=1):
        for span in CODE_SPAN.findall(line):
            if any(c.isspace() for c in span) or span.startswith("/") or "://" in span:
                continue
            if "/" in span or span.endswith((".py", ".md")):
                found.append((number, span))
    return found


def _bare_names() -> set[str]:
    names: set[str] = set()
    for top in BARE_NAME_ROOTS:
        if (ROOT / top).is_dir():
            names.update(path.name for path in _walk(ROOT / top))
    return names


def _missing(span: str, bare_names: set[str]) -> str | None:
    """Why `span` names nothing in the repository, or None when it does."""
    placeholder = PLACEHOLDER.search(span)
    if placeholder:
        folder = span[: placeholder.start()].rpartition("/")[0]
        if not folder:
            return "a pattern with no fixed folder to check"
        return None if (ROOT / folder).is_dir() else f"no folder {folder}/"
    if "/" not in span:
        return None if span in bare_names else "no file of that name anywhere"
    target = ROOT / span.rstrip("/")
    if span.endswith("/"):
        return None if target.is_dir() else "no such folder"
    return None if target.exists() else "no such file"


def test_every_path_that_the_architecture_page_names_exists() -> None:
    paths = _named_paths(ARCHITECTURE.read_text(encoding="utf-8"))
    assert len(paths) > 20, "docs/architecture.md names almost no path in backticks"
    bare_names = _bare_names()
    missing = [
        f"docs/architecture.md:{line}: `{span}`: {why}"
        for line, span in paths
        if (why := _missing(span, bare_names))
    ]
    assert not missing, (
        f"{len(missing)} of the {len(paths)} paths named in docs/architecture.md do not exist "
        "(paths are relative to the repository root):\n" + "\n".join(missing)
    )


#: What the code's comments, docstrings and help texts are in: the source, the tests, the
#: benchmarks and the Makefile (this file names the patterns it looks for, so it is left out).
CODE = ("src", "tests", "bench", "scenarios", ".ci")


def _code_files() -> Iterator[Path]:
    for top in CODE:
        yield from (p for p in _walk(ROOT / top) if p != Path(__file__).resolve())
    yield ROOT / "Makefile"


def _offences(pattern: re.Pattern[str]) -> list[str]:
    offences = []
    for path in _code_files():
        text = _text(path)
        if text is None:
            continue
        for match in pattern.finditer(text):
            where = f"{path.relative_to(ROOT)}:{_line_of(text, match.start())}"
            offences.append(f"{where}: {match.group(0)!r}")
    return offences


def test_no_code_comment_or_help_text_names_an_issue_number() -> None:
    offences = _offences(ISSUE_NUMBER)
    assert not offences, (
        f"{len(offences)} mentions of an issue number in the code (say what was asked, or why, "
        "instead):\n" + "\n".join(offences)
    )


def test_no_code_comment_or_help_text_names_a_design_note_outside_the_repository() -> None:
    offences = _offences(OUTSIDE_FILES)
    assert not offences, (
        f"{len(offences)} mentions in the code of a file that is not in the repository (state "
        "the fact instead):\n" + "\n".join(offences)
    )


def test_every_adr_has_a_date_and_a_status_under_its_title() -> None:
    adrs = sorted(ADR_DIR.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert adrs, "no ADR found in docs/adr/"
    numbers = {adr.name[:4] for adr in adrs}
    problems = []
    for adr in adrs:
        name = adr.relative_to(ROOT)
        head = adr.read_text(encoding="utf-8").split("\n## ", 1)[0].splitlines()
        dates = [(n, m) for n, line in enumerate(head, 1) if (m := DATE_LINE.match(line))]
        statuses = [(n, line) for n, line in enumerate(head, 1) if line.startswith("Status:")]
        if len(dates) != 1:
            problems.append(f"{name}: {len(dates)} `Date:` lines before the first section")
        else:
            line, match = dates[0]
            try:
                datetime.date.fromisoformat(match.group(1))
            except ValueError:
                problems.append(f"{name}:{line}: not a YYYY-MM-DD date: {match.group(1)!r}")
        if len(statuses) != 1:
            problems.append(f"{name}: {len(statuses)} `Status:` lines before the first section")
        else:
            line, text = statuses[0]
            status = STATUS_LINE.match(text)
            if not status:
                problems.append(
                    f"{name}:{line}: {text!r} is not Accepted, Proposed, Deprecated, "
                    "'Superseded by NNNN' or 'Amended by NNNN[, NNNN]'"
                )
            elif status.group(1):
                unknown = [n for n in status.group(1).split(", ") if n not in numbers]
                if unknown:
                    problems.append(f"{name}:{line}: names no such ADR: {', '.join(unknown)}")
    assert not problems, "ADRs without a proper Date or Status line:\n" + "\n".join(problems)


def test_the_readme_is_under_300_lines() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines < README_MAX_LINES, (
        f"README.md is {lines} lines, not under {README_MAX_LINES}: the manual belongs in docs/ "
        "(docs/guide/, docs/benchmarks.md, ...), the README is the front door"
    )
