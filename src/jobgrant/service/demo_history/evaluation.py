"""The demonstration files' answers for the net outcomes: each trainee's baseline and the
employer's answer to "would this training have happened without the grant?", at application
and in the completion report.

Drawn from a generator of their own, seeded by the file's number and day, so that the plan's one
sequence of draws (and every figure already drawn from it) stays as it was.

The shares (of "yes, as planned", later, smaller, no) are an analogue and an assumption:
38 % of refused Canada Summer Jobs applicants hired anyway (ESDC, Evaluation of the Canada
Summer Jobs program, 2019: the share that would have happened without the subsidy); England's
Train to Gain evaluation found about half of the training would have happened anyway. We use
0.38 for "yes, as planned", and split the rest as our assumption: later 0.17, smaller 0.15,
no 0.30; the completion report repeats the application's answer 4 times in 5 (an assumption).
"""

from __future__ import annotations

import random
from typing import Any

from jobgrant.service.demo_history.plan import FilePlan, TraineePlan

ANSWERS = (("yes", 0.38), ("yes-later", 0.17), ("yes-smaller", 0.15), ("no", 0.30))
SAME_ANSWER_AT_COMPLETION = 0.8
#: Hourly wage bands, in cents, by their code (applications.WageBand).
BANDS = (("under-20", 20_00), ("20-30", 30_00), ("30-40", 40_00), ("40-plus", None))


def _draws(plan: FilePlan) -> random.Random:
    return random.Random(f"evaluation:{plan.number}:{plan.received_on.isoformat()}")


def _answer(draws: random.Random) -> str:
    return draws.choices([a for a, _ in ANSWERS], [w for _, w in ANSWERS])[0]


def counterfactual_answers(plan: FilePlan) -> tuple[str, str]:
    """(at application, in the completion report)."""
    draws = _draws(plan)
    first = _answer(draws)
    again = first if draws.random() < SAME_ANSWER_AT_COMPLETION else _answer(draws)
    return first, again


def baseline(trainee: TraineePlan) -> dict[str, Any]:
    """An existing employee is employed, in the band of the wage drawn for them; a new hire
    is not employed."""
    if trainee.wage_before_cents is None:
        return {"employed": False}
    band = next(code for code, top in BANDS if top is None or trainee.wage_before_cents < top)
    return {
        "employed": True,
        "wage_band": band,
        "weekly_hours": 40 if trainee.full_time else 30,
    }
