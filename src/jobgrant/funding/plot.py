"""Pictures of who pays what: per jurisdiction for one fiscal year, or nationally by year.

Drawn with matplotlib's object API (no pyplot global state), readable without the terminal:
a title that names the year, policy and scenario, labelled axes, a legend in words, and the
total government and employer money written at the end of each bar. Money is converted to
float millions here only, for drawing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from jobgrant.funding.model import JurisdictionFigures, YearImpact
from jobgrant.rules.codes import JURISDICTIONS

PLOT_SUFFIXES = (".png", ".svg")  # the command checks the same list before importing this
#: Okabe-Ito colours (safe for colour-blind readers); backfill is also hatched for greyscale.
LAYERS = (
    ("grant", "Federal: grant money (diverted from the transfer)", "#0072B2", ""),
    ("matching", "Province or territory: matching the grant", "#E69F00", ""),
    ("backfill", "Province or territory: backfill to keep current programs", "#F0E442", "//"),
    ("employer", "Employers: their contribution (cash and in kind)", "#009E73", ""),
)
NAMES = {j.code: j.name_en for j in JURISDICTIONS}
EDGE = "#333333"


def millions(cents: int) -> float:
    return cents / 100_000_000


def _subtitle(policy: str, scenario: str | None, totals: dict[str, int]) -> str:
    """Which arrangement, and the national answer in one line."""

    def m(key: str) -> str:
        return f"${millions(totals[key]):,.1f}M"

    return (
        f"Policy {policy}, scenario {scenario or 'none'}.\nNationally: federal {m('grant')}, "
        f"provinces and territories {m('provincial_cost')} (matching {m('matching')} + "
        f"backfill {m('backfill')}), employers {m('employer')}"
    )


def _stack(ax: Axes, labels: list[str], rows: list[dict[str, int]], horizontal: bool) -> None:
    """One bar per label, each party's money stacked on the previous one's."""
    base = [0.0] * len(labels)
    for key, legend, colour, hatch in LAYERS:
        values = [millions(row[key]) for row in rows]
        style: dict[str, Any] = {
            "color": colour,
            "hatch": hatch,
            "label": legend,
            "edgecolor": EDGE,
        }
        if horizontal:
            ax.barh(labels, values, left=base, linewidth=0.3, **style)
        else:
            ax.bar(labels, values, bottom=base, linewidth=0.3, **style)
        base = [a + b for a, b in zip(base, values, strict=True)]
    _write_totals(ax, base, horizontal)


def _write_totals(ax: Axes, totals: list[float], horizontal: bool) -> None:
    """The bar's total in millions, just past its end, so no one has to read it off the axis."""
    for i, total in enumerate(totals):
        if horizontal:
            ax.annotate(f" {total:,.1f}", (total, i), va="center", ha="left", fontsize=8)
        else:
            ax.annotate(f"{total:,.1f}", (i, total), va="bottom", ha="center", fontsize=8)


def _rows(figures: tuple[JurisdictionFigures, ...]) -> list[dict[str, int]]:
    return [{key: getattr(f, key) for key, *_ in LAYERS} for f in figures]


def year_figure(impact: YearImpact) -> Figure:
    """Horizontal stacked bars, one per province or territory, for one fiscal year."""
    figures = tuple(reversed(impact.jurisdictions))  # first jurisdiction at the top
    labels = [f"{NAMES[f.code]} ({f.code}, {f.delivery})" for f in figures]
    fig = Figure(figsize=(11, 7.5), layout="constrained")
    ax = fig.add_subplot()
    _stack(ax, labels, _rows(figures), horizontal=True)
    fig.suptitle(  # over the whole figure: the axes alone are too narrow for the summary
        f"Who pays for the Canada Job Grant in {impact.fiscal_year}, by province and territory\n"
        f"{_subtitle(impact.policy, impact.scenario, impact.totals())}",
        fontsize=10,
    )
    ax.set_xlabel(
        f"Millions of dollars in fiscal year {impact.fiscal_year} "
        "(the number after each bar is the sum of the four parts)"
    )
    ax.set_ylabel("Province or territory (delivery mode)")
    ax.legend(loc="lower right", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    ax.margins(x=0.12)
    return fig


def years_figure(impacts: list[YearImpact]) -> Figure:
    """Vertical stacked bars of the national totals, one per fiscal year."""
    labels = [impact.fiscal_year for impact in impacts]
    rows = [impact.totals() for impact in impacts]
    fig = Figure(figsize=(10, 6.5), layout="constrained")
    ax = fig.add_subplot()
    _stack(ax, labels, rows, horizontal=False)
    ax.set_title(
        f"Who pays for the Canada Job Grant, {labels[0]} to {labels[-1]}: national totals\n"
        f"Policy {impacts[0].policy}, scenario {impacts[0].scenario or 'none'}; the number on "
        "each bar is the sum of the four parts",
        fontsize=10,
    )
    ax.set_xlabel("Fiscal year (April 1 to March 31)")
    ax.set_ylabel("Millions of dollars")
    ax.legend(loc="upper left", fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.margins(y=0.1)
    return fig


def save(fig: Figure, path: Path) -> None:
    """Write a PNG or SVG (chosen by the suffix).

    SVG text stays text (screen readers and search can read the title and legend), and SVGs
    carry no date so that the same figures give the same file.
    """
    if path.suffix == ".svg":
        with rc_context({"svg.fonttype": "none"}):
            fig.savefig(path, format="svg", metadata={"Date": None})
    else:
        fig.savefig(path, format="png", dpi=110)
