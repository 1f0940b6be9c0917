"""Who handles an application: an officer takes a file, or gives it to a colleague, and releases it.

An assignment is not a change of state (`grants.workflow` knows nothing of it): it says which
officer is working on a file awaiting a decision. Each change runs in one transaction with its
audit entry, which names the officers by username only. Refusals are worded in
`service.refusals`; a 403 is recorded by `audited_refusals_of`, as for every action.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError, bad_input, not_found, problem
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.refusals import refused

# A denied or withdrawn file has nobody left to work on it, and a draft is still the
# employer's: only the states an officer acts on can be assigned. An approved file has claims
# to assess, and only the officer it is assigned to assesses them (grants.claim_actions).
ASSIGNABLE_STATES = (State.SUBMITTED, State.RECOMMENDED, State.APPROVED)


@audited_refusals_of("application")
def assign_application(user: User, application: Application, to: User) -> Application:
    """Give the file to `to` (the user themself for "Assign to me"), taking it from whoever
    had it. Both must be officers who cover it: the right government and jurisdiction, and no
    tie to its employers."""
    access.require_role(user, Role.OFFICER)
    access.check_officer(user, application)
    if to.pk != user.pk:
        access.check_may_be_assigned(to, application)
    with transaction.atomic():
        locked = _locked(application)
        if locked.state not in ASSIGNABLE_STATES:
            raise _not_assignable(locked.state)
        previous = locked.assigned_to
        _set_assignee(application, to)
        summary = {"state": locked.state, "to": to.username}
        if previous is not None and previous.pk != to.pk:
            summary["from"] = previous.username
        record(user.username, "application.assign", "application", application.pk, summary)
    return application


@audited_refusals_of("application")
def release_application(user: User, application: Application) -> Application:
    """Give back a file one holds, so that it is assigned to nobody. Allowed in any state: a
    file decided while assigned can still be let go."""
    access.require_role(user, Role.OFFICER)
    access.check_officer(user, application)
    with transaction.atomic():
        locked = _locked(application)
        if locked.assigned_to_id != user.pk:
            raise refused(409, "NOT_ASSIGNED_TO_YOU")
        _set_assignee(application, None)
        summary = {"state": locked.state, "from": user.username}
        record(user.username, "application.release", "application", application.pk, summary)
    return application


@audited_refusals_of("application", action="assign_application")
def assign_by_username(user: User, application: Application, username: str) -> Application:
    """`assign_application` to the officer named `username` (the API's `to`): the caller
    themself when it is empty or theirs. The caller's own refusals come first (the role, the
    file's scope), then 422 naming `to` when no active officer has that name."""
    access.require_role(user, Role.OFFICER)
    access.check_officer(user, application)
    return assign_application(user, application, _officer_named(user, username))


def _officer_named(user: User, username: str) -> User:
    if not username or username == user.username:
        return user
    found = User.objects.filter(username=username, role=Role.OFFICER, is_active=True).first()
    if found is None:
        raise bad_input(
            [
                problem(
                    "to",
                    "must be the username of an active program officer",
                    "doit être le nom d'utilisateur d'un agent de programme actif",
                )
            ]
        )
    return found


def _locked(application: Application) -> Application:
    """The row's state and assignee, read again under its lock: two officers taking the same
    file one after the other each see what the first did."""
    found = (
        Application.objects.select_for_update(of=("self",))
        .select_related("assigned_to")
        .only("state", "assigned_to__username")
        .filter(pk=application.pk)
        .first()
    )
    if found is None:
        raise not_found()
    return found


def _set_assignee(application: Application, officer: User | None) -> None:
    now = timezone.now()
    Application.objects.filter(pk=application.pk).update(assigned_to=officer, updated_at=now)
    application.assigned_to, application.updated_at = officer, now


def _not_assignable(state: str) -> ServiceError:
    return refused(
        409,
        "NOT_ASSIGNABLE",
        lambda: {"state": State(state).label},
        extra={"state": state},
    )
