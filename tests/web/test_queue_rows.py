"""The officer's queue writes each row in Python (web/queue_rows.py, ADR 0055): the same HTML as
the template it replaced (tests/web/queue_row_before.html), for every branch of a row, in both
languages."""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path
from typing import Any

import pytest
from django.template import engines
from django.utils import translation

from jobgrant.service.web import queue_rows
from jobgrant.service.web.clock_display import due_in

BEFORE = (Path(__file__).parent / "queue_row_before.html").read_text().rstrip("\n")


def rows() -> list[dict[str, Any]]:
    """Rows through every branch: ranked within and below the cut-off and not ranked, with and
    without partners, a ranked stream, a due day with days left, due today, overdue, none,
    assigned or not, eligible or not, names with markup in them."""
    made = []
    branches = itertools.product(
        [(3, True), (1204, False), (None, None)],
        [[], ["Beta <b>& Co", "Gamma"]],
        [True, False],
        [due_in(4), due_in(0), due_in(-2), None],
        ["", "officer<1>"],
        [True, False],
    )
    for n, (rank, partners, ranked, due, assignee, eligible) in enumerate(branches):
        made.append(
            {
                "id": n + 1,
                "href": f"/en/officer/applications/{n + 1}/",
                "label": f"Application {n + 1}",
                "employer": 'Alpha & "Sons" <i>',
                "partners": partners,
                "jurisdiction": "ON",
                "jurisdiction_name": "Ontario",
                "stream": "CJG",
                "ranked_stream": ranked,
                "received_on": dt.date(2026, 11, 2),
                "age": 1500 if n % 2 else 32,
                "state": "submitted",
                "state_label": "Submitted",
                "eligible": eligible,
                "government_cents": 1_234_567,
                "assignee": assignee,
                "rank": rank[0],
                "within_budget": rank[1],
                "decide_by": dt.date(2026, 12, 9) if due else None,
                "decision_due": due,
            }
        )
    return made


@pytest.mark.parametrize("language", ["en", "fr"])
def test_each_row_is_the_html_the_template_wrote(language: str) -> None:
    every = rows()
    with translation.override(language):
        expected = engines["django"].from_string(BEFORE).render({"rows": every})
        said = queue_rows.words()
        written = "".join(queue_rows.row_html(row, said) for row in every)
    assert written == expected
    assert "&lt;b&gt;&amp; Co" in written and "officer&lt;1&gt;" in written
