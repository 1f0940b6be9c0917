"""Property: Canada's figures are the sum of the jurisdictions' (before suppression)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.service.outcomes import kpi_fixture as fx

from jobgrant.service.outcomes.kpis import compute
from jobgrant.service.outcomes.tables import Figure, KpiReport

pytestmark = pytest.mark.django_db
FISCAL_YEAR = "2031-32"
ANSWERS = ("", "yes", "no", "prefer-not-to-say")
GENDERS = ("", "woman", "man", "another", "prefer-not-to-say")
FOLLOW_UP = st.sampled_from([None, "due", "sent", "lapsed", "responded"])

trainee = st.fixed_dictionaries(
    {
        "employer": st.integers(0, 2),
        "state": st.sampled_from(["confirmed", "outcome_reported", "withdrawn", "invited"]),
        "gender": st.sampled_from(GENDERS),
        "disability": st.sampled_from(ANSWERS),
        "outcome": st.sampled_from([None, (True, True), (True, False), (False, True)]),
        "trainee_3": FOLLOW_UP,
        "employer_3": FOLLOW_UP,
        "trainee_12": FOLLOW_UP,
        "employed": st.booleans(),
    }
)
a_file = st.fixed_dictionaries(
    {
        "jurisdiction": st.sampled_from(["ON", "BC", "NU"]),
        "delivery": st.sampled_from(["provincial", "federal-direct"]),
        "state": st.sampled_from(["approved", "submitted", "draft"]),
        "employees": st.lists(st.one_of(st.none(), st.integers(1, 900)), min_size=1, max_size=3),
        "trainees": st.lists(trainee, max_size=6),
        "report": st.sampled_from(["submitted", "draft", None]),
        "payments": st.lists(
            st.tuples(
                st.sampled_from(["federal", "provincial"]),
                st.integers(1, 10**7),
                st.one_of(st.none(), st.integers(0, 90)),
            ),
            max_size=3,
        ),
        "recovered": st.integers(0, 5000),
        "committed": st.integers(0, 10**6),
        "claimed_share": st.integers(0, 100),
    }
)


def build(spec: dict[str, Any]) -> None:
    refs = [f"e{i}" for i in range(len(spec["employees"]))]
    made = fx.file(
        spec["jurisdiction"],
        employers=dict(zip(refs, spec["employees"], strict=True)),
        trainees=[refs[t["employer"] % len(refs)] for t in spec["trainees"]],
        state=spec["state"],
        delivery=spec["delivery"],
        fiscal_year=FISCAL_YEAR,
    )
    report = fx.report(made, spec["report"]) if spec["report"] else None
    for position, t in enumerate(spec["trainees"]):
        slot = fx.participant(
            made, position, t["state"], gender=t["gender"], disability=t["disability"]
        )
        if report is not None and t["outcome"] is not None:
            completed, employed = t["outcome"]
            fx.outcome(report, slot, completed=completed, employed=employed)
        for key, milestone, respondent in (
            ("trainee_3", 3, "trainee"),
            ("employer_3", 3, "employer"),
            ("trainee_12", 12, "trainee"),
        ):
            if t[key]:
                answer = t["employed"] if t[key] == "responded" else None
                fx.follow_up(slot, milestone, respondent, t[key], answer)
    if made.version is None:
        return
    for number, (funder, cents, days) in enumerate(spec["payments"], start=1):
        claim = fx.claim(made, number, "2031-06-01")
        paid_on = None if days is None else f"2031-{7 + days // 30:02d}-{1 + days % 28:02d}"
        fx.payment(made, claim, funder, cents, paid_on)
    if spec["recovered"]:
        fx.receivable(made, "provincial", spec["recovered"] + 1, spec["recovered"])
    if spec["committed"]:
        claimed = spec["committed"] * spec["claimed_share"] // 100
        fx.ledger(
            made,
            "federal",
            "commit",
            {"available": -spec["committed"], "committed": spec["committed"]},
        )
        if claimed:
            fx.ledger(made, "federal", "claim", {"committed": -claimed, "claimed": claimed})


def parts(figure: Figure) -> tuple[int, ...]:
    """What adds up across jurisdictions: counts, cents, numerators and denominators."""
    response = parts(figure.response) if figure.response else ()
    return (figure.value or 0, figure.numerator or 0, figure.denominator or 0, *response)


def added(reports: list[KpiReport], table: str) -> dict[tuple[str, str], tuple[int, ...]]:
    total: dict[tuple[str, str], tuple[int, ...]] = {}
    for report in reports:
        for row in report.table(table).rows:
            for column, figure in row.figures.items():
                if column == "days_to_payment_median":
                    continue  # a median does not add up
                key = (row.key, column)
                before = total.get(key, (0,) * len(parts(figure)))
                total[key] = tuple(a + b for a, b in zip(before, parts(figure), strict=True))
    return total


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(a_file, min_size=1, max_size=6))
def test_canada_is_the_sum_of_its_jurisdictions(files: list[dict[str, Any]]) -> None:
    with transaction.atomic():
        for spec in files:
            build(spec)
        canada = compute(None, FISCAL_YEAR, suppress=False)
        jurisdictions = [compute(j, FISCAL_YEAR, suppress=False) for j in ("ON", "BC", "NU")]
        for table in [t.id for t in canada.tables if t.id != "by-jurisdiction"]:
            assert added([canada], table) == added(jurisdictions, table), table
        by_row = canada.table("by-jurisdiction")
        total = next(r for r in by_row.rows if r.key == "total")
        headline = canada.table("headline").rows[0]
        assert total.figures == headline.figures
        transaction.set_rollback(True)
