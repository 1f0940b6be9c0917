"""How each figure of one jurisdiction was derived: formula, inputs, parameters and sources.

Every step lists the parameters it read, each with its effective date, value, the layer it came
from (the funding scenario, the parameter file, or a rules policy) and its sources. The figures
are those of the computed YearImpact, not recomputed.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from jobgrant.funding.model import FundingModel, JurisdictionFigures, Workings, YearImpact
from jobgrant.funding.parameters import funding_definitions
from jobgrant.funding.population import SOURCE as POPULATION_SOURCE
from jobgrant.funding.rules_bridge import TraineeSplit
from jobgrant.rules.money import format_amount
from jobgrant.rules.parameters import Unit
from jobgrant.rules.policies import ResolvedValue
from jobgrant.rules.trace import parameter_read

Step = dict[str, Any]
Reader = Callable[[ResolvedValue], dict[str, Any]]

DELIVERY_MEANING = {
    "provincial": "the province or territory delivers the grant under an agreement",
    "federal-direct": "Ottawa delivers the grant itself and keeps the diverted money to do so",
    "separate-agreement": "a separate agreement: no grant, the whole transfer is retained",
}


def explain(model: FundingModel, impact: YearImpact, code: str) -> list[Step]:
    """The derivation of every figure of `code` in `impact`, in the order they are computed."""
    w = impact.workings[code]
    f = impact.jurisdiction(code)
    units = _units(model)
    read = _reader(units)
    return [
        _population_step(f, w, read),
        _transfer_step(f, w, read),
        _delivery_step(f, w),
        _average_trainee_step(model, code, w, read),
        *_grant_steps(f, w, read),
        *_provincial_steps(f, w),
        _employer_step(f, w),
        _trainees_step(f, w),
    ]


def _units(model: FundingModel) -> dict[str, Unit]:
    units = {name: d.unit for name, d in funding_definitions().items()}
    units.update({name: d.unit for name, d in model.rules.library.definitions.items()})
    return units


def _reader(units: dict[str, Unit]) -> Reader:
    """Parameter reads shown the way the rules kernel's traces show them."""

    def read(value: ResolvedValue) -> dict[str, Any]:
        return parameter_read(value, units[value.name])

    return read


def cents(value: Fraction) -> str:
    """Exact cents as dollars; a fraction of a cent is shown to four decimals."""
    if value.denominator == 1:
        return format_amount(int(value))
    return f"{float(value) / 100:.4f}"


def _step(
    target: str, value: str, formula: str, inputs: dict[str, str], reads: list[dict[str, Any]]
) -> Step:
    return {
        "target": target,
        "value": value,
        "formula": formula,
        "inputs": inputs,
        "parameters": reads,
    }


def _population_step(f: JurisdictionFigures, w: Workings, read: Reader) -> Step:
    year = w.population_year.value
    step = _step(
        "population",
        str(f.population),
        f"Statistics Canada estimate of the population on July 1 {year}",
        {"national_population": str(w.national_population)},
        [read(w.population_year)],
    )
    step["sources"] = [dict(POPULATION_SOURCE)]
    return step


def _transfer_step(f: JurisdictionFigures, w: Workings, read: Reader) -> Step:
    national = int(w.national_amount.value or 0)
    pool = national - w.supplements_total
    exact = int(w.supplement.value or 0) + Fraction(pool * f.population, w.national_population)
    return _step(
        "transfer",
        format_amount(f.transfer),
        "territorial supplement + (national amount - all supplements) x population / national "
        "population, rounded to the cent by largest remainder so the 13 transfers add up to "
        "the national amount",
        {
            "national_amount": format_amount(national),
            "all_supplements": format_amount(w.supplements_total),
            "per_capita_pool": format_amount(pool),
            "exact_transfer": cents(exact),
        },
        [read(w.national_amount), read(w.supplement)],
    )


def _delivery_step(f: JurisdictionFigures, w: Workings) -> Step:
    return _step(
        "delivery",
        f.delivery,
        f"{DELIVERY_MEANING[f.delivery]}; set by {w.delivery_source}",
        {},
        [],
    )


def _average_trainee_step(model: FundingModel, code: str, w: Workings, read: Reader) -> Step:
    reads = [read(w.average_cost), read(w.small_business_share), read(w.small_business_wages)]
    if w.trainee is None:
        return _step("average_trainee", "none", "no grant is delivered here", {}, reads)
    reads += [read(v) for v in model.rules.rules_read(code, w.on)]
    inputs = {**_split("standard", w.trainee.standard)}
    inputs.update(_split("small_business", w.trainee.small_business))
    return _step(
        "average_trainee",
        _split_text(w.trainee.average),
        "the rules kernel's quote for one trainee at the average cost with a standard employer, "
        "blended with one whose small employer counts wages in kind: (1 - share) x standard + "
        "share x small business",
        inputs,
        reads,
    )


def _split(prefix: str, split: TraineeSplit) -> dict[str, str]:
    return {
        f"{prefix}_{party}": cents(getattr(split, party))
        for party in ("federal", "provincial", "employer", "in_kind")
    }


def _split_text(split: TraineeSplit) -> str:
    return (
        f"federal {cents(split.federal)}, provincial {cents(split.provincial)}, "
        f"employer {cents(split.employer)} (of which in kind {cents(split.in_kind)})"
    )


def _grant_steps(f: JurisdictionFigures, w: Workings, read: Reader) -> list[Step]:
    no_grant = w.federal_per_trainee == 0
    grant_formula = (
        "0: no grant is delivered here, so nothing is diverted"
        if no_grant
        else "transfer x diversion share (phase-in), rounded to the cent by largest remainder"
    )
    drawn = Fraction(f.grant) * Fraction(w.take_up.value or 0)
    return [
        _step(
            "grant",
            format_amount(f.grant),
            grant_formula,
            {"transfer": format_amount(f.transfer)},
            [read(w.share)],
        ),
        _step(
            "retained",
            format_amount(f.retained),
            "transfer - grant: kept by the jurisdiction for its own programs",
            {"transfer": format_amount(f.transfer), "grant": format_amount(f.grant)},
            [],
        ),
        _step(
            "drawn",
            cents(drawn),
            "grant x take-up: the grant money employers actually draw",
            {"grant": format_amount(f.grant)},
            [read(w.take_up)],
        ),
    ]


def _per_trainee_inputs(w: Workings, party: str) -> dict[str, str]:
    if w.trainee is None:
        return {}
    return {
        f"{party}_per_trainee": cents(getattr(w.trainee.average, party)),
        "federal_per_trainee": cents(w.federal_per_trainee),
    }


def _provincial_steps(f: JurisdictionFigures, w: Workings) -> list[Step]:
    return [
        _step(
            "matching",
            format_amount(f.matching),
            "drawn x provincial / federal share of the average trainee (no provincial share "
            "outside provincial delivery, nor where the policy drops matching), rounded by "
            "largest remainder",
            _per_trainee_inputs(w, "provincial"),
            [],
        ),
        _step(
            "backfill",
            format_amount(f.backfill),
            "= grant: what the jurisdiction must find to keep the programs the diverted "
            "transfer paid for",
            {"grant": format_amount(f.grant)},
            [],
        ),
        _step(
            "provincial_cost",
            format_amount(f.provincial_cost),
            "matching + backfill",
            {"matching": format_amount(f.matching), "backfill": format_amount(f.backfill)},
            [],
        ),
    ]


def _employer_step(f: JurisdictionFigures, w: Workings) -> Step:
    inputs = _per_trainee_inputs(w, "employer")
    if w.trainee is not None:
        inputs["in_kind_per_trainee"] = cents(w.trainee.average.in_kind)
    return _step(
        "employer",
        format_amount(f.employer),
        "drawn x employer / federal share of the average trainee (cash and wages in kind), "
        "rounded by largest remainder",
        inputs,
        [],
    )


def _trainees_step(f: JurisdictionFigures, w: Workings) -> Step:
    return _step(
        "trainees",
        str(f.trainees),
        "floor(drawn / federal money per average trainee)",
        {"federal_per_trainee": cents(w.federal_per_trainee)},
        [],
    )


def explanation_text(steps: list[Step], code: str, impact: YearImpact) -> str:
    """The explanation as indented lines: each figure, its formula, inputs, parameters, sources."""
    scenario = impact.scenario or "none"
    lines = [
        f"How the figures of {code} for {impact.fiscal_year} were derived "
        f"(policy {impact.policy}, scenario {scenario}):"
    ]
    for step in steps:
        lines += ["", f"{step['target']} = {step['value']}", f"    {step['formula']}"]
        lines += [f"    {name} = {value}" for name, value in step["inputs"].items()]
        for read in step["parameters"]:
            lines.append(
                f"    reads {read['name']} = {read['value']} (in force from "
                f"{read['effective_date']}; layer: {read['layer']})"
            )
            lines += [f"        source: {r['title']} <{r['href']}>" for r in read["reference"]]
        lines += [f"    source: {r['title']} <{r['href']}>" for r in step.get("sources", [])]
    return "\n".join(lines)
