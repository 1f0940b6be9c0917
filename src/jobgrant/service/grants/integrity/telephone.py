"""An organization's telephone number, changed by its administrator.

Asked at registration (people/organizations.py); an organization registered before, or whose
number is wrong, gives it here. It lives beside the flags, as the direct-deposit account does,
because the related-provider flag compares it with the provider's declared telephone: the
undecided files of the organization have that comparison worked out again in the same
transaction.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import bad_input
from jobgrant.service.grants.integrity.actions import rework_phone
from jobgrant.service.people.organizations import is_admin, phone_problem
from jobgrant.service.refusals import forbidden_for
from jobgrant.service.registry.identifiers import normalize_phone
from jobgrant.service.registry.models import Employer


@audited_refusals_of("employer")
def set_phone(user: User, employer: Employer, typed: Mapping[str, object]) -> Employer:
    """Check the number (422 naming the field, nothing written), then store it as NNN-NNN-NNNN
    for the organization `user` administers."""
    if not is_admin(user, employer):
        raise forbidden_for("NOT_YOUR_ORGANIZATION")
    phone = normalize_phone(str(typed.get("phone") or ""))
    if phone is None:
        raise bad_input([phone_problem()])
    with transaction.atomic():
        locked = Employer.objects.select_for_update().get(pk=employer.pk)
        before = locked.phone
        if phone == before:
            return locked  # the same number: nothing changes, nothing to record
        locked.phone = phone
        locked.save(update_fields=["phone"])
        summary = {"phone": phone, "previous_phone": before}
        record(user.username, "organization.set_phone", "employer", locked.pk, summary)
        rework_phone(user.username, locked)
    return locked
