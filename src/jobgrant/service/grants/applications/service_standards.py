"""The service standards a file is held to: how many business days the service has to
acknowledge it, decide it and pay each approved claim, and the share of files each must be met
for, as the application's policy sets them where and when the clock starts (dated, sourced
parameters under rules/parameters/cjg/service_standards/).

`due_on` is the one place a standard's due date is worked out; the application's decision due
date is also stored on the row at submission (`decide_by`), so that the officer's queue can sort
by it in the database.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache

from django.utils.translation import pgettext_lazy

from jobgrant.rules.business_days import calendar
from jobgrant.rules.evaluate import default_library
from jobgrant.rules.parameters import ParameterError, Reference
from jobgrant.rules.policies import DEFAULT_POLICY, Policy, UnknownPolicyError
from jobgrant.service.grants.models.applications import Application, Stream


class Standard(StrEnum):
    ACKNOWLEDGE = "acknowledge"
    DECIDE = "decide"
    PAY = "pay"


STANDARD_LABELS = {
    Standard.ACKNOWLEDGE: pgettext_lazy("service standard", "Acknowledge the application"),
    Standard.DECIDE: pgettext_lazy("service standard", "Decide the application"),
    Standard.PAY: pgettext_lazy("service standard", "Pay the approved claim"),
}
PARAMETERS = {
    Standard.ACKNOWLEDGE: "cjg.service_standards.acknowledge_within_business_days",
    Standard.DECIDE: "cjg.service_standards.decide_within_business_days",
    Standard.PAY: "cjg.service_standards.pay_within_business_days",
}
TARGET = "cjg.service_standards.target_share"


@dataclass(frozen=True)
class Terms:
    """One standard as it applies to one file: N business days, met for `target` of files."""

    standard: Standard
    business_days: int
    target: Fraction
    effective: dt.date
    reference: tuple[Reference, ...]


@dataclass(frozen=True)
class Place:
    """What a file's standards depend on besides the day: its policy, province and region."""

    policies: tuple[str, ...]  # the application's policy, then its program's
    jurisdiction: str
    region: str | None


def place_of(application: Application, program_policy: str | None = None) -> Place:
    """The file's place; `program_policy` when the caller has read it (else it is read)."""
    request = application.request if isinstance(application.request, dict) else {}
    region = request.get("region")
    if program_policy is None:
        program_policy = _program_policy(application)
    return Place(
        (application.policy, program_policy),
        application.jurisdiction,
        str(region) if region else None,
    )


def _program_policy(application: Application) -> str:
    """The policy of the file's program: from its stream when the caller read that, else in
    one statement (the stream and then its program were two, on every file's page)."""
    if Application._meta.get_field("stream").is_cached(application):
        return str(application.stream.program.policy)
    return str(
        Stream.objects.filter(pk=application.stream_id)
        .values_list("program__policy", flat=True)
        .get()
    )


def terms_of(standard: Standard, place: Place, on: dt.date) -> Terms:
    """The standard in force at `place` on `on` (the day its clock starts)."""
    return _terms(standard, place, on)


@lru_cache(maxsize=4096)  # a public page reads every file's: a few places and days, many files
def _terms(standard: Standard, place: Place, on: dt.date) -> Terms:
    library = default_library()
    layers = library.layers(_policy(place.policies), place.jurisdiction)
    days = library._resolve_one(PARAMETERS[standard], layers, place.jurisdiction, place.region, on)
    target = library._resolve_one(TARGET, layers, place.jurisdiction, place.region, on)
    return Terms(
        standard,
        int(days.value or 0),
        Fraction(target.value or 0),
        days.effective,
        days.reference + target.reference,
    )


def _policy(names: tuple[str, ...]) -> Policy:
    """The first of `names` that is a policy (a program may name a scenario file), else the
    default policy, as the agreement's due dates read it."""
    library = default_library()
    for name in names:
        try:
            return library.get(name)
        except (UnknownPolicyError, ParameterError):
            continue
    return library.get(DEFAULT_POLICY)


def due_on(terms: Terms, jurisdiction: str, started_on: dt.date) -> dt.date:
    """The last day the standard is met: N business days after the day the clock started."""
    return calendar(jurisdiction).add(started_on, terms.business_days)


def decide_by(application: Application, received_on: dt.date) -> dt.date:
    """The day the application must be decided by, received on `received_on`."""
    terms = terms_of(Standard.DECIDE, place_of(application), received_on)
    return due_on(terms, application.jurisdiction, received_on)
