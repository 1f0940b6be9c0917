"""The flags listed per intake and per provider, for a page and the API alike.

Everyone who may count flags sees how many there are of each kind, and the providers with the
most; who may read files (officers for theirs, auditors for all) also sees the flags themselves,
each with its file. An analyst sees the counts only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, QuerySet

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.grants.integrity import access
from jobgrant.service.grants.integrity.findings import name_key
from jobgrant.service.grants.models.applications import Intake
from jobgrant.service.grants.models.integrity import RiskFlag, SubmittedTraining

MOST_LISTED = 200  # flags listed on one page or answer (the counts cover them all)
PROVIDERS_LISTED = 50


@dataclass
class Listing:
    intake: Intake | None
    provider: str  # as typed
    counts: list[dict[str, Any]]
    providers: list[dict[str, Any]]
    flags: list[RiskFlag] = field(default_factory=list)
    total: int = 0
    shows_flags: bool = False


def _narrowed(
    flags: QuerySet[RiskFlag], intake: Intake | None, provider: str
) -> QuerySet[RiskFlag]:
    if intake is not None:
        flags = access.in_intake(flags, intake)
    if provider.strip():
        flags = flags.filter(provider_key=name_key(provider))
    return flags


def providers_of(flags: QuerySet[RiskFlag]) -> list[dict[str, Any]]:
    """The providers with flags, most flagged first: their name, flags and open flags."""
    rows = list(
        flags.exclude(provider_key="")
        .order_by()
        .values("provider_key")
        .annotate(total=Count("id"), open=Count("id", filter=Q(state="open")))
        .order_by("-total", "provider_key")[:PROVIDERS_LISTED]
    )
    names = dict(
        SubmittedTraining.objects.filter(provider_key__in=[r["provider_key"] for r in rows])
        .order_by("application_id")
        .values_list("provider_key", "provider_name")
    )
    return [{**row, "name": names.get(row["provider_key"], row["provider_key"])} for row in rows]


def listing(user: User, intake: Intake | None, provider: str) -> Listing:
    counted = _narrowed(access.visible_flag_counts(user), intake, provider)
    found = Listing(intake, provider, access.counted(counted), providers_of(counted))
    if user.role != Role.ANALYST:
        readable = _narrowed(access.visible_risk_flags(user), intake, provider)
        found.total = readable.count()
        found.flags = list(readable.order_by("-raised_at", "-id")[:MOST_LISTED])
        found.shows_flags = True
    return found
