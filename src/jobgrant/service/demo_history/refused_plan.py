"""The demonstration's comparison group, drawn: applications refused for lack of budget, whose
employers are asked at 3 and 12 months about the people they named, with their consent.

Pure Python, as `plan` is: each (fiscal year, jurisdiction) of `history.refused_per_year` draws
its refused files from a generator of its own, seeded by the plan's seed, the year and the
jurisdiction, so the plan's one sequence of draws (and every funded file) stays as it was. A
refused file is drawn as a funded one is (`plan._file`: its trainees, costs and course), then
moved to February after the year (applied for once the intake's budget is closed), its
training in March, in whole weeks.

Only what the net outcomes need is walked for a refused file (`comparison_steps`): its
application, recommendation, refused approval and denial, the worker's comparison jobs and the
employer's consent and answers; not the wizard's timings nor anything after a decision.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from dataclasses import dataclass, field
from typing import Any

from jobgrant.service.demo_history.plan import (
    EMPLOYER_NAMES,
    Answer,
    EmployerPlan,
    FilePlan,
    Plan,
    Rate,
    _Draw,
    _employers,
    _file,
    _weekday,
    load_rates,
)

MILESTONES = (3, 12)
#: Refused files are numbered from here (a funded file's number is its place in the plan).
FIRST_NUMBER = 10_001
#: The day the demonstration closes an intake's budget: after its funded files' approvals
#: (applied for by 20 January, decided within two weeks), before its refused files'.
CLOSE_BUDGET = (2, 6)  # 6 February of the year after the fiscal year starts


@dataclass(frozen=True)
class RefusedPlan:
    file: FilePlan
    consents: bool
    #: (months, trainee position) -> what the employer says, or that it does not answer.
    answers: dict[tuple[int, int], Answer] = field(default_factory=dict)


def with_refused(plan: Plan) -> Plan:
    """The plan with its refused files: `history.refused_per_year` for the jurisdictions and
    the fiscal years its funded files are in."""
    if not plan.files:
        return plan
    settings, rates = load_rates()
    wanted = settings["history"].get("refused_per_year") or {}
    present = {f.jurisdiction for f in plan.files}
    per_year = {code: n for code, n in wanted.items() if code in present}
    years = (min(f.fiscal_year for f in plan.files), max(f.fiscal_year for f in plan.files))
    others = comparison_employers(plan.seed, per_year, plan.employers, rates)
    refused = make_refused(plan.seed, per_year, years, others, settings, rates)
    return dataclasses.replace(plan, employers=plan.employers + others, refused=refused)


def comparison_employers(
    seed: int,
    per_year: dict[str, int],
    funded: tuple[EmployerPlan, ...],
    rates: dict[str, Rate],
) -> tuple[EmployerPlan, ...]:
    """The refused files' employers: firms of their own (the budget ran out on others than
    those it funded), about one for every two refused files a year, drawn as the funded files'
    employers are (`plan._employers`, from a generator of their own), numbered after them, each
    with a name no other employer of its jurisdiction has."""
    draw = _Draw(seed, rates)
    draw.random = random.Random(f"refused-employers:{seed}")
    used = {(e.jurisdiction, e.name) for e in funded}
    made: list[EmployerPlan] = []
    for drawn in _employers(draw, per_year):
        number = len(funded) + len(made) + 1
        names = (
            f"{EMPLOYER_NAMES[(number + i) % len(EMPLOYER_NAMES)]} ({drawn.jurisdiction})"
            for i in range(len(EMPLOYER_NAMES))
        )
        name = next((n for n in names if (drawn.jurisdiction, n) not in used), drawn.name)
        used.add((drawn.jurisdiction, name))
        made.append(dataclasses.replace(drawn, number=number, name=name))
    return tuple(made)


def make_refused(
    seed: int,
    per_year: dict[str, int],
    years: tuple[int, int],
    employers: tuple[EmployerPlan, ...],
    settings: dict[str, Any],
    rates: dict[str, Rate],
) -> tuple[RefusedPlan, ...]:
    made: list[RefusedPlan] = []
    sins = iter(range(900_000, 10**6))
    for year in range(years[0], years[1] + 1):
        for jurisdiction, count in sorted(per_year.items()):
            mine = [e for e in employers if e.jurisdiction == jurisdiction]
            if not mine:
                continue
            draw = _Draw(seed, rates)
            draw.random = random.Random(f"refused:{seed}:{year}:{jurisdiction}")
            draw.random.shuffle(mine)  # each firm once before any applies again
            for index in range(count):
                employer = mine[index % len(mine)]
                number = FIRST_NUMBER + len(made)
                drawn = _file(draw, number, year, employer, settings["history"], sins)
                made.append(_refused(draw, _in_february(draw, drawn, year)))
    return tuple(made)


def close_budget_on(year: int) -> dt.date:
    month, day = CLOSE_BUDGET
    return dt.date(year + 1, month, day)


def _in_february(draw: _Draw, drawn: FilePlan, year: int) -> FilePlan:
    """Applied for in the two weeks after the budget closed, for a course of whole weeks
    (Monday to Friday) starting two to four weeks later: the planned ends, and so the days the
    comparison's questions fall due, are a few Fridays, shared by many files (the worker's jobs
    run on fewer days)."""
    received = _weekday(close_budget_on(year) + dt.timedelta(days=draw.random.randint(3, 16)))
    start = _monday(received + dt.timedelta(days=draw.random.randint(14, 24)))
    end = start + dt.timedelta(weeks=draw.random.choice((2, 4, 6)), days=-3)
    return FilePlan(**{**drawn.__dict__, "received_on": received, "start": start, "end": end})


def _monday(day: dt.date) -> dt.date:
    return day + dt.timedelta(days=-day.weekday() % 7)


def _refused(draw: _Draw, file: FilePlan) -> RefusedPlan:
    answers: dict[tuple[int, int], Answer] = {}
    for months in MILESTONES:
        answered = draw.chance(f"comparison_response_{months}_months")
        for trainee in file.trainees:
            employed = draw.chance(f"comparison_employed_at_{months}_months")
            same = draw.chance(f"same_employer_if_employed_{months}_months") if employed else None
            hours = draw.random.choice((37, 40, 40, 44)) if employed else None
            wage = trainee.wage_before_cents if employed else None
            answers[(months, trainee.position)] = Answer(
                answered, False, employed, same, hours, wage
            )
    return RefusedPlan(file, draw.chance("comparison_consent"), answers)
