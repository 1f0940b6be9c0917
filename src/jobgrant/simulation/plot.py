"""The simulator's plots (matplotlib, Agg): who pays what with bands, take-up by firm size, and
the budget spent through the year in each jurisdiction; two scenarios side by side."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np

from jobgrant.simulation.derive import SIZE_CLASSES
from jobgrant.simulation.montecarlo import Results
from jobgrant.simulation.year import MONTHS, NATIONAL, PLACES, measures

PARTIES = ("federal", "provincial", "employer")
#: The plots' words; a caller writing in another language passes its own (the service's page).
WORDS: dict[str, Any] = {
    "federal": "Federal",
    "provincial": "Provincial / territorial",
    "employer": "Employers",
    "money_axis": "Millions of dollars (mean, 5–95% band)",
    "who_pays_title": "Who pays what, Canada — {scenario}",
    "employees": "Employees",
    "applying_axis": "Businesses applying (%)",
    "take_up_title": "Take-up by firm size, {year}",
    "committed_axis": "Budget committed (%)",
    "spent_title": "Budget spent through {year}",
    "months": ("Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "Jan", "Feb", "Mar"),
}
MONTH_LABELS = WORDS["months"]


def figure(results: list[Results], words: dict[str, Any] | None = None) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = len(results)
    # Constrained layout keeps every label, title and legend (each below its plot, never over
    # the data) apart from the others.
    fig, axes = plt.subplots(rows, 3, figsize=(17, 6 * rows), squeeze=False, layout="constrained")
    w = {**WORDS, **(words or {})}
    for row, result in enumerate(results):
        _who_pays(axes[row][0], result, w)
        _take_up(axes[row][1], result, w)
        _budget_spent(axes[row][2], result, w)
    return fig


def _title(ax: Any, text: str) -> None:
    """A plot's title, on two lines when it is too long for the plot's width."""
    ax.set_title(textwrap.fill(text, 42))


def _legend_below(ax: Any, columns: int) -> None:
    ax.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=columns, fontsize=8, frameon=False
    )


def scenario_name(result: Results, w: dict[str, Any]) -> str:
    """The scenario's name in the words' language (`scenario_names`), else its code."""
    return str(w.get("scenario_names", {}).get(result.scenario, result.scenario))


def _who_pays(ax: Any, result: Results, w: dict[str, Any]) -> None:
    mean, low, high = result.band()
    names, p = measures(), PLACES.index(NATIONAL)
    years = result.spec.years
    x = np.arange(len(years))
    width = 0.27
    for k, name in enumerate(PARTIES):
        i = names.index(name)
        m = mean[:, p, i] / 1e6
        err = np.vstack([m - low[:, p, i] / 1e6, high[:, p, i] / 1e6 - m])
        ax.bar(x + (k - 1) * width, m, width, yerr=err, capsize=3, label=w[name])
    ax.set_xticks(x, years, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_ylabel(w["money_axis"])
    _title(ax, w["who_pays_title"].format(scenario=scenario_name(result, w)))
    _legend_below(ax, 3)


def _take_up(ax: Any, result: Results, w: dict[str, Any]) -> None:
    mean, low, high = result.band()
    names, p = measures(), PLACES.index(NATIONAL)
    y = len(result.spec.years) - 1
    columns = [names.index(f"take_up.size.{s}") for s in SIZE_CLASSES]
    m = mean[y, p, columns] * 100
    err = np.vstack([m - low[y, p, columns] * 100, high[y, p, columns] * 100 - m])
    ax.bar(SIZE_CLASSES, m, yerr=err, capsize=3, color="tab:green")
    ax.tick_params(axis="x", labelrotation=45)
    for label in ax.get_xticklabels():
        label.set_horizontalalignment("right")
        label.set_rotation_mode("anchor")
    ax.set_xlabel(w["employees"])
    ax.set_ylabel(w["applying_axis"])
    _title(ax, w["take_up_title"].format(year=result.spec.years[y]))


def _budget_spent(ax: Any, result: Results, w: dict[str, Any]) -> None:
    mean = result.band()[0]
    names = measures()
    first = names.index("spent_share.month.01")
    years = result.spec.years
    y = 1 if len(years) > 1 and years[0] == "2014-15" else 0  # 2014-15's intakes opened late
    import matplotlib.pyplot as plt

    palette = plt.get_cmap("tab20")
    ax.set_prop_cycle(color=[palette(i) for i in range(20)])
    for p, code in enumerate(PLACES):
        budget = (
            mean[y, p, names.index("budget_federal")] + mean[y, p, names.index("budget_provincial")]
        )
        if budget <= 0:
            continue
        share = mean[y, p, first : first + MONTHS] * 100
        style = {"color": "black", "linewidth": 2.5} if code == NATIONAL else {"linewidth": 1}
        ax.plot(w["months"], share, label=code, **style)
    ax.set_ylim(0, 105)
    ax.tick_params(axis="x", labelrotation=45)
    ax.set_ylabel(w["committed_axis"])
    _title(ax, w["spent_title"].format(year=result.spec.years[y]))
    _legend_below(ax, 7)


def save(fig: Any, path: Path) -> None:
    fig.savefig(path, dpi=110 if path.suffix == ".png" else None)
