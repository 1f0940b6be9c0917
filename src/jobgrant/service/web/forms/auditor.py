"""The auditor's form: the audit trail's filters (the page and its CSV use the same)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.web.audit_entries import action_label, object_type_label
from jobgrant.service.web.pages import set_choices


class TrailFilter(forms.Form):
    """The dates are typed as their hint says (year-month-day), with no date picker beside it:
    a browser's picker shows its own format, which the hint would contradict."""

    actor = forms.CharField(label=gettext_lazy("Actor (username)"), required=False, max_length=150)
    action = forms.ChoiceField(label=gettext_lazy("Action"), required=False)
    object_type = forms.ChoiceField(label=gettext_lazy("Object type"), required=False)
    object_id = forms.CharField(label=gettext_lazy("Object number"), required=False, max_length=64)
    sequence = forms.IntegerField(
        label=gettext_lazy("Entry number"), required=False, min_value=1, max_value=2**62
    )
    since = forms.DateField(
        label=gettext_lazy("From (date)"),
        required=False,
        help_text=gettext_lazy("Year-month-day, for example 2026-11-29."),
        widget=forms.DateInput(format="%Y-%m-%d"),
        error_messages={"invalid": gettext_lazy("Enter a date like 2026-11-29.")},
    )
    until = forms.DateField(
        label=gettext_lazy("To (date)"),
        required=False,
        help_text=gettext_lazy("Year-month-day, for example 2026-11-29."),
        widget=forms.DateInput(format="%Y-%m-%d"),
        error_messages={"invalid": gettext_lazy("Enter a date like 2026-11-29.")},
    )

    def __init__(self, data: Any) -> None:
        super().__init__(data)
        actions = AuditEntry.objects.order_by("action").values_list("action", flat=True).distinct()
        set_choices(
            self, "action", [("", _("All actions")), *((a, action_label(a)) for a in actions)]
        )
        types = (
            AuditEntry.objects.order_by("object_type")
            .values_list("object_type", flat=True)
            .distinct()
        )
        set_choices(
            self,
            "object_type",
            [("", _("All object types")), *((t, object_type_label(t)) for t in types)],
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            self.add_error("until", _("The end date must not come before the start date."))
        return data
