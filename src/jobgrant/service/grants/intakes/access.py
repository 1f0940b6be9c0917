"""Who may read and manage which program, stream and intake.

Every staff role reads them (programs are no secret inside the service); a program manager
manages their jurisdiction's (a federal one with no jurisdiction, every one), and the
administrator every one. A refusal is a 404 for what the user may not read, a 403 for what they
may read but not manage; both are audited.
"""

from __future__ import annotations

from django.db.models import QuerySet

from jobgrant.service.accounts.models import STAFF_ROLES, Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.applications import Intake, Program, Stream
from jobgrant.service.refusals import forbidden_for


def reads_programs(user: User) -> bool:
    return bool(user.is_active and user.role in STAFF_ROLES)


def manages(user: User, jurisdiction: str) -> bool:
    """Whether `user` may change the programs of `jurisdiction`."""
    if not user.is_active:
        return False
    if user.role == Role.ADMIN:
        return True
    if user.role != Role.PROGRAM_MANAGER:
        return False
    return user.jurisdiction == jurisdiction or (user.federal and not user.jurisdiction)


def visible_programs(user: User) -> QuerySet[Program]:
    """The programs `user` may read: a program manager's own jurisdiction's first."""
    if not reads_programs(user):
        return Program.objects.none()
    found = Program.objects.all()
    if user.role == Role.PROGRAM_MANAGER and user.jurisdiction:
        found = found.filter(jurisdiction=user.jurisdiction)
    return found.order_by("-fiscal_year", "jurisdiction")


def visible_intakes(user: User) -> QuerySet[Intake]:
    return Intake.objects.filter(stream__program__in=visible_programs(user)).select_related(
        "stream__program"
    )


def _not_found(what_en: str, what_fr: str) -> ServiceError:
    return ServiceError(404, "NOT_FOUND", f"No such {what_en}.", f"Aucun {what_fr} de ce genre.")


@audited_refusals_of("program", action="program.read")
def get_visible_program(user: User, program_id: int) -> Program:
    found = visible_programs(user).filter(pk=program_id).first()
    if found is None:
        raise _not_found("program", "programme")
    return found


@audited_refusals_of("stream", action="stream.read")
def get_visible_stream(user: User, stream_id: int) -> Stream:
    found = (
        Stream.objects.filter(program__in=visible_programs(user), pk=stream_id)
        .select_related("program")
        .first()
    )
    if found is None:
        raise _not_found("stream", "volet")
    return found


@audited_refusals_of("intake", action="intake.read")
def get_visible_intake(user: User, intake_id: int) -> Intake:
    found = visible_intakes(user).filter(pk=intake_id).first()
    if found is None:
        raise _not_found("intake", "appel de demandes")
    return found


def check_manager(user: User, program: Program) -> None:
    """403 unless `user` manages the program's jurisdiction (the caller's decorator audits)."""
    if not manages(user, program.jurisdiction):
        raise forbidden_for("ROLE_NOT_ALLOWED")
