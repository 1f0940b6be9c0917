"""Small-cell and complementary suppression on tables worked out by hand (no database)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from jobgrant.service.outcomes.suppression import SMALL_CELL_THRESHOLD, suppress
from jobgrant.service.outcomes.tables import (
    Column,
    Figure,
    KpiReport,
    Row,
    Suppression,
    Table,
    Unit,
)

COUNT = Column("participants", "Participants", "Participants", Unit.PEOPLE)
RATE = Column("completion_rate", "Completion", "Achèvement", Unit.RATE)
MONEY = Column("slippage", "Slippage", "Non réclamé", Unit.CENTS)
SHOWN, SMALL, COMPLEMENTARY = Suppression.SHOWN, Suppression.SMALL, Suppression.COMPLEMENTARY


def people(n: int) -> Figure:
    return Figure(Unit.PEOPLE, value=n, people=n)


def table(counts: dict[str, int]) -> KpiReport:
    rows = [Row(key, key, key, {"participants": people(n)}) for key, n in counts.items()]
    rows.append(Row("total", "Total", "Total", {"participants": people(sum(counts.values()))}))
    return KpiReport("ON", "2030-31", (Table("t", "T", "T", (COUNT,), tuple(rows)),), False)


def marks(report: KpiReport) -> dict[str, Suppression]:
    return {r.key: r.figures["participants"].suppressed for r in report.tables[0].rows}


def test_the_threshold_is_ten() -> None:
    """The program's rule: fewer than 10 people. a 10 is shown, b 9 and c 9 hidden."""
    assert SMALL_CELL_THRESHOLD == 10
    assert marks(suppress(table({"a": 10, "b": 9, "c": 9}))) == {
        "a": SHOWN,
        "b": SMALL,
        "c": SMALL,
        "total": SHOWN,
    }


def test_one_small_cell_takes_the_next_smallest_with_it() -> None:
    """a 25, b 12, c 4, total 41: c is small; 41 - 25 - 12 would give c away, so b (12, the
    smallest shown part) is hidden too; a stays."""
    assert marks(suppress(table({"a": 25, "b": 12, "c": 4}))) == {
        "a": SHOWN,
        "b": COMPLEMENTARY,
        "c": SMALL,
        "total": SHOWN,
    }


def test_two_small_cells_need_no_complement() -> None:
    """a 25, b 3, c 4, total 32: b and c are hidden and only their sum (7) can be worked out."""
    assert marks(suppress(table({"a": 25, "b": 3, "c": 4}))) == {
        "a": SHOWN,
        "b": SMALL,
        "c": SMALL,
        "total": SHOWN,
    }


def test_the_next_smallest_is_chosen_among_several() -> None:
    """a 40, b 15, c 11, d 2, total 68: d small, c (11 < 15 < 40) complementary."""
    assert marks(suppress(table({"a": 40, "b": 15, "c": 11, "d": 2}))) == {
        "a": SHOWN,
        "b": SHOWN,
        "c": COMPLEMENTARY,
        "d": SMALL,
        "total": SHOWN,
    }


def test_a_small_total_hides_everything() -> None:
    """a 5, b 3, total 8: all about fewer than 10 people."""
    assert set(marks(suppress(table({"a": 5, "b": 3}))).values()) == {SMALL}


def test_a_hidden_figure_keeps_nothing_but_its_unit() -> None:
    """A rate about 6 people (its denominator) with its response rate: both hidden, no value,
    numerator, denominator or count left to show; a money figure not about people is shown."""
    response = Figure(Unit.RATE, numerator=6, denominator=20, people=20)
    rate = Figure(Unit.RATE, numerator=5, denominator=6, people=6, response=response)
    money = Figure(Unit.CENTS, value=123)
    row = Row("total", "T", "T", {"completion_rate": rate, "slippage": money})
    report = KpiReport("ON", "2030-31", (Table("h", "H", "H", (RATE, MONEY), (row,)),), False)
    figures = suppress(report).tables[0].rows[0].figures
    hidden = figures["completion_rate"]
    assert hidden == Figure(
        Unit.RATE, suppressed=SMALL, response=Figure(Unit.RATE, suppressed=SMALL)
    )
    assert figures["slippage"] == money
    assert suppress(report).suppressed


@given(st.dictionaries(st.sampled_from("abcdef"), st.integers(0, 40), min_size=1))
def test_no_hidden_cell_is_alone_in_its_sum(counts: dict[str, int]) -> None:
    """Whatever the counts: every cell about fewer than 10 people is hidden, shown cells keep
    their values, and never exactly one term of parts = total is hidden (it could be worked
    out by subtraction)."""
    result = suppress(table(counts)).tables[0].rows
    hidden = [r for r in result if not r.figures["participants"].shown]
    assert len(hidden) != 1
    for r in result:
        figure = r.figures["participants"]
        expected = counts.get(r.key, sum(counts.values()))
        if expected < SMALL_CELL_THRESHOLD:
            assert figure.suppressed is SMALL
        if figure.shown:
            assert figure.value == expected
        else:
            assert figure.value is None
