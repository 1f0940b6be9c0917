"""The grant's KPIs for one jurisdiction (or Canada) and fiscal year, as a KpiReport.

Every figure comes from the SQL aggregates of `kpi_sql` (never from a stored total): the rows of
a breakdown are its groups, and its total is the sum of the same groups, so a total always
equals its rows before suppression. Tables:

- headline: one row, the jurisdiction (or Canada): files, participants, outcomes, money, days.
- by-jurisdiction (Canada only): one row per jurisdiction for the provincially delivered files,
  one row for the federal-direct files (delivered by Ottawa, in whatever jurisdiction), the total.
- by-firm-size and by each equity question: the outcome columns, "not answered" (and "prefer not
  to say") as rows of their own, and the total.

`compute(..., suppress=False)` is what auditors see; every other reader gets the suppressed
report (`suppression`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from jobgrant.service.grants.models.applications import Delivery
from jobgrant.service.outcomes import kpi_columns as cols
from jobgrant.service.outcomes import kpi_sql, net_tables
from jobgrant.service.outcomes.kpi_sql import FileGroup
from jobgrant.service.outcomes.suppression import suppress as suppress_report
from jobgrant.service.outcomes.tables import Figure, KpiReport, Row, Table, Unit

FUNDERS = ("federal", "provincial")
FEDERAL_DIRECT = "federal-direct"

Sums = dict[str, int]

#: The participants are read once, in cells of these dimensions: the headline, the rows by
#: jurisdiction and every breakdown add up the same cells (one pass over the participants and
#: their follow-ups; a trainee has one employer, so each counts in exactly one cell).
CELL_DIMENSIONS = ("jurisdiction", "delivery", "firm_size", *kpi_sql.EQUITY_COLUMNS)
#: The dimensions a breakdown table is by (one table each).
BREAKDOWN_DIMENSIONS = CELL_DIMENSIONS[2:]

#: Per (jurisdiction, delivery) group: per breakdown dimension, per answer, the participants' sums.
Margins = dict[FileGroup, dict[str, dict[str, Sums]]]


@dataclass(frozen=True)
class Cells:
    """What the KPIs of a scope add up, unsuppressed: per (jurisdiction, delivery) group, the
    participants' sums by each breakdown dimension's answers (`people`: the margins of the
    statement's cells; every participant counts once in each dimension, so each dimension's
    answers add up to the group) and the files' sums (`files`). The tables need nothing finer: a
    breakdown is by one dimension, the rows by jurisdiction by group. Margins add up, so the
    cells of several jurisdictions put together are the cells of them all (`merged`)."""

    people: Margins
    files: Mapping[FileGroup, Sums]


def live_cells(jurisdiction: str | None, fiscal_year: str) -> Cells:
    """The cells of `jurisdiction` (None: every jurisdiction) for `fiscal_year`, by SQL now."""
    files = _file_sums(jurisdiction, fiscal_year)
    people: Margins = {}
    for key, sums in kpi_sql.people_groups(fiscal_year, jurisdiction, CELL_DIMENSIONS):
        dimensions = people.setdefault(FileGroup(key[0], key[1]), {})
        for dimension, answer in zip(BREAKDOWN_DIMENSIONS, key[2:], strict=True):
            answers = dimensions.setdefault(dimension, {})
            answers[answer] = _add_up((answers.get(answer, {}), sums))
    return Cells(people=people, files=files)


def merged(parts: Iterable[Cells]) -> Cells:
    """The cells of several jurisdictions, added up group by group and answer by answer."""
    people: Margins = {}
    files: dict[FileGroup, Sums] = {}
    for part in parts:
        for group, dimensions in part.people.items():
            into = people.setdefault(group, {})
            for dimension, answers in dimensions.items():
                added = into.setdefault(dimension, {})
                for answer, sums in answers.items():
                    added[answer] = _add_up((added.get(answer, {}), sums))
        for group, sums in part.files.items():
            files[group] = _add_up((files.get(group, {}), sums))
    return Cells(people=people, files=files)


def compute(jurisdiction: str | None, fiscal_year: str, *, suppress: bool = True) -> KpiReport:
    """The KPIs of `jurisdiction` (None: Canada) for `fiscal_year` ("2025-26"), computed now from
    the records (the live path; the pages read stored cells: `outcomes.snapshots`)."""
    report = report_from_cells(jurisdiction, fiscal_year, live_cells(jurisdiction, fiscal_year))
    return suppress_report(report) if suppress else report


def report_from_cells(jurisdiction: str | None, fiscal_year: str, cells: Cells) -> KpiReport:
    """The unsuppressed KpiReport that `cells` add up to (Canada when `jurisdiction` is None)."""
    people = _people_by_group(cells.people)
    files = dict(cells.files)
    if jurisdiction is None:
        parts = _jurisdiction_parts(people, files)
        canada = _add_up(sums for _, sums in parts)
        tables = [
            _headline("Canada", "Canada", canada),
            _by_jurisdiction(parts, canada),
        ]
    else:
        total = {**_add_up(people.values()), **_add_up(files.values())}
        tables = [_headline(*cols.jurisdiction_label(jurisdiction), total)]
    tables += _breakdowns(cells.people, _add_up(people.values()))
    everyone = {**_add_up(people.values()), **_add_up(files.values())}
    tables += net_tables.tables(everyone)
    return KpiReport(
        jurisdiction=jurisdiction, fiscal_year=fiscal_year, tables=tuple(tables), suppressed=False
    )


# --- Adding up the groups ---------------------------------------------------------------------


def _add_up(groups: Iterable[Mapping[str, int]]) -> Sums:
    total: Sums = {}
    for sums in groups:
        for name, value in sums.items():
            total[name] = total.get(name, 0) + value
    return total


def _file_sums(jurisdiction: str | None, fiscal_year: str) -> dict[FileGroup, Sums]:
    """Per (jurisdiction, delivery): file counts, money per funder, the days histogram (as
    "days:N" counts, so that groups add up by the same `_add_up`), the comparison group's
    answers and the participants by counterfactual answer (`net_tables`)."""
    found: dict[FileGroup, Sums] = {}
    for part in (
        kpi_sql.file_counts(fiscal_year, jurisdiction),
        kpi_sql.money(fiscal_year, jurisdiction),
        kpi_sql.comparison(fiscal_year, jurisdiction),
        kpi_sql.counterfactual(fiscal_year, jurisdiction),
    ):
        for group, sums in part.items():
            found[group] = _add_up((found.get(group, {}), sums))
    for group, histogram in kpi_sql.days_to_payment(fiscal_year, jurisdiction).items():
        days = {f"days:{day}": claims for day, claims in histogram.items()}
        found[group] = _add_up((found.get(group, {}), days))
    return found


def _people_by_group(margins: Margins) -> dict[FileGroup, Sums]:
    """Each group's participants: the answers of any one dimension add up to them all."""
    return {
        group: _add_up(dimensions[BREAKDOWN_DIMENSIONS[0]].values())
        for group, dimensions in margins.items()
    }


def _jurisdiction_parts(
    people: dict[FileGroup, Sums], files: dict[FileGroup, Sums]
) -> list[tuple[str, Sums]]:
    """(row key, sums): each jurisdiction's provincially delivered files, then federal-direct."""
    rows: dict[str, list[Sums]] = {}
    for group in set(people) | set(files):
        key = FEDERAL_DIRECT if group.delivery == Delivery.FEDERAL_DIRECT else group.jurisdiction
        rows.setdefault(key, []).append(_add_up((people.get(group, {}), files.get(group, {}))))
    order = [*cols.JURISDICTION_ORDER, FEDERAL_DIRECT]
    return [(key, _add_up(rows[key])) for key in order if key in rows]


# --- Figures ----------------------------------------------------------------------------------


def _rate(numerator: int, denominator: int, response: Figure | None = None) -> Figure:
    return Figure(
        Unit.RATE,
        numerator=numerator,
        denominator=denominator,
        people=denominator,
        response=response,
    )


def _outcome_figures(s: Sums) -> dict[str, Figure]:
    participants = s.get("participants", 0)
    reported = s.get("reported", 0)
    report_response = _rate(reported, participants)
    figures = {
        "participants": Figure(Unit.PEOPLE, value=participants, people=participants),
        "completion_rate": _rate(s.get("completed", 0), reported, report_response),
        "employed_at_end": _rate(s.get("employed_end", 0), reported, report_response),
    }
    for months in (3, 12):
        answered = s.get(f"answered_{months}", 0)
        response = _rate(answered, s.get(f"asked_{months}", 0))
        figures[f"employed_{months}_months"] = _rate(
            s.get(f"employed_{months}", 0), answered, response
        )
    return figures


def _cost(s: Sums, funder: str) -> int:
    return s.get(f"paid_{funder}", 0) - s.get(f"recovered_{funder}", 0)


def _money_figures(s: Sums) -> dict[str, Figure]:
    participants = s.get("participants", 0)
    employed = s.get("employed_end", 0)
    government = sum(_cost(s, funder) for funder in FUNDERS)
    figures = {
        f"cost_{funder}": Figure(Unit.CENTS, value=_cost(s, funder), people=participants)
        for funder in FUNDERS
    }
    figures["cost_government"] = Figure(Unit.CENTS, value=government, people=participants)
    figures["cost_per_trainee"] = Figure(
        Unit.CENTS_PER, numerator=government, denominator=participants, people=participants
    )
    figures["cost_per_job_outcome"] = Figure(
        Unit.CENTS_PER, numerator=government, denominator=employed, people=employed
    )
    slippage = sum(s.get(f"slippage_{funder}", 0) for funder in FUNDERS)
    figures["slippage"] = Figure(Unit.CENTS, value=slippage)
    return figures


def _days_figures(s: Sums) -> dict[str, Figure]:
    histogram = sorted((int(name[5:]), n) for name, n in s.items() if name.startswith("days:"))
    claims = sum(n for _, n in histogram)
    total = sum(day * n for day, n in histogram)
    median_numerator, median_denominator = _median(histogram, claims)
    return {
        "days_to_payment": Figure(Unit.DAYS_PER, numerator=total, denominator=claims),
        "days_to_payment_median": Figure(
            Unit.DAYS_PER, numerator=median_numerator, denominator=median_denominator
        ),
    }


def _median(histogram: Sequence[tuple[int, int]], count: int) -> tuple[int, int]:
    """The median of a sorted (value, count) histogram, as numerator / denominator: the middle
    value / 1, or the sum of the two middle values / 2. (0, 0) for nothing."""
    if count == 0:
        return 0, 0
    wanted = (count - 1) // 2, count // 2  # the middle positions, 0-based
    found: list[int] = []
    seen = 0
    for value, n in histogram:
        found += [value for position in wanted if seen <= position < seen + n]
        seen += n
    return (found[0], 1) if count % 2 else (found[0] + found[1], 2)


def _files_figures(s: Sums) -> dict[str, Figure]:
    return {
        "applications": Figure(Unit.FILES, value=s.get("applications", 0)),
        "approvals": Figure(Unit.FILES, value=s.get("approvals", 0)),
    }


def _headline_figures(s: Sums) -> dict[str, Figure]:
    return {
        **_files_figures(s),
        **_outcome_figures(s),
        **_money_figures(s),
        **_days_figures(s),
    }


# --- Tables -----------------------------------------------------------------------------------


def _headline(label_en: str, label_fr: str, s: Sums) -> Table:
    return Table(
        id="headline",
        title_en="Key performance indicators",
        title_fr="Indicateurs clés de rendement",
        columns=cols.HEADLINE_COLUMNS,
        rows=(Row("total", label_en, label_fr, _headline_figures(s)),),
    )


def _by_jurisdiction(parts: list[tuple[str, Sums]], canada: Sums) -> Table:
    rows = []
    for key, sums in parts:
        if key == FEDERAL_DIRECT:
            label = ("Federal-direct files", "Dossiers en prestation fédérale directe")
        else:
            label = cols.jurisdiction_label(key)
        rows.append(Row(key, *label, _headline_figures(sums)))
    rows.append(Row("total", "Canada", "Canada", _headline_figures(canada)))
    return Table(
        id="by-jurisdiction",
        title_en="By jurisdiction",
        title_fr="Selon la province ou le territoire",
        columns=cols.HEADLINE_COLUMNS,
        rows=tuple(rows),
        note_en="Files delivered directly by the Government of Canada are shown apart.",
        note_fr="Les dossiers en prestation fédérale directe sont présentés à part.",
    )


def _breakdowns(margins: Margins, total: Sums) -> list[Table]:
    """The firm-size and equity tables, from the participants' margins."""
    tables = [
        _breakdown(
            "by-firm-size",
            "By firm size (employees at application)",
            "Selon la taille de l'entreprise (employés à la demande)",
            _answers(margins, "firm_size"),
            total,
            cols.FIRM_SIZES,
            note_en="A consortium's trainees count with their own employer.",
            note_fr="Les participants d'un consortium comptent avec leur propre employeur.",
        )
    ]
    for table_id, column, title_en, title_fr, choices in cols.EQUITY_TABLES:
        rows = cols.equity_rows(choices)
        answers = _answers(margins, column)
        tables.append(_breakdown(table_id, title_en, title_fr, answers, total, rows))
    return tables


def _answers(margins: Margins, dimension: str) -> dict[str, Sums]:
    """A dimension's answers over every group; no answer ("") is the "not answered" row."""
    found: dict[str, Sums] = {}
    for dimensions in margins.values():
        for answer, sums in dimensions.get(dimension, {}).items():
            key = answer or cols.UNANSWERED[0]
            found[key] = _add_up((found.get(key, {}), sums))
    return found


def _breakdown(
    table_id: str,
    title_en: str,
    title_fr: str,
    answers: dict[str, Sums],
    total: Sums,
    rows: Sequence[tuple[str, str, str]],
    *,
    note_en: str = "",
    note_fr: str = "",
) -> Table:
    table_rows = [Row(key, en, fr, _outcome_figures(answers.get(key, {}))) for key, en, fr in rows]
    table_rows.append(Row(*cols.TOTAL, _outcome_figures(total)))
    return Table(
        id=table_id,
        title_en=title_en,
        title_fr=title_fr,
        columns=cols.OUTCOME_COLUMNS,
        rows=tuple(table_rows),
        note_en=note_en,
        note_fr=note_fr,
    )
