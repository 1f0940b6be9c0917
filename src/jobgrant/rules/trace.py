"""Explanations: every computed figure of an application, its formula and the parameters it read.

A trace is built after the array evaluation, for one application at a time, from the arrays the
kernel already holds: the figures in a trace are the figures of the quote, not recomputed.
Each parameter read carries its name, effective date, value, the layer it came from (policy,
provincial overlay or parameter file) and its sources.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from jobgrant.rules.evaluation import Evaluation
from jobgrant.rules.money import format_amount
from jobgrant.rules.parameters import Unit
from jobgrant.rules.policies import ResolvedValue

SHARE_PARAMETERS = {
    "federal": ("cjg.grant_available", "cjg.federal.rate", "cjg.federal.max_per_trainee"),
    "federal_unemployed": (
        "cjg.unemployed.federal_rate",
        "cjg.unemployed.federal_max_per_trainee",
        "cjg.unemployed.max_employees",
    ),
    "provincial": ("cjg.grant_available", "cjg.provincial.rate", "cjg.provincial.max_per_trainee"),
    "in_kind": ("cjg.in_kind.max_share_of_employer", "cjg.in_kind.max_employees"),
}
CHECK_PARAMETERS = (
    "cjg.training.third_party_required",
    "cjg.application.must_precede_training",
    "cjg.application.min_lead_days",
    "cjg.application.max_lead_days",
    "cjg.training.min_hours",
    "cjg.training.max_duration_days",
    "cjg.application.minimum_cost",
    "cjg.employer.max_government_per_fiscal_year",
    "cjg.employer.cap_per_region",
)


@dataclass(frozen=True)
class Step:
    target: str
    value: str
    formula: str
    inputs: dict[str, str] = field(default_factory=dict)
    parameters: tuple[str, ...] = ()

    def as_dict(
        self, resolved: dict[str, ResolvedValue], units: dict[str, Unit]
    ) -> dict[str, object]:
        return {
            "target": self.target,
            "value": self.value,
            "formula": self.formula,
            "inputs": self.inputs,
            "parameters": [parameter_read(resolved[p], units[p]) for p in self.parameters],
        }


def parameter_read(value: ResolvedValue, unit: Unit) -> dict[str, object]:
    return {
        "name": value.name,
        "effective_date": value.effective.isoformat(),
        "value": format_value(value.value, unit),
        "layer": value.layer,
        "reference": [r.as_dict() for r in value.reference],
    }


def format_value(value: int | Fraction | None, unit: Unit) -> str:
    if value is None:
        return "none"
    if unit is Unit.RATIO:
        return str(Fraction(value))
    if unit is Unit.BOOLEAN:
        return "true" if value else "false"
    if unit in (Unit.CAD, Unit.HOURS):
        return format_amount(int(value))
    return str(value)


def explain(
    ev: Evaluation, application: int, trainee_order: list[int] | None = None
) -> list[dict[str, object]]:
    """The trace of one application: trainee shares, employer and application totals, checks."""
    key = int(ev.key[application])
    resolved = ev.table.resolved(key)
    units = {name: d.unit for name, d in ev.table.library.definitions.items()}
    steps = _trainee_steps(ev, application, trainee_order)
    steps += _total_steps(ev, application)
    steps += [_check_step(ev, application)]
    return [s.as_dict(resolved, units) for s in steps]


def _trainee_rows(ev: Evaluation, a: int, order: list[int] | None) -> list[tuple[int, int]]:
    offsets = ev.application_trainee_offsets()
    first, last = int(offsets[a]), int(offsets[a + 1])
    rows = order if order is not None else list(range(first, last))
    return list(enumerate(rows))


def _trainee_steps(ev: Evaluation, a: int, order: list[int] | None) -> list[Step]:
    steps: list[Step] = []
    delivery = str(ev.table.decode(int(ev.key[a])).delivery)
    for index, row in _trainee_rows(ev, a, order):
        steps.extend(_shares_of_trainee(ev, index, row, delivery))
    return steps


def _shares_of_trainee(ev: Evaluation, index: int, row: int, delivery: str) -> list[Step]:
    t = ev.batch.trainees
    name = f"trainees[{index}]"
    money = {k: format_amount(v) for k, v in _trainee_money(ev, row).items()}
    unemployed = ev.unemployed_rule is not None and bool(ev.unemployed_rule[row])
    federal_parameters = SHARE_PARAMETERS["federal_unemployed" if unemployed else "federal"]
    return [
        Step(
            f"{name}.direct_cost",
            money["direct_cost"],
            "tuition + student_fees + materials + exam_fees",
            {
                c: format_amount(int(getattr(t, c)[row]))
                for c in ("tuition", "student_fees", "materials", "exam_fees")
            },
        ),
        Step(
            f"{name}.in_kind",
            money["in_kind"],
            "min(wages_in_kind, the most wages the policy lets a small employer count: "
            "max_share_of_employer of the employer's part); 0 for larger employers",
            {
                "wages_in_kind": format_amount(int(t.wages_in_kind[row])),
                "employees": str(int(ev.batch.employers.employees[int(t.employer[row])])),
            },
            SHARE_PARAMETERS["in_kind"],
        ),
        Step(
            f"{name}.eligible_cost",
            money["eligible_cost"],
            "direct_cost + in_kind",
            {"direct_cost": money["direct_cost"], "in_kind": money["in_kind"]},
        ),
        Step(
            f"{name}.federal",
            money["federal"],
            (
                "min(floor(eligible_cost x unemployed rate), unemployed cap): an unemployed hire "
                "under the jurisdiction's rule"
                if unemployed
                else "min(floor(eligible_cost x federal rate), federal cap per trainee); "
                "0 where the jurisdiction has no grant"
            ),
            {"eligible_cost": money["eligible_cost"]},
            federal_parameters,
        ),
        Step(
            f"{name}.provincial",
            money["provincial"],
            "min(floor(eligible_cost x provincial rate), provincial cap per trainee) when the "
            f"province delivers the grant, else 0 (delivery: {delivery})",
            {"eligible_cost": money["eligible_cost"], "delivery": delivery},
            SHARE_PARAMETERS["provincial"],
        ),
        Step(
            f"{name}.employer",
            money["employer"],
            "eligible_cost - federal - provincial (government shares are rounded down to the "
            "cent; the employer takes the remainder, including the in-kind part)",
            {k: money[k] for k in ("eligible_cost", "federal", "provincial", "in_kind")},
        ),
    ]


def _trainee_money(ev: Evaluation, row: int) -> dict[str, int]:
    return ev.trainees.at(row)


def _total_steps(ev: Evaluation, a: int) -> list[Step]:
    totals = ev.applications.at(a)
    steps = []
    for name in ("eligible_cost", "federal", "provincial", "employer", "in_kind"):
        value = format_amount(totals[name])
        steps.append(Step(f"totals.{name}", value, f"sum of the trainees' {name}"))
    government = format_amount(totals["government"])
    steps.append(Step("totals.government", government, "totals.federal + totals.provincial"))
    return steps


def _check_step(ev: Evaluation, a: int) -> Step:
    codes = [r.code for r in ev.reasons(a)]
    return Step(
        "eligible",
        "true" if not codes else "false",
        "no eligibility rule fails" + (f" (failing: {', '.join(codes)})" if codes else ""),
        {},
        CHECK_PARAMETERS,
    )
