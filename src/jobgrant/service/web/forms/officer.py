"""The program officer's forms: the queue's filters, and the decision on an application."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.models.applications import State
from jobgrant.service.web.labels import STATE_LABELS, jurisdiction_choices
from jobgrant.service.web.pages import set_choices

QUEUE_STATES = (State.SUBMITTED, State.RECOMMENDED, State.APPROVED, State.DENIED, State.WITHDRAWN)
AGES = (7, 14, 30)
ASSIGNED = {"me": gettext_lazy("Me"), "nobody": gettext_lazy("Nobody")}
MAX_TEXT = 4000
MAX_SEARCH = 200
# The columns the queue can be sorted by, each with the fields it orders on (the id last, so
# that equal values keep one order from page to page).
SORTS = {
    "id": ("id",),
    # a ranked intake's order; files of no ranking after them (officer_queue.default_sort)
    "rank": ("rank_order", "id"),
    "employer": ("lead_name", "id"),
    "jurisdiction": ("jurisdiction", "id"),
    "stream": ("stream__name_en", "id"),
    "received": ("received_on", "id"),
    "state": ("state", "id"),
    "government": ("government_cents", "id"),
    # waiting longest first is received earliest first: the same order, the other way round
    "waiting": ("-received_on", "-id"),
    # the decision due first (officer_queue.due_first: a file from before the due day was
    # stored counts as due on the day it was received, so it comes first)
    "due": ("due_first", "id"),
}
#: The queue's order when none is chosen: what is due first.
DEFAULT_SORT = "due"


def jurisdictions_of(user: User) -> set[str]:
    if user.jurisdiction:
        return {user.jurisdiction}
    return {code for code, _name in jurisdiction_choices()}


class QueueFilter(forms.Form):
    search = forms.CharField(
        label=gettext_lazy("Search"),
        help_text=gettext_lazy("An application number, an employer's name or business number."),
        required=False,
        max_length=MAX_SEARCH,
    )
    state = forms.ChoiceField(label=gettext_lazy("State"), required=False)
    jurisdiction = forms.ChoiceField(label=gettext_lazy("Jurisdiction"), required=False)
    stream = forms.ChoiceField(label=gettext_lazy("Stream"), required=False)
    age = forms.ChoiceField(label=gettext_lazy("Days since received"), required=False)
    assigned = forms.ChoiceField(label=gettext_lazy("Assigned to"), required=False)
    due = forms.ChoiceField(label=gettext_lazy("Decision due"), required=False)
    sort = forms.ChoiceField(required=False, widget=forms.HiddenInput)

    def __init__(self, data: Any, user: User, streams: list[tuple[str, str]]) -> None:
        super().__init__(data)
        states: list[tuple[str, str]] = [("", _("Awaiting a decision")), ("all", _("Any state"))]
        states += [(s, str(STATE_LABELS[s])) for s in QUEUE_STATES]
        set_choices(self, "state", states)
        codes = jurisdictions_of(user)
        set_choices(
            self,
            "jurisdiction",
            [
                ("", _("All jurisdictions")),
                *((code, name) for code, name in jurisdiction_choices() if code in codes),
            ],
        )
        set_choices(self, "stream", [("", _("All streams")), *streams])
        set_choices(
            self,
            "age",
            [
                ("", _("Any")),
                *((str(days), _("More than %(days)s days") % {"days": days}) for days in AGES),
            ],
        )
        set_choices(
            self, "assigned", [("", _("Anyone")), *((k, str(v)) for k, v in ASSIGNED.items())]
        )
        set_choices(self, "due", [("", _("Any")), ("overdue", _("Overdue"))])
        sorts = [(key, key) for key in SORTS] + [(f"-{key}", key) for key in SORTS]
        set_choices(self, "sort", [("", ""), *sorts])

    def clean_search(self) -> str:
        return " ".join(str(self.cleaned_data.get("search") or "").split())


class DecisionForm(forms.Form):
    note = forms.CharField(
        label=gettext_lazy("Note"),
        help_text=gettext_lazy("Optional. Kept in the application's history with your decision."),
        required=False,
        max_length=MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class DenyForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason for the denial"),
        help_text=gettext_lazy("The applicant will read this reason."),
        max_length=MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": gettext_lazy("Enter the reason for the denial.")},
    )


class ClearFlagForm(forms.Form):
    """Why an open risk flag is cleared: what the officer checked (the action checks it)."""

    reason = forms.CharField(
        label=gettext_lazy("What you checked"),
        help_text=gettext_lazy(
            "Say what you checked and what you found, for example the provider's public price "
            "list or the employer's explanation. It is kept in the audit trail."
        ),
        required=False,
        max_length=MAX_TEXT,
        widget=forms.Textarea,
    )
