"""Who may see which change request: the application's rules, applied to its agreement's file.

A change request is seen by whoever may see its application (grants.access.can_see): the
applicant's people, the officers of its jurisdiction and government, and the back-office roles
that read every file. Anyone else is told there is no such change request (404, never 403).
"""

from __future__ import annotations

from django.db.models import QuerySet

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.grants.changes.refusals import change_not_found
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.changes import ChangeRequest


def visible_changes(user: User) -> QuerySet[ChangeRequest]:
    """The change requests `user` may read (those of the applications they may read)."""
    applications = access.visible_applications(user).values("pk")
    return ChangeRequest.objects.filter(agreement__application__in=applications)


@audited_refusals_of("changerequest")
def get_visible_change(user: User, change_id: int) -> ChangeRequest:
    found = (
        ChangeRequest.objects.select_related(
            "agreement", "agreement__application", "requested_by", "decided_by"
        )
        .filter(pk=change_id)
        .first()
    )
    if found is None or not access.can_see(user, found.agreement.application):
        raise change_not_found()
    return found
