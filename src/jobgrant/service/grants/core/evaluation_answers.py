"""The answers an application gives for the evaluation of net outcomes, checked: the employer's
answer to the counterfactual question ("Would this training have happened without the grant?")
and each named trainee's baseline (employed or not; if employed, the wage band and the usual
weekly hours).

It also checks each trainee's `under_represented` answer (true when the trainee agreed to be
declared from a group under-represented in the labour market): read only by the ranking's inputs
(grants/ranking/inputs.py), never by the quote, so it is kept and taken out of the kernel's
input in the same way.

All are optional (an application without them is counted as "not answered"), are kept in the
application's stored request as sent, and are never read by the rules kernel: `for_the_kernel`
takes them out of the quote input. Every bad field is named in English and French and nothing is
written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.models.applications import Counterfactual, WageBand

COUNTERFACTUAL = "counterfactual"
BASELINE = "baseline"
UNDER_REPRESENTED = "under_represented"
#: The trainee's fields the kernel never reads (they change no figure).
TRAINEE_ANSWERS = frozenset({BASELINE, UNDER_REPRESENTED})
BASELINE_FIELDS = ("employed", "wage_band", "weekly_hours")
MAX_WEEKLY_HOURS = 168


def for_the_kernel(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The payload without the evaluation's answers and the trainees' under-represented answers
    (the kernel refuses fields it does not know, and they change no figure)."""
    request = {k: v for k, v in payload.items() if k != COUNTERFACTUAL}
    trainees = request.get("trainees")
    if isinstance(trainees, list):
        request["trainees"] = [
            {k: v for k, v in t.items() if k not in TRAINEE_ANSWERS} if isinstance(t, dict) else t
            for t in trainees
        ]
    return request


def check_evaluation_answers(payload: Mapping[str, Any]) -> str:
    """The counterfactual answer ("" when not given) after checking it and every trainee's
    baseline and under-represented answer; raises bad_input naming every bad field."""
    problems: list[dict[str, str]] = []
    answer = payload.get(COUNTERFACTUAL, "")
    if answer not in ("", None, *Counterfactual.values):
        choices = ", ".join(Counterfactual.values)
        problems.append(
            problem(
                COUNTERFACTUAL,
                f"must be one of: {choices} (or left out)",
                f"doit être l'un des choix suivants : {choices} (ou omis)",
            )
        )
    trainees = payload.get("trainees")
    for i, trainee in enumerate(trainees if isinstance(trainees, list) else []):
        if isinstance(trainee, Mapping) and BASELINE in trainee:
            problems += baseline_problems(trainee[BASELINE], f"trainees[{i}].{BASELINE}")
        answer_given = isinstance(trainee, Mapping) and UNDER_REPRESENTED in trainee
        if answer_given and not isinstance(trainee[UNDER_REPRESENTED], bool):
            problems.append(
                problem(
                    f"trainees[{i}].{UNDER_REPRESENTED}",
                    "must be true or false (or left out)",
                    "doit être true ou false (ou omis)",
                )
            )
    if problems:
        raise bad_input(problems)
    return str(answer or "")


def baseline_problems(raw: object, path: str) -> list[dict[str, str]]:
    """What is wrong with one trainee's baseline: {employed, wage_band, weekly_hours}."""
    if not isinstance(raw, Mapping):
        return [problem(path, "must be an object of answers", "doit être un objet de réponses")]
    problems = [
        problem(f"{path}.{key}", "is not a known field", "n'est pas un champ connu")
        for key in raw
        if key not in BASELINE_FIELDS
    ]
    employed = raw.get("employed")
    if not isinstance(employed, bool):
        problems.append(
            problem(f"{path}.employed", "must be true or false", "doit être true ou false")
        )
    elif employed:
        problems += _employed_problems(raw, path)
    elif raw.get("wage_band") or raw.get("weekly_hours"):
        problems.append(
            problem(
                f"{path}.wage_band",
                "is given only for a trainee who is employed",
                "n'est donné que pour une personne en emploi",
            )
        )
    return problems


def _employed_problems(raw: Mapping[str, Any], path: str) -> list[dict[str, str]]:
    problems = []
    if raw.get("wage_band") not in WageBand.values:
        bands = ", ".join(WageBand.values)
        problems.append(
            problem(
                f"{path}.wage_band",
                f"must be one of: {bands}",
                f"doit être l'un des choix suivants : {bands}",
            )
        )
    hours = raw.get("weekly_hours")
    if isinstance(hours, bool) or not isinstance(hours, int) or not 1 <= hours <= MAX_WEEKLY_HOURS:
        problems.append(
            problem(
                f"{path}.weekly_hours",
                f"must be a whole number of hours a week, from 1 to {MAX_WEEKLY_HOURS}",
                f"doit être un nombre entier d'heures par semaine, de 1 à {MAX_WEEKLY_HOURS}",
            )
        )
    return problems
