"""Who pays what for the average trainee, asked of the rules kernel through its quote contract.

The funding model does not re-implement the cost-sharing rules: for each jurisdiction, fiscal
year and delivery mode it quotes one application with two trainees at the average cost, one
whose employer is a standard employer and one whose employer is a small business counting wages
in kind, and blends them by the scenario's small-business share. Caps, rates, in-kind limits and
provincial overlays are therefore exactly those an employer is quoted.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from jobgrant.funding.errors import FundingError
from jobgrant.rules.evaluate import default_library
from jobgrant.rules.money import format_amount, parse_amount
from jobgrant.rules.parameters import ParameterError
from jobgrant.rules.policies import Policy, PolicyLibrary, ResolvedValue, UnknownPolicyError
from jobgrant.rules.quote import quote
from jobgrant.rules.requests import InvalidRequestError

#: Employer sizes of the two synthetic employers. Trainees are existing employees, so the size
#: matters only for the in-kind rule: 10 staff is a small business in every jurisdiction's rule
#: (at most 49 or 50 employees), 500 staff is not.
SMALL_EMPLOYER_STAFF = 10
STANDARD_EMPLOYER_STAFF = 500
RULES_READ = (
    "cjg.grant_available",
    "cjg.federal.rate",
    "cjg.federal.max_per_trainee",
    "cjg.provincial.rate",
    "cjg.provincial.max_per_trainee",
    "cjg.in_kind.max_share_of_employer",
    "cjg.in_kind.max_employees",
)


@dataclass(frozen=True)
class TraineeSplit:
    """Cents paid for one trainee by each party; employer includes the in-kind part."""

    federal: Fraction
    provincial: Fraction
    employer: Fraction
    in_kind: Fraction

    @staticmethod
    def from_quote(trainee: dict[str, Any]) -> TraineeSplit:
        def cents(key: str) -> Fraction:
            return Fraction(parse_amount(trainee[key]))

        return TraineeSplit(
            cents("federal"), cents("provincial"), cents("employer"), cents("in_kind")
        )

    def blend(self, other: TraineeSplit, weight: Fraction) -> TraineeSplit:
        """(1 - weight) of this trainee and `weight` of the other, exactly."""

        def mix(a: Fraction, b: Fraction) -> Fraction:
            return (1 - weight) * a + weight * b

        return TraineeSplit(
            mix(self.federal, other.federal),
            mix(self.provincial, other.provincial),
            mix(self.employer, other.employer),
            mix(self.in_kind, other.in_kind),
        )


@dataclass(frozen=True)
class AverageTrainee:
    standard: TraineeSplit
    small_business: TraineeSplit
    average: TraineeSplit


class RulesBridge:
    """One rules policy (a shipped name or an overlay file) and the quotes asked of it."""

    def __init__(self, policy: str, library: PolicyLibrary | None = None) -> None:
        self.library = library or default_library()
        self.policy = self._policy(policy)
        if self.library.policies.get(self.policy.name) is not self.policy:
            # An overlay file: quote it through a private library so the shared one stays clean.
            self.library = PolicyLibrary()
            self.library.add(self.policy)
        self._quotes: dict[tuple[str, str, dt.date, int, int], list[dict[str, Any]]] = {}

    def _policy(self, name: str) -> Policy:
        try:
            return self.library.get(name)
        except UnknownPolicyError:
            known = ", ".join(self.library.policies)
            raise FundingError([f"policy: unknown policy {name!r}; known: {known}"]) from None
        except ParameterError as error:
            problems = [f"policy: {p}" for p in error.problems]
            if any("unknown key 'kind'" in p for p in problems):
                problems.append(
                    "policy: a funding scenario (kind: funding-scenario) goes to --scenario"
                )
            raise FundingError(problems) from None

    def average_trainee(
        self,
        jurisdiction: str,
        delivery: str,
        on: dt.date,
        cost: int,
        wages: int,
        small_business_share: Fraction,
    ) -> AverageTrainee:
        """The kernel's split for a trainee at `cost`, blended with a small-business trainee."""
        standard, small = self._quote(jurisdiction, delivery, on, cost, wages)
        return AverageTrainee(standard, small, standard.blend(small, small_business_share))

    def _quote(
        self, jurisdiction: str, delivery: str, on: dt.date, cost: int, wages: int
    ) -> tuple[TraineeSplit, TraineeSplit]:
        key = (jurisdiction, delivery, on, cost, wages)
        if key not in self._quotes:
            request = _request(jurisdiction, delivery, on, cost, wages)
            try:
                result = quote(request, policy=self.policy.name, library=self.library)
            except InvalidRequestError as error:
                raise FundingError([f"rules kernel: {p.line()}" for p in error.problems]) from None
            self._quotes[key] = result["trainees"]
        standard, small = self._quotes[key]
        return TraineeSplit.from_quote(standard), TraineeSplit.from_quote(small)

    def rules_read(self, jurisdiction: str, on: dt.date) -> list[ResolvedValue]:
        """The rules parameters behind the split, for explanations."""
        resolved = self.library.resolve(self.policy, jurisdiction, None, on)
        return [_labelled(resolved[name]) for name in RULES_READ if name in resolved]


def _labelled(value: ResolvedValue) -> ResolvedValue:
    """Say "rules parameters" where the rules kernel says "parameters", beside funding ones."""
    return replace(value, layer="rules parameters") if value.layer == "parameters" else value


def _request(jurisdiction: str, delivery: str, on: dt.date, cost: int, wages: int) -> object:
    """A quote request for two trainees at the average cost, applied for on `on`."""
    costs = {"tuition": format_amount(cost), "student_fees": "0.00", "materials": "0.00"}
    costs["exam_fees"] = "0.00"
    return {
        "jurisdiction": jurisdiction,
        "delivery": delivery,
        "application_date": on.isoformat(),
        "employers": [
            {"id": "standard", "employees": STANDARD_EMPLOYER_STAFF},
            {"id": "small", "employees": SMALL_EMPLOYER_STAFF},
        ],
        "training": {
            "setting": "off-site",
            "start_date": (on + dt.timedelta(days=45)).isoformat(),
            "end_date": (on + dt.timedelta(days=90)).isoformat(),
            "hours": "100",
            "provider": {"name": "Average training provider", "third_party": True},
        },
        "trainees": [
            {"employer_id": "standard", "status": "existing-employee", "costs": costs},
            {
                "employer_id": "small",
                "status": "existing-employee",
                "costs": costs,
                "wages_in_kind": format_amount(wages),
            },
        ],
    }
