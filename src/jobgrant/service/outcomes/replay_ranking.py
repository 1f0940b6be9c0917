"""A ranked intake's files ranked again under the replay's other policy.

The ranking's score reads the kernel's figures (the government cost per trainee), so another
policy may move a file up or down. The files the other policy finds eligible are scored by the
stream's criteria set (`rules.scoring`), with the parameters in force on the day the intake
closed, as the ranking scored them: the same inputs (the lead employer's size, the trainees, the
region, "first time" as recorded when the intake was ranked), with the government share the
other policy quotes. They are then ordered as the ranking orders them (the higher score, the
earlier submission, the lower file number), and the budget is spent in that order. A file the
other policy does not find eligible has no rank.

The score reads each file's quote of the batch (its employers' approvals outside the intake
counted): a file quoted again during the walk for the per-employer cap keeps its place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from jobgrant.rules.scoring.criteria import UnknownCriteriaSetError, criteria_set
from jobgrant.rules.scoring.ranking import rank_order
from jobgrant.rules.scoring.score import score
from jobgrant.service.grants.models.applications import Application, Intake
from jobgrant.service.grants.ranking.inputs import scoring_inputs, submission_instants


@dataclass(frozen=True)
class Reranked:
    """Per file (in the replay's order): its place and score under the other policy, None
    where it is not eligible; and the file indexes in the order the budget is spent."""

    ranks: list[int | None]
    scores: list[int | None]
    order: list[int]


def rerank(
    intake: Intake, applications: list[Application], government_cents: Sequence[int | None]
) -> Reranked | None:
    """The files ranked again with `government_cents` (None: not eligible under the other
    policy); None where the stream has no criteria set the kernel knows."""
    try:
        criteria = criteria_set(intake.stream.scoring)
    except UnknownCriteriaSetError:
        return None
    rows = [i for i, cents in enumerate(government_cents) if cents is not None]
    chosen = [applications[i] for i in rows]
    ranks: list[int | None] = [None] * len(applications)
    scores: list[int | None] = [None] * len(applications)
    order: list[int] = []
    if chosen:
        inputs = scoring_inputs(
            chosen,
            government_cents=[int(government_cents[i] or 0) for i in rows],
            first_time=recorded_first_time(chosen),
        )
        totals = score(inputs, criteria, intake.stream.program.jurisdiction, intake.closes_on)
        places = rank_order(
            totals.total,
            submission_instants(chosen),
            np.array([a.pk for a in chosen], dtype=np.int64),
        )
        for place, row in enumerate(places.tolist()):
            ranks[rows[row]] = place + 1
            scores[rows[row]] = int(totals.total[row])
            order.append(rows[row])
    order += [i for i, rank in enumerate(ranks) if rank is None]
    return Reranked(ranks, scores, order)


def recorded_first_time(applications: list[Application]) -> dict[int, bool]:
    """ "First time" as the ranking recorded it (`IntakeRank.points`), for the files it ranked."""
    known: dict[int, bool] = {}
    for application in applications:
        rank = getattr(application, "intake_rank", None)
        step = (rank.points or {}).get("first_time") if rank is not None else None
        answer = (step or {}).get("inputs", {}).get("first_time")
        if answer in ("true", "false"):
            known[application.pk] = answer == "true"
    return known
