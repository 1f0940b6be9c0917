"""Who may do what to which application: roles, scope and separation of duties.

Permission-checked fetches and checks live here; actions call them before changing anything.
A refusal is a ServiceError(403) worded once, in both languages, in `service.refusals`.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import QuerySet

from jobgrant.service.accounts.models import Membership, OrganizationRole, Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.errors import ServiceError, not_found
from jobgrant.service.grants.models.applications import (
    Application,
    ApplicationEmployer,
    Delivery,
    FormDraft,
)
from jobgrant.service.grants.models.partners import PartnerConsent
from jobgrant.service.refusals import forbidden_for
from jobgrant.service.registry.models import Employer, Verification


def employers_acted_for(user: User) -> QuerySet[Employer]:
    if user.role != Role.EMPLOYER:
        return Employer.objects.none()
    return user.employers.all()


def visible_form_drafts(user: User) -> QuerySet[FormDraft]:
    """The web-form drafts `user` started (nobody else sees them)."""
    if user.role != Role.EMPLOYER:
        return FormDraft.objects.none()
    return FormDraft.objects.filter(owner=user)


@audited_refusals_of("formdraft", action="get_own_form_draft")  # the trail's name
def get_visible_form_draft(user: User, draft_id: int) -> FormDraft:
    found = visible_form_drafts(user).select_related("lead").filter(pk=draft_id).first()
    if found is None:
        raise not_found()
    return found


def officer_covers(user: User, application: Application) -> bool:
    """Provincial files go to that jurisdiction's officers; federal-direct ones to Ottawa's."""
    if user.role != Role.OFFICER:
        return False
    if application.delivery == Delivery.FEDERAL_DIRECT:
        return user.federal and user.jurisdiction in ("", application.jurisdiction)
    if application.delivery == Delivery.PROVINCIAL:
        return not user.federal and user.jurisdiction == application.jurisdiction
    return False


#: The back-office roles that read every file. Not the policy analyst: analysts work on
#: aggregates only (the KPIs, the annual report, the simulations), never on a file, a
#: trainee, a claim or a receipt.
FILE_READERS = frozenset({Role.AUDITOR, Role.ADMIN, Role.FINANCE})


def visible_applications(user: User) -> QuerySet[Application]:
    """The applications `user` may read."""
    everything = Application.objects.all()
    if user.role in FILE_READERS:
        return everything
    if user.role == Role.EMPLOYER:
        return everything.filter(employers__employer__in=employers_acted_for(user)).distinct()
    if user.role == Role.OFFICER:
        if user.federal:
            scope = everything.filter(delivery=Delivery.FEDERAL_DIRECT)
            return scope.filter(jurisdiction=user.jurisdiction) if user.jurisdiction else scope
        return everything.filter(delivery=Delivery.PROVINCIAL, jurisdiction=user.jurisdiction)
    return everything.none()


def can_see(user: User, application: Application) -> bool:
    """Whether `application` is one of visible_applications(user), decided on the row in hand
    (tests hold the two to the same answer for every user and application)."""
    if user.role in FILE_READERS:
        return True
    if user.role == Role.EMPLOYER:
        return _affiliated(user, application)
    return officer_covers(user, application)


@audited_refusals_of("application", action="get_visible")  # the trail's name
def get_visible_application(
    user: User, application_id: int, *, without: tuple[str, ...] = ()
) -> Application:
    """The application, or 404 (never 403: an outsider learns nothing about other files);
    the fields named in `without` are only read if used.

    Every API action starts here, so the row is read with a plain statement (a queryset of
    visible applications costs several times the CPU to build) and `can_see` decides."""
    columns = ", ".join(
        f'"{field.column}"'
        for field in Application._meta.concrete_fields
        if field.name not in without
    )
    sql = f'SELECT {columns} FROM "{Application._meta.db_table}" WHERE "id" = %s'
    found = next(iter(Application.objects.raw(sql, [application_id])), None)
    if found is None or not can_see(user, found):
        raise not_found()
    return found


def check_employer_may_act(user: User, employer: Employer) -> None:
    if not employers_acted_for(user).filter(pk=employer.pk).exists():
        raise forbidden_for("NOT_YOUR_ORGANIZATION")


def check_applicant(user: User, application: Application) -> None:
    lead = application.employers.order_by("position").first()
    if lead is None or not employers_acted_for(user).filter(pk=lead.employer_id).exists():
        raise forbidden_for("NOT_THE_APPLICANT")


_AFFILIATED_SQL = (
    f'SELECT 1 FROM "{User.employers.through._meta.db_table}" u'
    f' JOIN "{ApplicationEmployer._meta.db_table}" a ON a."employer_id" = u."employer_id"'
    ' WHERE u."user_id" = %s AND a."application_id" = %s LIMIT 1'
)


def _affiliated(user: User, application: Application) -> bool:
    """Whether the user acts for, or is affiliated with, an employer in the application (a
    plain statement: every action asks), unless the user's token said they act for no
    organization at all (ApiToken.user_for)."""
    if not getattr(user, "acts_for_organizations", True):  # 0 or False from the database
        return False
    with connection.cursor() as cursor:
        cursor.execute(_AFFILIATED_SQL, [user.pk, application.pk])
        return cursor.fetchone() is not None


def check_officer(user: User, application: Application) -> None:
    """An officer of the right government and jurisdiction, with no tie to the employers."""
    if not officer_covers(user, application):
        raise forbidden_for("NOT_YOUR_FILE")
    if _affiliated(user, application):
        raise forbidden_for("CONFLICT_OF_INTEREST")


def check_may_be_assigned(officer: User, application: Application) -> None:
    """Whether `officer` could handle the file, asked when someone else assigns it to them (the
    refusal names the assignee, not the person assigning)."""
    if not officer_covers(officer, application) or _affiliated(officer, application):
        raise forbidden_for("NOT_THEIR_FILE")


def check_not_recommender(user: User, application: Application) -> None:
    if application.recommended_by_id == user.pk:
        raise forbidden_for("SEPARATION_OF_DUTIES")


def require_role(user: User, *roles: str) -> None:
    if user.role not in roles:
        raise forbidden_for("ROLE_NOT_ALLOWED")


def visible_partner_requests(user: User) -> QuerySet[PartnerConsent]:
    """The consents `user` may give: those of the verified organizations they administer (no
    request reaches an organization until an officer verified it)."""
    if user.role != Role.EMPLOYER or not user.is_active:
        return PartnerConsent.objects.none()
    administered = Membership.objects.filter(user=user, role=OrganizationRole.ADMIN).values(
        "employer_id"
    )
    return (
        PartnerConsent.objects.filter(
            link__employer_id__in=administered, link__employer__verification=Verification.VERIFIED
        )
        .select_related("link__employer", "link__application")
        .order_by("-id")
    )


@audited_refusals_of("partnerconsent", action="partner.open")
def get_visible_partner_request(user: User, consent_id: int) -> PartnerConsent:
    """One of visible_partner_requests(user), or 404 (audited): nobody else learns it exists."""
    found = visible_partner_requests(user).filter(pk=consent_id).first()
    if found is None:
        raise ServiceError(404, "NOT_FOUND", "No such request.", "Aucune demande de ce genre.")
    return found
