"""Small-cell suppression of the KPI tables: what every role but an auditor sees.

The rule: any figure about fewer than SMALL_CELL_THRESHOLD people is suppressed, and so is any
further cell that would let a suppressed one be worked out.

Sources for the threshold and the method:
- The program's own reporting rule, "small cells (fewer than 10 people) are suppressed in
  anything published", hence 10.
- Government of Canada guidance as the Immigration and Refugee Board applies it ("Protecting
  privacy when releasing statistical information: small value suppression",
  cisr.gc.ca/en/statistics/Pages/small-value-suppression.aspx): a suppressed value must not be
  derivable by subtracting the shown values from a total, so where a total is shown with all its
  addends and one is suppressed, the second lowest addend is suppressed too (the IRB's own
  threshold is 20, for refugee proceedings).
- British Columbia, "Protection of Personal Information when Reporting on Small Populations"
  (Ministry of Education and Child Care, revised 2020): "any and all cells of fewer than 10
  observations will be masked" in open data: the same threshold for the same kind of release.

Method, per table whose rows add up to a "total" row, column by column: the cells about people
(Figure.people set) are an equation, parts = total. While exactly one of its terms is hidden
(a part, or the total), it can be worked out by subtraction (or addition), so the shown part
about the fewest people is hidden too (COMPLEMENTARY). A hidden figure keeps only its unit and
why it is hidden: its value, numerator, denominator and count of people are dropped, so no
page, API answer or file can show them. A survey figure's response rate is hidden with it (its
numerator is the figure's own count of people).
"""

from __future__ import annotations

from dataclasses import replace

from jobgrant.service.outcomes.tables import Figure, KpiReport, Row, Suppression, Table

#: Fewer people than this in a figure: suppressed (see the module's sources).
SMALL_CELL_THRESHOLD = 10

TOTAL_ROW = "total"


def suppress(report: KpiReport, threshold: int = SMALL_CELL_THRESHOLD) -> KpiReport:
    """`report` with its small cells and their complements hidden."""
    tables = tuple(_suppress_table(table, threshold) for table in report.tables)
    return replace(report, tables=tables, suppressed=True, threshold=threshold)


def _suppress_table(table: Table, threshold: int) -> Table:
    hidden: dict[tuple[str, str], Suppression] = {}
    for row in table.rows:
        for column_id, figure in row.figures.items():
            if figure.people is not None and figure.people < threshold:
                hidden[(row.key, column_id)] = Suppression.SMALL
    parts = [row for row in table.rows if row.key != TOTAL_ROW]
    total = next((row for row in table.rows if row.key == TOTAL_ROW), None)
    if total is not None and parts:
        for column in table.columns:
            _complement(column.id, parts, total, hidden)
    rows = tuple(_hide_row(row, hidden) for row in table.rows)
    return replace(table, rows=rows)


def _complement(
    column_id: str, parts: list[Row], total: Row, hidden: dict[tuple[str, str], Suppression]
) -> None:
    """Hide the smallest shown parts until no hidden term of parts = total is alone."""
    terms = [row for row in (*parts, total) if _about_people(row, column_id)]
    if total not in terms:
        return
    while sum((row.key, column_id) in hidden for row in terms) == 1:
        shown = [row for row in parts if row in terms and (row.key, column_id) not in hidden]
        if not shown:
            return
        smallest = min(shown, key=lambda row: _people(row, column_id))
        hidden[(smallest.key, column_id)] = Suppression.COMPLEMENTARY


def _about_people(row: Row, column_id: str) -> bool:
    figure = row.figures.get(column_id)
    return figure is not None and figure.people is not None


def _people(row: Row, column_id: str) -> int:
    return row.figures[column_id].people or 0


def _hide_row(row: Row, hidden: dict[tuple[str, str], Suppression]) -> Row:
    figures = {
        column_id: hide(figure, hidden[(row.key, column_id)])
        if (row.key, column_id) in hidden
        else figure
        for column_id, figure in row.figures.items()
    }
    return replace(row, figures=figures)


def hide(figure: Figure, why: Suppression) -> Figure:
    """The figure with nothing left of it but its unit and why it is hidden."""
    response = Figure(unit=figure.response.unit, suppressed=why) if figure.response else None
    return Figure(unit=figure.unit, suppressed=why, response=response)
