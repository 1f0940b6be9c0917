"""Who may read a ranking and its overrides, and who signs an override off.

An officer reads the rankings and overrides of the files they cover; a program manager those of
their jurisdiction (all of them without one); an administrator and an auditor all of them.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.grants.core import access as core_access
from jobgrant.service.grants.models.applications import Application, Delivery, Intake
from jobgrant.service.grants.models.ranking import RankOverride
from jobgrant.service.grants.ranking.refusals import intake_not_found, override_not_found
from jobgrant.service.refusals import forbidden_for

#: The roles that sign an override off: a second person, of a higher role than the officer.
SIGNATORIES = frozenset({Role.PROGRAM_MANAGER, Role.ADMIN})
#: The roles that read every intake's ranking and overrides (a program manager: of their
#: jurisdiction, when they have one).
READERS = frozenset({Role.PROGRAM_MANAGER, Role.ADMIN, Role.AUDITOR})


def _intake_scope(user: User, path: str = "") -> Q | None:
    """The intakes `user` may read, as a filter on Intake, or on what reaches an intake through
    `path` (None: none)."""
    program = f"{path}stream__program__"
    if user.role in (Role.ADMIN, Role.AUDITOR):
        return Q()
    if user.role == Role.PROGRAM_MANAGER:
        return Q(**{f"{program}jurisdiction": user.jurisdiction}) if user.jurisdiction else Q()
    if user.role == Role.OFFICER:
        delivery = Delivery.FEDERAL_DIRECT if user.federal else Delivery.PROVINCIAL
        place = Q(**{f"{program}jurisdiction": user.jurisdiction}) if user.jurisdiction else Q()
        return place & Q(**{f"{program}delivery": delivery})
    return None


def visible_intakes(user: User) -> QuerySet[Intake]:
    scope = _intake_scope(user)
    if scope is None:
        return Intake.objects.none()
    return Intake.objects.filter(scope).select_related("stream__program")


@audited_refusals_of("intake", action="get_visible_intake")
def get_visible_intake(user: User, intake_id: int) -> Intake:
    found = visible_intakes(user).filter(pk=intake_id).first()
    if found is None:
        raise intake_not_found()
    return found


def visible_overrides(user: User) -> QuerySet[RankOverride]:
    """The overrides of the intakes `user` reads (an officer: of the files they cover)."""
    scope = _intake_scope(user, "application__intake__")
    if scope is None:
        return RankOverride.objects.none()
    overrides = RankOverride.objects.select_related(
        "application__intake__stream__program", "requested_by", "signed_off_by"
    )
    if user.role == Role.OFFICER:
        return overrides.filter(application__in=core_access.visible_applications(user))
    return overrides.filter(scope)


@audited_refusals_of("rankoverride", action="get_visible_override")
def get_visible_override(user: User, override_id: int) -> RankOverride:
    found = visible_overrides(user).filter(pk=override_id).first()
    if found is None:
        raise override_not_found()
    return found


def check_signatory(user: User, override: RankOverride) -> None:
    """A program manager or an administrator, of the file's jurisdiction, with no tie to its
    employers, and never the person who asked."""
    if user.role not in SIGNATORIES:
        raise forbidden_for("ROLE_NOT_ALLOWED")
    if override.requested_by_id == user.pk:
        raise forbidden_for("SIGN_OFF_BY_ANOTHER")
    application = override.application
    if user.role == Role.PROGRAM_MANAGER and user.jurisdiction not in (
        "",
        application.jurisdiction,
    ):
        raise forbidden_for("NOT_YOUR_FILE")
    if user.employers.filter(pk__in=application.employers.values("employer_id")).exists():
        raise forbidden_for("CONFLICT_OF_INTEREST")


def check_requester(user: User, application: Application) -> None:
    """An officer who may decide the file asks for its override."""
    core_access.check_officer(user, application)
