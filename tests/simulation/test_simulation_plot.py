"""The simulator's plots: no label lies over another, and no legend over the data, with every
model year on the axis and the French words (the longest)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pytest

from jobgrant.funding.years import MODEL_YEARS
from jobgrant.simulation.montecarlo import Results, RunSpec
from jobgrant.simulation.plot import WORDS, figure
from jobgrant.simulation.year import PLACES, measures

FRENCH = {
    **WORDS,
    "federal": "Fédéral",
    "provincial": "Provincial ou territorial",
    "employer": "Employeurs",
    "money_axis": "Millions de dollars (moyenne, bande de 5 à 95 %)",
    "who_pays_title": "Qui paie quoi, Canada — {scenario}",
    "employees": "Employés",
    "applying_axis": "Entreprises qui présentent une demande (%)",
    "take_up_title": "Participation selon la taille de l'entreprise, {year}",
    "committed_axis": "Budget engagé (%)",
    "spent_title": "Budget dépensé au cours de {year}",
    "scenario_names": {"final-deal-2014": "L'entente finale de 2014, telle que signée"},
}


def results() -> Results:
    """Figures of the right shape for every model year (the plots draw what they are given)."""
    rng = np.random.default_rng(1)
    shape = (3, len(MODEL_YEARS), len(PLACES), len(measures()))
    figures = rng.uniform(0.0, 1.0, shape) * 100_000_000
    first = measures().index("spent_share.month.01")
    figures[..., first : first + 12] = np.sort(rng.uniform(0, 1, (*shape[:3], 12)), axis=-1)
    spec = RunSpec("scenarios/final-deal-2014.yaml", tuple(MODEL_YEARS), 3)
    return Results(spec, "final-deal-2014", figures)


def overlap(a: Any, b: Any) -> bool:
    return a.x0 < b.x1 - 1 and b.x0 < a.x1 - 1 and a.y0 < b.y1 - 1 and b.y0 < a.y1 - 1


@pytest.mark.parametrize("words", [WORDS, FRENCH], ids=["en", "fr"])
def test_no_label_lies_over_another_and_no_legend_over_the_data(words: dict[str, Any]) -> None:
    fig = figure([results()], words)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems = []
    titles = []
    for ax in fig.axes:
        ticks = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ticks]
        problems += [f"{a} over {b}" for (a, x), (b, y) in combinations(boxes, 2) if overlap(x, y)]
        titles.append((ax.get_title(), ax.title.get_window_extent(renderer)))
        legend = ax.get_legend()
        if legend is not None and overlap(legend.get_window_extent(renderer), ax.bbox):
            problems.append(f"the legend of {ax.get_title()!r} lies over its plot")
    problems += [f"{a} over {b}" for (a, x), (b, y) in combinations(titles, 2) if overlap(x, y)]
    assert problems == []
    said = " ".join(" ".join(t.split()) for t, _ in titles)
    assert "L'entente finale de 2014" in said or words is WORDS  # its name, not its code
