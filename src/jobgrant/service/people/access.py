"""Who may open which organization and which staff account: the people's permission-checked
reads, named as every stage's are (`get_visible_*`), each refusal a 404 or a 403, audited."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.errors import ServiceError, forbidden
from jobgrant.service.registry.models import Employer

#: The roles whose accounts the administrator manages (an administrator's own is not one).
STAFF_ROLES = (Role.OFFICER, Role.FINANCE, Role.ANALYST, Role.AUDITOR, Role.PROGRAM_MANAGER)


@audited_refusals_of("employer", action="organization.open")  # the trail's name
def get_visible_organization(user: User, employer_id: int) -> Employer:
    """An organization `user` belongs to (404 otherwise)."""
    found = Employer.objects.filter(pk=employer_id, membership__user=user).first()
    if found is None or user.role != Role.EMPLOYER:
        raise no_such_organization()
    return found


@audited_refusals_of("user", action="staff.open")  # the trail's name
def get_visible_staff_account(admin: User, user_id: int) -> User:
    """A staff account, for the administrator role only."""
    require_administrator(admin)
    found = User.objects.filter(pk=user_id, role__in=STAFF_ROLES).first()
    if found is None:
        raise ServiceError(404, "NOT_FOUND", "No such staff account.", "Aucun compte de ce genre.")
    return found


def require_administrator(admin: User) -> None:
    """Only an active administrator manages the staff accounts."""
    if admin.role != Role.ADMIN or not admin.is_active:
        raise forbidden(
            "ROLE_NOT_ALLOWED", "Your role does not allow this.", "Votre rôle ne permet pas cela."
        )


def no_such_organization() -> ServiceError:
    return ServiceError(
        404, "NOT_FOUND", "No such organization.", "Aucune organisation de ce genre."
    )


# --- Who reviews which organization's verification (organization_verification.py) ---------

#: The roles that read organizations' verification without deciding it.
READERS = frozenset({Role.AUDITOR, Role.ADMIN, Role.FINANCE})


def officer_covers_organization(user: User, employer: Employer) -> bool:
    """The officers of the organization's jurisdiction (federal officers of no jurisdiction
    cover every one)."""
    if user.role != Role.OFFICER or not user.is_active:
        return False
    if user.federal:
        return user.jurisdiction in ("", employer.jurisdiction)
    return user.jurisdiction == employer.jurisdiction


def officer_scope(user: User) -> Q:
    if user.role != Role.OFFICER or not user.is_active:
        return Q(pk__in=[])
    if user.federal and not user.jurisdiction:
        return Q()
    return Q(jurisdiction=user.jurisdiction)


def reviewable_organizations(user: User) -> QuerySet[Employer]:
    """The organizations whose verification `user` may read: an officer's jurisdiction's,
    every one for auditors, finance and the administrator."""
    if user.role in READERS:
        return Employer.objects.all()
    return Employer.objects.filter(officer_scope(user))


@audited_refusals_of("employer", action="organization.review")
def get_visible_organization_to_review(user: User, employer_id: int) -> Employer:
    found = reviewable_organizations(user).filter(pk=employer_id).first()
    if found is None:
        raise no_such_organization()
    return found
