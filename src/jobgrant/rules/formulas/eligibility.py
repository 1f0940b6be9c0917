"""Eligibility checks as boolean arrays, one per reason code, and the figures each message cites.

A check is true where the rule fails. Application checks run over applications, the employer
cap over employers; none loops over rows. The check that each trainee has some direct cost is
made with the shares, chunk by chunk (evaluate.py). Messages are only built for the rows that
fail (reasons.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from jobgrant.rules.batch import I64, SETTINGS, Bool, Days, QuoteBatch
from jobgrant.rules.formulas.key_rules import RuleColumns


@dataclass(frozen=True)
class ApplicationFacts:
    """Per-application figures the checks compare with the rules."""

    key: I64
    lead_days: I64  # training start minus application date
    duration_days: I64  # first to last day of training, inclusive
    direct_cost: I64  # the application's total direct training cost
    employer_government: I64  # per employer: federal + provincial in this application
    employer_key: I64  # per employer: its application's key
    rules: dict[str, I64 | int]  # APPLICATION_RULES per application (an int: the same for all)


def application_facts(
    batch: QuoteBatch, key: I64, rules: RuleColumns, direct_cost: I64, employer_government: I64
) -> ApplicationFacts:
    apps = batch.applications
    start = days(apps.start_date)
    lead = start - days(apps.application_date)
    duration = days(apps.end_date) - start
    duration += 1
    employer_key: I64 = (
        key  # one employer per application, in the same order
        if batch.one_trainee_each
        else np.take(key, batch.employers.application, mode="clip")  # valid rows
    )
    values = rules.values(APPLICATION_RULES, key)
    return ApplicationFacts(
        key, lead, duration, direct_cost, employer_government, employer_key, values
    )


def days(dates: Days) -> I64:
    """Days since 1970 as plain integers (a view, no copy, for dates already in days)."""
    days: I64 = dates.astype("datetime64[D]", copy=False).view(np.int64)
    return days


Check = Callable[[QuoteBatch, ApplicationFacts, RuleColumns], Bool]


#: The rules the application checks read, looked up once per batch (application_facts).
APPLICATION_RULES = (
    "grant_available",
    "third_party_required",
    "must_precede_training",
    "min_lead_days",
    "max_lead_days",
    "max_duration_days",
    "min_hours",
    "minimum_cost",
)


def _rows(failing: object, f: ApplicationFacts) -> Bool:
    """The check's result as one flag per application (a rule the same for all gives a scalar,
    made a read-only view of one flag)."""
    if isinstance(failing, np.ndarray) and failing.ndim:
        if failing.shape == f.key.shape:  # one flag per application already: used as it is
            return failing
        rows: Bool = np.broadcast_to(failing, f.key.shape)
        return rows
    return _same_flag(bool(failing), f.key.shape[0])  # cached: np.broadcast_to takes µs


@lru_cache(maxsize=16)
def _same_flag(flag: bool, n: int) -> Bool:
    rows: Bool = np.broadcast_to(np.bool_(flag), (n,))
    return rows


def jurisdiction_without_grant(b: QuoteBatch, f: ApplicationFacts, r: RuleColumns) -> Bool:
    return _rows(f.rules["grant_available"] == 0, f)


def provider_not_third_party(b: QuoteBatch, f: ApplicationFacts, r: RuleColumns) -> Bool:
    return _rows((f.rules["third_party_required"] == 1) & ~b.applications.third_party, f)


def setting_not_eligible(b: QuoteBatch, f: ApplicationFacts, r: RuleColumns) -> Bool:
    if all(r.uniform_values.get(f"setting_allowed_{i}") == 1 for i in range(len(SETTINGS))):
        return _rows(False, f)  # every setting is allowed wherever this batch's keys apply
    key_and_setting = f.key * len(SETTINGS) + b.applications.setting
    return _rows(np.take(r.settings_allowed, key_and_setting, mode="clip") == 0, f)


def started_before_application(b: QuoteBatch, f: ApplicationFacts, r: RuleColumns) -> Bool:
    return _rows((f.rules["must_precede_training"] == 1) & (f.lead_days <= 0), f)


def too_close_to_start(b: QuoteBatch, f: ApplicationFacts, r: RuleColumns) -> Bool:
    return _rows((f.lead_days > 0) & (f.lead_days < f.rules["min_lead_days"]), f)


def starts_too_far_ahead(b: QuoteBatch, f: ApplicationFacts, r: RuleColumns) -> Bool:
    return _rows(f.lead_days > f.rules["max_lead_days"], f)


def training_too_long(b: QuoteBatch, f: ApplicationFacts, r: RuleColumns) -> Bool:
    return _rows(f.duration_days > f.rules["max_duration_days"], f)


def training_too_short(b: QuoteBatch, f: ApplicationFacts, r: RuleColumns) -> Bool:
    return _rows(b.applications.hours < f.rules["min_hours"], f)


def minimum_cost_not_met(b: QuoteBatch, f: ApplicationFacts, r: RuleColumns) -> Bool:
    return _rows(f.direct_cost < f.rules["minimum_cost"], f)


def employer_cap_exceeded(b: QuoteBatch, f: ApplicationFacts, r: RuleColumns) -> Bool:
    total = f.employer_government + b.employers.approved_this_fiscal_year
    failing: Bool = total > r.value("employer_cap", f.employer_key)
    return failing


APPLICATION_CHECKS: dict[str, Check] = {
    "JURISDICTION_WITHOUT_GRANT": jurisdiction_without_grant,
    "PROVIDER_NOT_THIRD_PARTY": provider_not_third_party,
    "TRAINING_SETTING_NOT_ELIGIBLE": setting_not_eligible,
    "TRAINING_STARTED_BEFORE_APPLICATION": started_before_application,
    "APPLICATION_TOO_CLOSE_TO_START": too_close_to_start,
    "TRAINING_STARTS_TOO_FAR_AHEAD": starts_too_far_ahead,
    "TRAINING_TOO_LONG": training_too_long,
    "TRAINING_TOO_SHORT": training_too_short,
    "MINIMUM_COST_NOT_MET": minimum_cost_not_met,
}
EMPLOYER_CHECKS: dict[str, Check] = {"EMPLOYER_CAP_EXCEEDED": employer_cap_exceeded}
