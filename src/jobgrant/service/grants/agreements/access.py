"""Who may read which agreement: the readers of its application (grants.access decides)."""

from __future__ import annotations

from django.db.models import QuerySet

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import not_found
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.agreements import Agreement, AgreementVersion


def get_visible_agreement(user: User, application_id: int) -> Agreement:
    """The agreement of an application `user` may read, or 404 (an application they may not
    read is refused, and recorded, by access.get_visible_application)."""
    application = access.get_visible_application(user, application_id)
    found = Agreement.objects.filter(application_id=application.pk).first()
    if found is None:
        raise not_found()
    found.application = application
    return found


def version_shown(agreement: Agreement) -> AgreementVersion:
    """The latest version: the one in force, or the one offered."""
    return AgreementVersion.objects.get(agreement_id=agreement.pk, number=agreement.version)


def visible_agreements(user: User) -> QuerySet[Agreement]:
    return Agreement.objects.filter(application__in=access.visible_applications(user))
