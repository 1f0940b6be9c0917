"""A rank in words: each criterion's points as a sentence, and the parameters it read.

The rules kernel stores, per criterion, its points, formula, inputs and the parameters read
(grants.IntakeRank.points); this turns them into what the officer, the program manager and the
report read, in the page's language.
"""

from __future__ import annotations

from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from jobgrant.rules.codes import economic_regions
from jobgrant.service.grants.models.ranking import IntakeRank
from jobgrant.service.web.explanations import Parameter
from jobgrant.service.web.templatetags.jobgrant import longdate, money, number

CRITERION_LABELS: dict[str, Promise] = {
    "small_business": gettext_lazy("Small business"),
    "new_hires": gettext_lazy("New hires or unemployed trainees"),
    "under_represented": gettext_lazy("Under-represented groups"),
    "regional_priority": gettext_lazy("Regional priority"),
    "first_time": gettext_lazy("First-time applicant"),
    "cost_per_trainee": gettext_lazy("Government cost per trainee"),
}
PARAMETER_LABELS: dict[str, Promise] = {
    "ranking.small_business.max_employees": gettext_lazy("Most employees of a small business"),
    "ranking.small_business.points": gettext_lazy("Points for a small business"),
    "ranking.new_hires.points": gettext_lazy("Most points for new hires or unemployed trainees"),
    "ranking.under_represented.points": gettext_lazy(
        "Most points for trainees of under-represented groups"
    ),
    "ranking.regional_priority.points": gettext_lazy("Points for the economic region"),
    "ranking.first_time.points": gettext_lazy("Points for a first-time applicant"),
    "ranking.cost_per_trainee.points": gettext_lazy("Most points for the cost per trainee"),
    "ranking.cost_per_trainee.full_points_up_to": gettext_lazy(
        "Cost per trainee earning all the points, at most"
    ),
    "ranking.cost_per_trainee.half_points_up_to": gettext_lazy(
        "Cost per trainee earning half the points, at most"
    ),
}
MONEY_PARAMETERS = frozenset(
    {"ranking.cost_per_trainee.full_points_up_to", "ranking.cost_per_trainee.half_points_up_to"}
)


def _value(name: str, value: str) -> str:
    if name in MONEY_PARAMETERS:
        return money(value)
    return number(int(value)) if value.isdigit() else value


def _read(step: dict[str, Any]) -> dict[str, str]:
    return {str(p["name"]): str(p["value"]) for p in step.get("parameters") or []}


def _sentence(criterion: str, step: dict[str, Any]) -> str:
    inputs, read = step.get("inputs") or {}, _read(step)
    count = int(step["points"])
    # "0 point" and "1 point" in French, "1 point" in English: the word follows the number.
    points = ngettext("%(points)s point", "%(points)s points", count) % {"points": number(count)}
    if criterion == "small_business":
        return _(
            "The lead employer had %(employees)s employees when it applied; a small business "
            "has at most %(most)s: %(points)s."
        ) % {
            "employees": inputs.get("employees", ""),
            "most": read.get("ranking.small_business.max_employees", ""),
            "points": points,
        }
    if criterion in ("new_hires", "under_represented"):
        counted = inputs.get(criterion, "0")
        most = read.get(f"ranking.{criterion}.points", "0")
        n = int(str(counted)) if str(counted).isdigit() else 0
        sentence = (
            ngettext(
                "%(count)s of %(trainees)s trainees is a new hire or unemployed",
                "%(count)s of %(trainees)s trainees are new hires or unemployed",
                n,
            )
            if criterion == "new_hires"
            else ngettext(
                "%(count)s of %(trainees)s trainees declared an under-represented group",
                "%(count)s of %(trainees)s trainees declared an under-represented group",
                n,
            )
        )
        return ngettext(
            "%(fact)s: %(points)s of %(most)s points, in proportion.",
            "%(fact)s: %(points)s of %(most)s points, in proportion.",
            count,
        ) % {
            "fact": sentence % {"count": counted, "trainees": inputs.get("trainees", "")},
            "points": number(count),
            "most": most,
        }
    return _other_sentence(criterion, inputs, read, points)


def _other_sentence(
    criterion: str, inputs: dict[str, Any], read: dict[str, str], points: str
) -> str:
    if criterion == "regional_priority":
        region = economic_regions().get(str(inputs.get("region") or ""))
        name = region.display_name if region else _("not given")
        return _("The training's economic region (%(region)s) is worth %(points)s.") % {
            "region": name,
            "points": points,
        }
    if criterion == "first_time":
        if inputs.get("first_time") == "true":
            return _("The employer has no earlier approved application: %(points)s.") % {
                "points": points
            }
        return _("The employer had an application approved before: no points.")
    return _(
        "The government would pay %(cost)s per trainee; at most %(full)s earns all %(most)s "
        "points, at most %(half)s half of them: %(points)s."
    ) % {
        "cost": money(str(inputs.get("cost_per_trainee", "0"))),
        "full": money(read.get("ranking.cost_per_trainee.full_points_up_to", "0")),
        "half": money(read.get("ranking.cost_per_trainee.half_points_up_to", "0")),
        "most": number(int(read.get("ranking.cost_per_trainee.points", "0"))),
        "points": points,
    }


def _parameters(step: dict[str, Any]) -> list[Parameter]:
    return [
        Parameter(
            code=str(p["name"]),
            label=str(PARAMETER_LABELS.get(str(p["name"]), p["name"])),
            value=_value(str(p["name"]), str(p["value"])),
            effective_date=longdate(str(p["effective_date"])),
            layer=_("national scoring parameters")
            if p["layer"] == "parameters"
            else _("criteria set %(name)s") % {"name": p["layer"]},
            references=list(p.get("reference") or []),
        )
        for p in step.get("parameters") or []
    ]


def point_rows(rank: IntakeRank) -> list[dict[str, Any]]:
    """One row per criterion: its name, points, the sentence that says why, what it read."""
    return [
        {
            "criterion": criterion,
            "label": str(CRITERION_LABELS.get(criterion, criterion)),
            "points": int(step["points"]),
            "why": _sentence(criterion, step),
            "parameters": _parameters(step),
        }
        for criterion, step in (rank.points or {}).items()
        if criterion != "total"
    ]


def cut_off_sentence(rank: IntakeRank) -> str:
    """Why the file is above or below the cut-off, in its running totals."""
    totals = {
        "federal": money(rank.federal_running_cents),
        "provincial": money(rank.provincial_running_cents),
    }
    if rank.within_budget:
        return (
            _(
                "With the files ranked above it, it needs %(federal)s from the federal budget and "
                "%(provincial)s from the provincial budget: within the intake's budget."
            )
            % totals
        )
    return (
        _(
            "With the files ranked above it, it would need %(federal)s from the federal budget and "
            "%(provincial)s from the provincial budget: the intake's budget runs out before it."
        )
        % totals
    )
