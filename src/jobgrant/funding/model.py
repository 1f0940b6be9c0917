"""The fiscal impact of the grant, per jurisdiction and fiscal year: who pays what, and why.

For each province and territory in one fiscal year (amounts in integer cents):

    transfer        = territorial supplement + (national amount - all supplements) x population
                      / national population
    grant           = transfer x diversion share (phase-in); 0 under a separate agreement or
                      where the policy offers no grant. Ottawa's money for the grant: paid to the
                      province (provincial delivery) or kept by Ottawa (federal direct delivery)
    retained        = transfer - grant: what the jurisdiction keeps for its own programs
    drawn           = grant x take-up: the grant money employers actually draw
    matching        = drawn x provincial / federal share of the average trainee
    backfill        = grant: what the jurisdiction must find to keep its current programs whole
    provincial cost = matching + backfill
    employer        = drawn x employer / federal share of the average trainee (cash and in kind)
    trainees        = floor(drawn / federal money per average trainee)

The average trainee's shares come from the rules kernel (rules_bridge.py). Each money column is
computed exactly and rounded to cents across jurisdictions by the largest-remainder method
(apportion.py), so national totals are exact: 60% of $500M is $300,000,000.00, not a cent less.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from jobgrant.funding.apportion import apportion
from jobgrant.funding.errors import FundingError
from jobgrant.funding.parameters import PARAMETERS_LAYER, FundingParameters
from jobgrant.funding.population import july_first_estimates
from jobgrant.funding.rules_bridge import AverageTrainee, RulesBridge
from jobgrant.funding.scenario import FundingScenario, load_scenario
from jobgrant.funding.years import MODEL_YEARS, FiscalYearError, first_day
from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.policies import DEFAULT_POLICY, PolicyLibrary, ResolvedValue

MONEY_FIELDS = (
    "transfer",
    "grant",
    "retained",
    "matching",
    "backfill",
    "provincial_cost",
    "employer",
)
NATIONAL = ""  # resolve a parameter's national value (no jurisdiction breakdown applies)
NO_GRANT = "separate-agreement"


@dataclass(frozen=True)
class JurisdictionFigures:
    code: str
    delivery: str
    population: int
    transfer: int
    grant: int
    retained: int
    matching: int
    backfill: int
    employer: int
    trainees: int

    @property
    def provincial_cost(self) -> int:
        return self.matching + self.backfill


@dataclass(frozen=True)
class Workings:
    """What one jurisdiction's figures were computed from: the explanation's raw material."""

    on: dt.date
    population_year: ResolvedValue
    national_population: int
    national_amount: ResolvedValue
    supplement: ResolvedValue
    supplements_total: int
    delivery: str
    delivery_source: str  # the scenario or policy that set the delivery mode
    share: ResolvedValue
    take_up: ResolvedValue
    average_cost: ResolvedValue
    small_business_share: ResolvedValue
    small_business_wages: ResolvedValue
    trainee: AverageTrainee | None  # None where no grant is delivered at all

    @property
    def federal_per_trainee(self) -> Fraction:
        return self.trainee.average.federal if self.trainee else Fraction(0)


@dataclass(frozen=True)
class YearImpact:
    policy: str
    scenario: str | None
    fiscal_year: str
    jurisdictions: tuple[JurisdictionFigures, ...]
    workings: Mapping[str, Workings]

    def jurisdiction(self, code: str) -> JurisdictionFigures:
        return next(j for j in self.jurisdictions if j.code == code)

    def totals(self) -> dict[str, int]:
        """National totals of every money column and of trainees."""
        fields = (*MONEY_FIELDS, "trainees")
        return {name: sum(getattr(j, name) for j in self.jurisdictions) for name in fields}


class FundingModel:
    """The funding model under one policy and (optionally) one funding scenario."""

    def __init__(
        self,
        *,
        policy: str | None = None,
        scenario: FundingScenario | Path | str | None = None,
        rules_library: PolicyLibrary | None = None,
    ) -> None:
        if isinstance(scenario, Path | str):
            scenario = load_scenario(Path(scenario))
        self.scenario = scenario
        chosen = policy or (scenario.policy if scenario else DEFAULT_POLICY)
        self.rules = RulesBridge(chosen, rules_library)
        layer = f"scenario {scenario.name}" if scenario else PARAMETERS_LAYER
        self.parameters = FundingParameters(scenario.overrides if scenario else None, layer)

    @property
    def policy_name(self) -> str:
        return self.rules.policy.name

    @property
    def scenario_name(self) -> str | None:
        return self.scenario.name if self.scenario else None

    def all_years(self) -> list[YearImpact]:
        return [self.year(label) for label in MODEL_YEARS]

    def year(self, label: str) -> YearImpact:
        """Every jurisdiction's figures for one fiscal year ("2017-18")."""
        try:
            on = first_day(label)
        except FiscalYearError as error:
            raise FundingError([f"fiscal year: {error}"]) from None
        population_year, populations = self._populations(on)
        workings = {
            code: self._workings(code, on, population_year, populations)
            for code in JURISDICTION_CODES
        }
        figures = _figures(workings, populations)
        return YearImpact(self.policy_name, self.scenario_name, label, figures, workings)

    def delivery(self, code: str, year: int) -> tuple[str, str]:
        """The delivery mode in a jurisdiction and fiscal year, and who set it."""
        mode = self.scenario.delivery_in(code, year) if self.scenario else None
        if mode is not None and self.scenario is not None:
            return mode, f"scenario {self.scenario.name}"
        return self.rules.policy.delivery_for(code), f"policy {self.policy_name}"

    def _populations(self, on: dt.date) -> tuple[ResolvedValue, dict[str, int]]:
        year = self.parameters.resolve("funding.population_year", NATIONAL, on)
        estimates = july_first_estimates()
        if year.value not in estimates:
            available = ", ".join(str(y) for y in sorted(estimates))
            raise FundingError(
                [f"funding.population_year: no July 1 {year.value} estimates; use {available}"]
            )
        return year, estimates[int(year.value or 0)]

    def _workings(
        self, code: str, on: dt.date, population_year: ResolvedValue, populations: dict[str, int]
    ) -> Workings:
        p = self.parameters
        mode, layer = self.delivery(code, on.year)
        supplements = [p.amount(_SUPPLEMENT, j, on) for j in JURISDICTION_CODES]
        return Workings(
            on=on,
            population_year=population_year,
            national_population=sum(populations.values()),
            national_amount=p.resolve("funding.transfer.national_amount", NATIONAL, on),
            supplement=p.resolve(_SUPPLEMENT, code, on),
            supplements_total=sum(supplements),
            delivery=mode,
            delivery_source=layer,
            share=p.resolve("funding.diversion.share", code, on),
            take_up=p.resolve("funding.take_up", code, on),
            average_cost=p.resolve(_COST, code, on),
            small_business_share=p.resolve(_SMALL_SHARE, code, on),
            small_business_wages=p.resolve(_SMALL_WAGES, code, on),
            trainee=None if mode == NO_GRANT else self._average_trainee(code, mode, on),
        )

    def _average_trainee(self, code: str, mode: str, on: dt.date) -> AverageTrainee:
        p = self.parameters
        return self.rules.average_trainee(
            code,
            mode,
            on,
            cost=p.amount(_COST, code, on),
            wages=p.amount(_SMALL_WAGES, code, on),
            small_business_share=p.ratio(_SMALL_SHARE, code, on),
        )


_SUPPLEMENT = "funding.transfer.territorial_supplement"
_COST = "funding.average_cost_per_trainee"
_SMALL_SHARE = "funding.small_business.share_of_trainees"
_SMALL_WAGES = "funding.small_business.wages_in_kind_per_trainee"


def _figures(
    workings: Mapping[str, Workings], populations: dict[str, int]
) -> tuple[JurisdictionFigures, ...]:
    """Every column, each computed exactly and rounded across jurisdictions to whole cents."""
    rows = [workings[code] for code in JURISDICTION_CODES]
    transfers = allocate_transfers(workings, populations)
    grants = apportion([t * _diverted_share(w) for t, w in zip(transfers, rows, strict=True)])
    drawn = [g * Fraction(w.take_up.value or 0) for g, w in zip(grants, rows, strict=True)]
    pairs = list(zip(drawn, rows, strict=True))
    matching = apportion([_per_federal(d, w, "provincial") for d, w in pairs])
    employer = apportion([_per_federal(d, w, "employer") for d, w in pairs])
    return tuple(
        JurisdictionFigures(
            code=code,
            delivery=w.delivery,
            population=populations[code],
            transfer=transfers[i],
            grant=grants[i],
            retained=transfers[i] - grants[i],
            matching=matching[i],
            backfill=grants[i],
            employer=employer[i],
            trainees=_trainees(drawn[i], w),
        )
        for i, (code, w) in enumerate(zip(JURISDICTION_CODES, rows, strict=True))
    )


def allocate_transfers(workings: Mapping[str, Workings], populations: dict[str, int]) -> list[int]:
    """Each jurisdiction's transfer: its supplement plus its population share of the rest."""
    any_working = next(iter(workings.values()))
    national = int(any_working.national_amount.value or 0)
    pool = national - any_working.supplements_total
    if pool < 0:
        raise FundingError(["funding.transfer.territorial_supplement: exceeds the national amount"])
    total = any_working.national_population
    exact = [
        int(workings[j].supplement.value or 0) + Fraction(pool * populations[j], total)
        for j in JURISDICTION_CODES
    ]
    return apportion(exact)


def _diverted_share(w: Workings) -> Fraction:
    """The diversion share where a grant is delivered; none where there is no grant to fund."""
    return Fraction(w.share.value or 0) if w.federal_per_trainee > 0 else Fraction(0)


def _per_federal(drawn: Fraction, w: Workings, party: str) -> Fraction:
    """What `party` puts in for the federal money drawn, at the average trainee's split."""
    if w.trainee is None or w.federal_per_trainee == 0:
        return Fraction(0)
    party_share: Fraction = getattr(w.trainee.average, party)
    return drawn * party_share / w.federal_per_trainee


def _trainees(drawn: Fraction, w: Workings) -> int:
    if w.federal_per_trainee == 0:
        return 0
    return math.floor(drawn / w.federal_per_trainee)
