"""Scale-out tests: real `jobgrant serve` processes on one PostgreSQL database of their own.

They need PostgreSQL (marker `postgres`) and run in `make pytest-postgres`; the SQLite pass
leaves them out (`-m "not postgres"`). Run alone, without a PostgreSQL JOBGRANT_DATABASE_URL,
they skip and say why; in CI (CI=true) they fail instead, as the browser tests do.

Each test records what it measured (`record_property("figures", ...)`); the figures are printed
at the end of the run, also when pytest-xdist ran the test in another process.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """postgresql://user@host:port of the server JOBGRANT_DATABASE_URL names (no database)."""
    database = settings.DATABASES["default"]
    if "postgresql" not in database["ENGINE"]:  # Django's backend or ours (service/postgresql)
        reason = "the scale-out tests need PostgreSQL: set JOBGRANT_DATABASE_URL=postgresql://…"
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"{reason}; in CI they must run", pytrace=False)
        pytest.skip(reason)
    user = database["USER"] + (f":{database['PASSWORD']}" if database["PASSWORD"] else "")
    return f"postgresql://{user}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    lines = [
        f"{report.nodeid.split('::')[-1]}: {value}"
        for report in terminalreporter.stats.get("passed", [])
        if report.when == "call"
        for name, value in report.user_properties
        if name == "figures"
    ]
    if lines:
        terminalreporter.section("scale-out figures")
        for line in lines:
            terminalreporter.write_line(line)
