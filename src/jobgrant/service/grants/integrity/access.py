"""Who may read which risk flags.

A flag is read with its file: officers see the flags of the files they cover, the roles that
read every file (auditors, finance, administrators) see all of them. Policy analysts work on
aggregates only: they read how many flags of each kind there are per intake or per provider
(`visible_flag_counts`), never a flag or the file it is on.
"""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.errors import not_found
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Intake
from jobgrant.service.grants.models.integrity import RiskFlag

#: The roles that read the counts of flags (a page and the API list them).
COUNT_READERS = frozenset({Role.ANALYST, Role.OFFICER, *access.FILE_READERS})


def visible_risk_flags(user: User) -> QuerySet[RiskFlag]:
    """The flags on the files `user` may read (none for an employer or an analyst)."""
    if user.role not in (Role.OFFICER, *access.FILE_READERS):
        return RiskFlag.objects.none()
    files = access.visible_applications(user)
    flags = RiskFlag.objects.select_related("application", "cleared_by")
    if user.role in access.FILE_READERS:
        return flags
    return flags.filter(application__in=files.values("pk"))


@audited_refusals_of("riskflag")
def get_visible_risk_flag(user: User, flag_id: int) -> RiskFlag:
    """One of visible_risk_flags(user), or 404 (audited)."""
    found = visible_risk_flags(user).filter(pk=flag_id).first()
    if found is None:
        raise not_found()
    return found


def in_intake(flags: QuerySet[RiskFlag], intake: Intake) -> QuerySet[RiskFlag]:
    """The flags of the files the intake received."""
    return flags.filter(application__intake=intake)


def visible_flag_counts(user: User) -> QuerySet[RiskFlag]:
    """The flags `user` may count: an analyst counts them all, the others what they may read.
    Callers aggregate this (`counted`); it is never listed to an analyst."""
    if user.role not in COUNT_READERS:
        return RiskFlag.objects.none()
    if user.role == Role.ANALYST:
        return RiskFlag.objects.all()
    return visible_risk_flags(user)


def counted(flags: QuerySet[RiskFlag]) -> list[dict[str, object]]:
    """Per kind: how many flags, and how many of them are open."""
    rows = (
        flags.order_by()
        .values("kind")
        .annotate(total=Count("id"), open=Count("id", filter=Q(state="open")))
        .order_by("kind")
    )
    return [dict(row) for row in rows]


def visible_intakes(user: User) -> QuerySet[Intake]:
    """The intakes whose flags `user` may count (every intake: an intake names no one)."""
    if user.role not in COUNT_READERS:
        return Intake.objects.none()
    return Intake.objects.select_related("stream__program").order_by("-opens_on", "id")


@audited_refusals_of("intake", action="get_visible_intake")
def get_visible_intake(user: User, intake_id: int) -> Intake:
    """One of visible_intakes(user), or 404 (audited)."""
    found = visible_intakes(user).filter(pk=intake_id).first()
    if found is None:
        raise not_found()
    return found
