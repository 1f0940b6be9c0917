"""The report's three plots as SVG (matplotlib, Agg; text kept as text), words in the active
language, each with a title and a description inside the SVG and its figures as a table beside
it: outcomes by firm size, the government cost per job outcome by jurisdiction (the national
report), and the funnel from the files approved to the people employed twelve months after.

A suppressed figure is never drawn: its bar is left out and its label says "x".
"""

from __future__ import annotations

import html
import io
import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from jobgrant.service.language import in_language
from jobgrant.service.outcomes.report import cells
from jobgrant.service.outcomes.tables import Column, Figure, KpiReport, Table, Unit

FIRM_SIZE_TABLE = "by-firm-size"
JURISDICTION_TABLE = "by-jurisdiction"
COST_PER_JOB_HINTS = ("job", "employ")  # the CENTS_PER column of cost per job outcome
TOTAL_KEYS = ("total", "CA", "canada")


@dataclass(frozen=True)
class Point:
    label: str
    value: float | None  # None: suppressed or not applicable, not drawn
    text: str  # the figure as the tables show it


@dataclass(frozen=True)
class Series:
    name: str
    points: tuple[Point, ...]


@dataclass(frozen=True)
class Plot:
    id: str
    title: str
    description: str
    axis: str
    series: tuple[Series, ...]
    svg: str = ""

    @property
    def table_rows(self) -> list[tuple[str, list[str]]]:
        """The plot's figures as a table: one row per label, one column per series."""
        return [
            (point.label, [series.points[i].text for series in self.series])
            for i, point in enumerate(self.series[0].points)
        ]


def _title(thing: Column | Any) -> str:
    return str(in_language(en=thing.title_en, fr=thing.title_fr))


def _label(row: Any) -> str:
    return str(in_language(en=row.label_en, fr=row.label_fr))


def _find(report: KpiReport, table_id: str) -> Table | None:
    return next((t for t in report.tables if t.id == table_id), None)


def _rate_point(label: str, figure: Figure | None) -> Point:
    if figure is None or not cells.applicable(figure):
        return Point(label, None, cells.text(figure) if figure else cells.NOT_APPLICABLE)
    value = float(cells.percent(figure.numerator or 0, figure.denominator or 1))
    return Point(label, value, cells.text(figure))


def firm_size(report: KpiReport) -> Plot | None:
    table = _find(report, FIRM_SIZE_TABLE)
    if table is None:
        return None
    rows = [r for r in table.rows if r.key not in TOTAL_KEYS]
    series = tuple(
        Series(_title(c), tuple(_rate_point(_label(r), r.figures.get(c.id)) for r in rows))
        for c in table.columns
        if c.unit is Unit.RATE
    )
    if not series or not rows:
        return None
    return Plot(
        "firm-size",
        _("Outcomes by firm size"),
        _(
            "Bars for each firm size (number of employees at application): %(measures)s, as a "
            "percentage. Suppressed figures are not drawn."
        )
        % {"measures": ", ".join(s.name.lower() for s in series)},
        _("Per cent"),
        series,
    )


def cost_per_job(report: KpiReport) -> Plot | None:
    table = _find(report, JURISDICTION_TABLE)
    if table is None:
        return None
    money = [c for c in table.columns if c.unit is Unit.CENTS_PER]
    hinted = [c for c in money if any(h in c.id for h in COST_PER_JOB_HINTS)]
    if not money:
        return None
    column = (hinted or money)[-1]
    points = []
    for row in table.rows:
        figure = row.figures.get(column.id)
        if figure is not None and cells.applicable(figure):
            dollars = cells.per_cents(figure.numerator or 0, figure.denominator or 1) / 100
            points.append(Point(_label(row), dollars, cells.text(figure)))
        else:
            points.append(Point(_label(row), None, cells.text(figure) if figure else "..."))
    return Plot(
        "cost-per-job",
        _("Government cost per job outcome, by jurisdiction"),
        _(
            "Horizontal bars, one for each province or territory and one for the files the "
            "federal government delivers directly: %(measure)s, in dollars. Suppressed figures "
            "are not drawn."
        )
        % {"measure": _title(column).lower()},
        _("Dollars"),
        (Series(_title(column), tuple(points)),),
    )


def funnel(report: KpiReport) -> Plot | None:
    """The headline table's counts in column order: its counts of files and people, then the
    people each rate counts (its numerator): applied or approved, down to employed at 12 months."""
    if not report.tables:
        return None
    table = report.tables[0]
    row = next(
        (r for r in table.rows if r.key in TOTAL_KEYS), table.rows[0] if table.rows else None
    )
    if row is None:
        return None
    points = []
    for column in table.columns:
        figure = row.figures.get(column.id)
        if figure is None or column.unit not in (Unit.FILES, Unit.PEOPLE, Unit.RATE):
            continue
        count = figure.numerator if column.unit is Unit.RATE else figure.value
        if figure.shown and count is not None:
            points.append(Point(_title(column), float(count), cells.whole(count)))
        else:
            points.append(Point(_title(column), None, cells.SUPPRESSED))
    if len(points) < 2:
        return None
    return Plot(
        "funnel",
        _("From approval to a job twelve months after"),
        _(
            "Horizontal bars from the top step to the last: %(steps)s. Each bar is a number of "
            "files or people. Suppressed figures are not drawn."
        )
        % {"steps": ", ".join(f"{p.label.lower()} {p.text}" for p in points)},
        _("Files or people"),
        (Series(_title(table), tuple(points)),),
    )


def plots(report: KpiReport) -> list[Plot]:
    """The report's plots that its tables allow, each drawn as SVG."""
    found = [p for p in (firm_size(report), funnel(report), cost_per_job(report)) if p]
    return [_drawn(p) for p in found]


def _drawn(plot: Plot) -> Plot:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot, rc_context

    with rc_context(
        {"svg.fonttype": "none", "font.family": "DejaVu Sans", "svg.hashsalt": plot.id}
    ):
        fig = _figure(plot)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
        pyplot.close(fig)
    return Plot(
        plot.id,
        plot.title,
        plot.description,
        plot.axis,
        plot.series,
        accessible(buffer.getvalue(), plot),
    )


def _figure(plot: Plot) -> Any:
    from matplotlib import pyplot

    if plot.id == "firm-size":
        return _grouped_bars(plot, pyplot)
    return _horizontal_bars(plot, pyplot)


def _grouped_bars(plot: Plot, pyplot: Any) -> Any:
    labels = [p.label for p in plot.series[0].points]
    fig, ax = pyplot.subplots(figsize=(7, 3.6))
    width = 0.8 / len(plot.series)
    for k, series in enumerate(plot.series):
        xs = [i + (k - (len(plot.series) - 1) / 2) * width for i in range(len(labels))]
        values = [p.value or 0.0 for p in series.points]
        bars = ax.bar(xs, values, width, label=series.name)
        for bar, point in zip(bars, series.points, strict=True):
            if point.value is None:
                bar.set_visible(False)
                ax.annotate(
                    point.text,
                    (bar.get_x() + bar.get_width() / 2, 0),
                    ha="center",
                    va="bottom",
                    fontsize=8,
                )
    ax.set_xticks(range(len(labels)), labels)
    ax.set_ylabel(plot.axis)
    ax.set_ylim(0, 100)
    ax.set_title(plot.title)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1, 1))
    return fig


def _horizontal_bars(plot: Plot, pyplot: Any) -> Any:
    points = plot.series[0].points
    fig, ax = pyplot.subplots(figsize=(7, 0.4 * len(points) + 1.2))
    ys = list(range(len(points)))[::-1]
    bars = ax.barh(ys, [p.value or 0.0 for p in points], color="#26374a")
    for bar, point in zip(bars, points, strict=True):
        if point.value is None:
            bar.set_visible(False)
        ax.annotate(
            " " + point.text,
            (bar.get_width(), bar.get_y() + bar.get_height() / 2),
            va="center",
            fontsize=8,
        )
    ax.set_yticks(ys, [p.label for p in points])
    ax.set_xlabel(plot.axis)
    ax.set_title(plot.title)
    ax.margins(x=0.25)
    return fig


def accessible(svg: str, plot: Plot) -> str:
    """The SVG for an HTML page: no XML prologue, role img, with its title and description."""
    body = unique_ids(svg[svg.index("<svg") :], f"plot-{plot.id}-")
    title_id, desc_id = f"plot-{plot.id}-title", f"plot-{plot.id}-desc"
    body = re.sub(
        r"<svg ",
        f'<svg role="img" aria-labelledby="{title_id} {desc_id}" ',
        body,
        count=1,
    )
    opening_end = body.index(">") + 1
    inserted = (
        f'<title id="{title_id}">{html.escape(plot.title)}</title>'
        f'<desc id="{desc_id}">{html.escape(plot.description)}</desc>'
    )
    return body[:opening_end] + inserted + body[opening_end:]


def unique_ids(svg: str, prefix: str) -> str:
    """Every id in the SVG, and every reference to one, prefixed: matplotlib numbers its
    elements per figure, so two plots on one page would otherwise share ids."""
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}\1"', svg)
    svg = svg.replace("url(#", f"url(#{prefix}")
    return re.sub(r'href="#', f'href="#{prefix}', svg)
