"""Labels of the service's codes in the page's language: states, funders, delivery, roles, places.

One place for the words the pages show; the forms and views import them from here.
"""

from __future__ import annotations

from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from jobgrant.rules.codes import JURISDICTIONS
from jobgrant.service.accounts.models import Role
from jobgrant.service.errors import ServiceError

ROLE_LABELS: dict[str, Promise] = {
    Role.EMPLOYER: gettext_lazy("employer"),
    Role.OFFICER: gettext_lazy("program officer"),
    Role.FINANCE: gettext_lazy("finance officer"),
    Role.ANALYST: gettext_lazy("policy analyst"),
    Role.AUDITOR: gettext_lazy("auditor"),
    Role.ADMIN: gettext_lazy("administrator"),
}
STATE_LABELS: dict[str, Promise] = {
    "draft": pgettext_lazy("application state", "Draft"),
    "submitted": pgettext_lazy("application state", "Submitted"),
    "recommended": pgettext_lazy("application state", "Recommended"),
    "approved": pgettext_lazy("application state", "Approved"),
    "denied": pgettext_lazy("application state", "Denied"),
    "withdrawn": pgettext_lazy("application state", "Withdrawn"),
}
FUNDER_LABELS: dict[str, Promise] = {
    "federal": gettext_lazy("Federal"),
    "provincial": gettext_lazy("Provincial or territorial"),
}
DELIVERY_LABELS: dict[str, Promise] = {
    "provincial": gettext_lazy("Delivered by the province or territory"),
    "federal-direct": gettext_lazy("Delivered directly by the Government of Canada"),
    "separate-agreement": gettext_lazy("Separate agreement, no grant"),
}


def label(labels: dict[str, Promise], key: str) -> str:
    """The label of a code in the page's language; the code itself when it has none."""
    found = labels.get(key)
    return key if found is None else str(found)


def language() -> str:
    return (translation.get_language() or "en")[:2]


def jurisdiction_name(code: str) -> str:
    for jurisdiction in JURISDICTIONS:
        if jurisdiction.code == code:
            return jurisdiction.name_fr if language() == "fr" else jurisdiction.name_en
    return code


def jurisdiction_choices() -> list[tuple[str, str]]:
    return [(j.code, jurisdiction_name(j.code)) for j in JURISDICTIONS]


def service_message(error: ServiceError) -> str:
    """The service's own explanation of a refusal, in the page's language."""
    return error.message_fr if language() == "fr" else error.message_en


def state_labels() -> dict[str, str]:
    return {key: str(value) for key, value in STATE_LABELS.items()}


def delivery_labels() -> dict[str, str]:
    return {key: str(value) for key, value in DELIVERY_LABELS.items()}


def setting_labels() -> dict[str, str]:
    return {
        "on-site": _("On site, at the workplace"),
        "off-site": _("Off site, in a classroom"),
        "online": _("Online"),
    }


def status_labels() -> dict[str, str]:
    return {
        "existing-employee": _("Existing employee"),
        "new-hire": _("New hire"),
        "unemployed": _("Unemployed, to be hired"),
    }


def cost_labels() -> dict[str, str]:
    return {
        "tuition": _("Tuition or trainer fees"),
        "student_fees": _("Mandatory student fees"),
        "materials": _("Textbooks, software and other required materials"),
        "exam_fees": _("Examination fees"),
        "wages_in_kind": _("Wages paid during training (in-kind contribution)"),
    }
