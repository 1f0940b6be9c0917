"""Audit entries in words, in the page's language: what was done, to what, and the details
each action recorded (money formatted, codes named), for the auditor's page and its CSV.

The entries themselves keep codes and cents (they are hashed as written); only their display
is translated here. A code with no label is shown as it is, so nothing recorded is hidden.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.web.labels import (
    FUNDER_LABELS,
    ROLE_LABELS,
    STATE_LABELS,
    jurisdiction_name,
    label,
)
from jobgrant.service.web.templatetags.jobgrant import money

ACTION_LABELS: dict[str, Promise] = {
    "application.create": gettext_lazy("Application created"),
    "application.submit": gettext_lazy("Application submitted"),
    "application.recommend": gettext_lazy("Application recommended"),
    "application.approve": gettext_lazy("Application approved"),
    "application.deny": gettext_lazy("Application denied"),
    "application.withdraw": gettext_lazy("Application withdrawn"),
    "application.assign": gettext_lazy("Application assigned"),
    "application.release": gettext_lazy("Application released"),
    "budget.allocate": gettext_lazy("Budget allocated"),
    "user.create": gettext_lazy("User created"),
    "employer.register": gettext_lazy("Employer registered"),
    "trainee.register": gettext_lazy("Trainee registered"),
    "trainee.view_sin": gettext_lazy("Social Insurance Number viewed in full"),
    "token.issue": gettext_lazy("API token issued"),
    "user.email_change_requested": gettext_lazy("New email address asked for (link sent to it)"),
    "user.email_change": gettext_lazy("Email address changed"),
    "staff.deactivate": gettext_lazy("Staff account deactivated"),
    "staff.reactivate": gettext_lazy("Staff account reactivated"),
    "otp.rekey": gettext_lazy("Authenticator seeds sealed under the current key"),
}
# What a refused entry ("refused." + the action's name) says was attempted; a refused page
# (open_page) or read (get_visible) included.
ATTEMPT_LABELS: dict[str, Promise] = {
    "create_application": gettext_lazy("create an application"),
    "submit_application": gettext_lazy("submit an application"),
    "recommend_application": gettext_lazy("recommend an application"),
    "approve_application": gettext_lazy("approve an application"),
    "deny_application": gettext_lazy("deny an application"),
    "withdraw_application": gettext_lazy("withdraw an application"),
    "assign_application": gettext_lazy("assign an application"),
    "release_application": gettext_lazy("release an application"),
    "employer.register": gettext_lazy("register an employer"),
    "trainee.register": gettext_lazy("register a trainee"),
    "trainee.view_sin": gettext_lazy("view a Social Insurance Number in full"),
    "user.email_change": gettext_lazy("change an email address"),
    "get_visible": gettext_lazy("open an application"),
    "open_page": gettext_lazy("open a page"),
}
REFUSED = gettext_lazy("Refused: %(attempt)s")
OBJECT_TYPE_LABELS: dict[str, Promise] = {
    "application": gettext_lazy("Application"),
    "budget": gettext_lazy("Budget"),
    "user": gettext_lazy("User"),
    "employer": gettext_lazy("Employer"),
    "trainee": gettext_lazy("Trainee"),
    "page": gettext_lazy("Page"),
    "totpdevice": gettext_lazy("Authenticator app"),
}
# The details' names, in the order they are shown.
FIELD_LABELS: dict[str, Promise] = {
    "code": gettext_lazy("Reason for the refusal"),
    "status": gettext_lazy("HTTP status"),
    "reason": gettext_lazy("Reason"),
    "state": gettext_lazy("State"),
    "to": gettext_lazy("Assigned to"),
    "from": gettext_lazy("Previously assigned to"),
    "jurisdiction": gettext_lazy("Jurisdiction"),
    "fiscal_year": gettext_lazy("Fiscal year"),
    "funder": gettext_lazy("Funder"),
    "cents": gettext_lazy("Amount"),
    "federal_cents": gettext_lazy("Federal share"),
    "provincial_cents": gettext_lazy("Provincial or territorial share"),
    "employer_cents": gettext_lazy("Employer share"),
    "username": gettext_lazy("Username"),
    "role": gettext_lazy("Role"),
    "name": gettext_lazy("Name"),
    "business_number": gettext_lazy("Business number"),
    "employees": gettext_lazy("Employees"),
    "naics": gettext_lazy("NAICS code"),
    "region": gettext_lazy("Economic region"),
    "employer": gettext_lazy("Employer number"),
    "sin_recorded": gettext_lazy("SIN recorded"),
    "tokens_revoked": gettext_lazy("API tokens revoked"),
    "from_domain": gettext_lazy("Domain of the old address"),
    "to_domain": gettext_lazy("Domain of the new address"),
    "rows": gettext_lazy("Rows"),
    "key_id": gettext_lazy("Key"),
    "invitations_revoked": gettext_lazy("Invitations cancelled"),
}
REFUSAL_CODE_LABELS: dict[str, Promise] = {
    "SEPARATION_OF_DUTIES": gettext_lazy("separation of duties: the recommender cannot approve"),
    "CONFLICT_OF_INTEREST": gettext_lazy("conflict of interest"),
    "NOT_YOUR_FILE": gettext_lazy("not in the officer's files"),
    "NOT_THEIR_FILE": gettext_lazy("not in the files of the officer it was to go to"),
    "NOT_THE_APPLICANT": gettext_lazy("not the applicant organization"),
    "NOT_YOUR_ORGANIZATION": gettext_lazy("not an employer the person acts for"),
    "NOT_YOUR_JURISDICTION": gettext_lazy("another jurisdiction"),
    "ROLE_NOT_ALLOWED": gettext_lazy("the role does not allow it"),
    "SIN_VIEW_NOT_ALLOWED": gettext_lazy("no permission to view a SIN in full"),
    "NOT_FOUND": gettext_lazy("no such application, or not one the person may read"),
    "EMAIL_TAKEN": gettext_lazy("another account uses this email address"),
}

# The details whose values are codes with labels.
CODED_FIELDS: dict[str, Mapping[str, object]] = {
    "state": STATE_LABELS,
    "funder": FUNDER_LABELS,
    "role": ROLE_LABELS,
    "code": REFUSAL_CODE_LABELS,
}


def action_label(action: str) -> str:
    if action in ACTION_LABELS:
        return str(ACTION_LABELS[action])
    if action.startswith("refused."):
        attempt = action.removeprefix("refused.")
        return str(REFUSED) % {"attempt": label(ATTEMPT_LABELS, attempt)}
    return action


def object_type_label(object_type: str) -> str:
    return label(OBJECT_TYPE_LABELS, object_type)


def value_text(key: str, value: object) -> str:
    """One detail's value as a person reads it: money formatted, codes named."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return _("Yes") if value else _("No")
    if (key == "cents" or key.endswith("_cents")) and isinstance(value, int):
        return money(value)
    if key == "jurisdiction":
        return jurisdiction_name(str(value))
    labels = CODED_FIELDS.get(key)
    return str(value) if labels is None else label(labels, str(value))


def details(entry: AuditEntry) -> list[tuple[str, str]]:
    """The entry's details as (name, value) in words, known names first in a fixed order."""
    summary = entry.summary if isinstance(entry.summary, dict) else {}
    order = list(FIELD_LABELS)
    keys = sorted(summary, key=lambda k: (order.index(k) if k in order else len(order), k))
    return [(label(FIELD_LABELS, key), value_text(key, summary[key])) for key in keys]
