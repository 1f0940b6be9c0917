"""Who may open which organization and which staff account: the people's permission-checked
reads, named as every stage's are (`get_visible_*`), each refusal a 404 or a 403, audited."""

from __future__ import annotations

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.errors import ServiceError, forbidden
from jobgrant.service.registry.models import Employer

#: The roles whose accounts the administrator manages (an administrator's own is not one).
STAFF_ROLES = (Role.OFFICER, Role.FINANCE, Role.ANALYST, Role.AUDITOR)


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
