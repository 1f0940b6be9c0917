"""The quote of an application laid out for an officer: each figure with how it was computed.

The rules kernel stores, with every application, one explanation step per computed figure
(target, value, formula, inputs, and the parameters read with their effective dates and
sources). Its formulas are written in English for developers; here each formula is said again
in plain words in the page's language, chosen by the figure it computes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.rules.evaluate import default_library
from jobgrant.rules.parameters import Unit
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.language import in_language, localized
from jobgrant.service.web.labels import DELIVERY_LABELS
from jobgrant.service.web.templatetags.jobgrant import longdate, money, number

FIGURE_LABELS = {
    "direct_cost": gettext_lazy("Direct training costs"),
    "in_kind": gettext_lazy("Wages counted in kind"),
    "eligible_cost": gettext_lazy("Eligible cost"),
    "federal": gettext_lazy("Federal share"),
    "provincial": gettext_lazy("Provincial or territorial share"),
    "employer": gettext_lazy("Employer share"),
    "government": gettext_lazy("Government share (federal + provincial)"),
}
TRAINEE_FIGURES = ("direct_cost", "in_kind", "eligible_cost", "federal", "provincial", "employer")
TOTAL_FIGURES = ("eligible_cost", "federal", "provincial", "employer", "in_kind", "government")
EMPLOYER_FIGURES = ("eligible_cost", "federal", "provincial", "employer", "in_kind")
INPUT_LABELS = {
    "tuition": gettext_lazy("Tuition or trainer fees"),
    "student_fees": gettext_lazy("Mandatory student fees"),
    "materials": gettext_lazy("Textbooks, software and other materials"),
    "exam_fees": gettext_lazy("Examination fees"),
    "wages_in_kind": gettext_lazy("Wages the employer counts in kind"),
    "employees": gettext_lazy("Employees of the employer"),
    "delivery": gettext_lazy("Delivery"),
    **FIGURE_LABELS,
}
PARAMETER_LABELS = {
    "cjg.grant_available": gettext_lazy("The grant is offered in this jurisdiction"),
    "cjg.federal.rate": gettext_lazy("Federal share of each trainee's eligible cost"),
    "cjg.federal.max_per_trainee": gettext_lazy("Most federal money per trainee"),
    "cjg.provincial.rate": gettext_lazy("Provincial or territorial share of eligible cost"),
    "cjg.provincial.max_per_trainee": gettext_lazy(
        "Most provincial or territorial money per trainee"
    ),
    "cjg.unemployed.federal_rate": gettext_lazy("Government share for an unemployed hire"),
    "cjg.unemployed.federal_max_per_trainee": gettext_lazy(
        "Most government money for an unemployed hire"
    ),
    "cjg.unemployed.max_employees": gettext_lazy(
        "Largest employer the unemployed-hire rule applies to (employees)"
    ),
    "cjg.in_kind.max_share_of_employer": gettext_lazy(
        "Most of the employer's part that wages may count for"
    ),
    "cjg.in_kind.max_employees": gettext_lazy(
        "Largest employer that may count wages in kind (employees)"
    ),
    "cjg.training.third_party_required": gettext_lazy(
        "Training must be given by a third-party trainer"
    ),
    "cjg.application.must_precede_training": gettext_lazy(
        "The application must come before training starts"
    ),
    "cjg.application.min_lead_days": gettext_lazy(
        "Fewest days between the application and the start of training"
    ),
    "cjg.application.max_lead_days": gettext_lazy(
        "Most days between the application and the start of training"
    ),
    "cjg.training.min_hours": gettext_lazy("Fewest hours of training"),
    "cjg.training.max_duration_days": gettext_lazy("Longest training (days)"),
    "cjg.application.minimum_cost": gettext_lazy("Minimum eligible cost of an application"),
    "cjg.employer.max_government_per_fiscal_year": gettext_lazy(
        "Most government money per employer and fiscal year"
    ),
    "cjg.employer.cap_per_region": gettext_lazy(
        "The per-employer limit applies in each economic region"
    ),
}
REASON_LABELS = {
    "JURISDICTION_WITHOUT_GRANT": gettext_lazy(
        "There is no Canada Job Grant in this jurisdiction under this policy."
    ),
    "PROVIDER_NOT_THIRD_PARTY": gettext_lazy(
        "The training must be given by a third-party trainer; in-house training is not eligible."
    ),
    "TRAINING_SETTING_NOT_ELIGIBLE": gettext_lazy(
        "Training given in this setting is not eligible under this policy."
    ),
    "TRAINING_STARTED_BEFORE_APPLICATION": gettext_lazy(
        "Training must start after the application date."
    ),
    "APPLICATION_TOO_CLOSE_TO_START": gettext_lazy(
        "The application came too few days before training starts."
    ),
    "TRAINING_STARTS_TOO_FAR_AHEAD": gettext_lazy(
        "Training starts too long after the application."
    ),
    "TRAINING_TOO_LONG": gettext_lazy("The training lasts longer than the policy allows."),
    "TRAINING_TOO_SHORT": gettext_lazy("The training has fewer hours than the policy requires."),
    "MINIMUM_COST_NOT_MET": gettext_lazy(
        "The eligible training costs are below the policy's minimum."
    ),
    "TRAINEE_WITHOUT_ELIGIBLE_COSTS": gettext_lazy("A trainee has no eligible training costs."),
    "EMPLOYER_CAP_EXCEEDED": gettext_lazy(
        "An employer would receive more government money this fiscal year than the limit per "
        "employer allows."
    ),
}
MONEY_INPUTS = frozenset(
    {"tuition", "student_fees", "materials", "exam_fees", "wages_in_kind", *FIGURE_LABELS}
)
TARGET = re.compile(r"^(?:trainees\[(?P<index>\d+)\]|totals)\.(?P<figure>\w+)$")


def _formula(scope: str, figure: str, step: dict[str, Any]) -> str:
    """The step's formula in plain words, in the page's language."""
    if scope == "trainee":
        if figure == "federal" and str(step.get("formula", "")).startswith(
            "min(floor(eligible_cost x unemployed rate)"
        ):
            return _(
                "Eligible cost × the government rate for an unemployed hire, rounded down to "
                "the cent, up to that rule's maximum: the jurisdiction's rule for hiring an "
                "unemployed person applies."
            )
        return {
            "direct_cost": _(
                "Tuition or trainer fees + student fees + materials + examination fees."
            ),
            "in_kind": _(
                "The wages a small employer counts toward its share, up to the policy's limit "
                "(a part of the employer's share); zero for larger employers."
            ),
            "eligible_cost": _("Direct training costs + wages counted in kind."),
            "federal": _(
                "Eligible cost × federal rate, rounded down to the cent, up to the federal "
                "maximum per trainee; zero where the jurisdiction has no grant."
            ),
            "provincial": _(
                "Eligible cost × provincial or territorial rate, rounded down to the cent, up "
                "to its maximum per trainee, when the province or territory delivers the "
                "grant; otherwise zero."
            ),
            "employer": _(
                "Eligible cost − federal share − provincial or territorial share. Government "
                "shares are rounded down to the cent; the employer pays the rest, including "
                "the wages counted in kind."
            ),
        }.get(figure, "")
    return {
        "eligible_cost": _("The sum of the trainees' eligible costs."),
        "federal": _("The sum of the trainees' federal shares."),
        "provincial": _("The sum of the trainees' provincial or territorial shares."),
        "employer": _("The sum of the trainees' employer shares."),
        "in_kind": _("The sum of the wages counted in kind for the trainees."),
        "government": _("Total federal share + total provincial or territorial share."),
    }.get(figure, "")


@dataclass
class Parameter:
    code: str
    label: str
    value: str
    effective_date: str
    layer: str
    references: list[dict[str, str]]


@dataclass
class Explanation:
    formula: str
    inputs: list[tuple[str, str]] = field(default_factory=list)
    parameters: list[Parameter] = field(default_factory=list)


@dataclass
class Figure:
    key: str  # stable id part: "trainee-0-federal", "total-government"
    label: str
    amount: str  # decimal string, formatted by the template's money filter
    explanation: Explanation | None


@dataclass
class Group:
    key: str
    title: str
    figures: list[Figure]


@cache
def _units() -> dict[str, Unit]:
    return {name: d.unit for name, d in default_library().definitions.items()}


def _parameter_value(name: str, value: str) -> str:
    unit = _units().get(name)
    if value == "none":
        return _("no limit")
    if unit is Unit.CAD:
        return money(value)
    if unit is Unit.BOOLEAN:
        return _("yes") if value == "true" else _("no")
    if unit is Unit.RATIO:
        return value if "/" in value else number_text(value)
    return number_text(value)


def number_text(value: str) -> str:
    """ "120.00" or "50" as a number in the page's language ("120", "1 000,5")."""
    whole, _dot, fraction = value.partition(".")
    if not whole.lstrip("-").isdigit():
        return value
    text = number(int(whole))
    fraction = fraction.rstrip("0")
    if fraction.isdigit():
        text += in_language(en=".", fr=",") + fraction
    return text


def _layer(name: str) -> str:
    if name == "parameters":
        return _("national parameters")
    return _("policy %(name)s") % {"name": name}


def _input(name: str, value: str) -> tuple[str, str]:
    label = str(INPUT_LABELS.get(name, name))
    if name in MONEY_INPUTS:
        return label, money(value)
    if name == "delivery":
        return label, DELIVERY_LABELS.get(value, value)
    return label, number_text(value)


def explanation_of(step: dict[str, Any], scope: str, figure: str) -> Explanation:
    parameters = [
        Parameter(
            code=str(p["name"]),
            label=str(PARAMETER_LABELS.get(p["name"], p["name"])),
            value=_parameter_value(str(p["name"]), str(p["value"])),
            effective_date=longdate(str(p["effective_date"])),
            layer=_layer(str(p["layer"])),
            references=list(p.get("reference") or []),
        )
        for p in step.get("parameters") or []
    ]
    inputs = [_input(k, str(v)) for k, v in (step.get("inputs") or {}).items()]
    return Explanation(_formula(scope, figure, step), inputs, parameters)


def _steps(application: Application) -> dict[str, dict[str, Any]]:
    return {str(s["target"]): s for s in application.explanation or [] if isinstance(s, dict)}


def employer_names(application: Application) -> dict[str, str]:
    """The application's employer references ("acme") and the employers' registered names."""
    links = application.employers.select_related("employer")
    return {link.reference: link.employer.name for link in links}


def groups(application: Application) -> list[Group]:
    """One group per trainee, then the application's totals, each figure with its explanation."""
    steps = _steps(application)
    names = employer_names(application)
    quote = application.quote or {}
    result: list[Group] = []
    for trainee in quote.get("trainees") or []:
        index = int(trainee["index"])
        figures = []
        for name in TRAINEE_FIGURES:
            step = steps.get(f"trainees[{index}].{name}")
            amount = step["value"] if step else trainee.get(name)
            if amount is None:
                continue
            figures.append(
                Figure(
                    f"trainee-{index}-{name}",
                    str(FIGURE_LABELS[name]),
                    str(amount),
                    explanation_of(step, "trainee", name) if step else None,
                )
            )
        title = _("Trainee %(number)s (employer: %(employer)s)") % {
            "number": index + 1,
            "employer": names.get(str(trainee.get("employer_id")), trainee.get("employer_id", "")),
        }
        result.append(Group(f"trainee-{index}", title, figures))
    totals = quote.get("totals") or {}
    total_figures = [
        Figure(
            f"total-{name}",
            str(FIGURE_LABELS[name]),
            str(totals[name]),
            explanation_of(steps[f"totals.{name}"], "total", name)
            if f"totals.{name}" in steps
            else None,
        )
        for name in TOTAL_FIGURES
        if name in totals
    ]
    result.append(Group("total", _("The whole application"), total_figures))
    return result


def employer_rows(application: Application) -> list[dict[str, str]]:
    """Each employer's share (consortium applications): the sum of its trainees' figures."""
    names = employer_names(application)
    return [
        {
            "name": names.get(str(e.get("id")), str(e.get("id", ""))),
            **{name: str(e.get(name, "0.00")) for name in EMPLOYER_FIGURES},
        }
        for e in (application.quote or {}).get("employers") or []
    ]


def eligibility(application: Application) -> dict[str, Any]:
    """Whether the application is eligible, the reasons in the page's language, and the rules."""
    step = _steps(application).get("eligible")
    reasons = [
        localized(r) or str(r.get("code")) for r in (application.quote or {}).get("reasons") or []
    ]
    rules = explanation_of(step, "eligible", "eligible").parameters if step else []
    return {"eligible": application.eligible, "reasons": reasons, "rules": rules}


def reason_text(code: str) -> str:
    label: Promise | str = REASON_LABELS.get(code, code)
    return str(label)
