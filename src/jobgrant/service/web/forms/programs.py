"""The forms of programs, streams and intakes: they only read what was typed; the actions
(grants/intakes) check it and name each field in error, put back under it here."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from jobgrant.service.grants.models.applications import Selection
from jobgrant.service.web.forms.organizations import PlainForm, _text


class DateInput(forms.TextInput):
    input_type = "date"


class IntakeForm(PlainForm):
    name_en = _text(_("Name in English"))
    name_fr = _text(_("Name in French"))
    opens_on = _text(
        _("Opens on"),
        hint=_("The first day applications are received (YYYY-MM-DD)."),
        widget=DateInput,
    )
    closes_on = _text(
        _("Closes on"),
        hint=_("The last day applications are received (YYYY-MM-DD)."),
        widget=DateInput,
    )
    federal_budget = _text(
        _("Federal budget"),
        hint=_(
            "In dollars, for example 500000.00: set aside from the federal budget account. "
            "Zero: the intake's files take from the whole account."
        ),
    )
    provincial_budget = _text(
        _("Provincial or territorial budget"),
        hint=_(
            "In dollars: set aside from the provincial or territorial budget account. "
            "Zero: the intake's files take from the whole account."
        ),
    )


class StreamRulesForm(PlainForm):
    selection = forms.ChoiceField(
        label=_("Selection"),
        required=False,
        choices=Selection.choices,
        widget=forms.RadioSelect,
    )
    scoring = forms.ChoiceField(
        label=_("Scoring criteria"),
        required=False,
        help_text=_("For a ranked stream: the criteria the rules kernel scores applications by."),
    )
    policy = forms.ChoiceField(
        label=_("Policy"),
        required=False,
        help_text=_(
            "The rules kernel's policy for the whole program: its share rates, limits and "
            "eligible settings. It cannot change once applications were made."
        ),
    )

    def __init__(self, *args: Any, sets: list[str], policies: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        none = [("", str(_("None")))]
        self.fields["scoring"].choices = none + [(name, name) for name in sets]  # type: ignore[attr-defined]
        self.fields["policy"].choices = [(name, name) for name in policies]  # type: ignore[attr-defined]


class CloseIntakeForm(PlainForm):
    reason = _text(
        _("Why the intake closes early"),
        hint=_("Kept in the audit trail and shown on the intake's page."),
        widget=forms.Textarea,
    )
