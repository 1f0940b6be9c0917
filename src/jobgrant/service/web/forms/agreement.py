"""The agreement's forms: accepting it (typed name, title, three confirmations) and the reason
given to decline or withdraw an offer."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy

from jobgrant.service.grants.agreements.actions import OFFER_END_REASON_MAX

MAX_NAME = 200


class AcceptForm(forms.Form):
    signatory = forms.CharField(
        label=gettext_lazy("Signatory's full name"),
        help_text=gettext_lazy("Type the name of the person signing for the employer."),
        max_length=MAX_NAME,
        error_messages={"required": gettext_lazy("Enter the signatory's full name.")},
    )
    title = forms.CharField(
        label=gettext_lazy("Signatory's title"),
        help_text=gettext_lazy(
            "Their position in the organization, for example Owner or Director of Operations."
        ),
        max_length=MAX_NAME,
        error_messages={"required": gettext_lazy("Enter the signatory's title.")},
    )
    agreement = forms.BooleanField(
        label=gettext_lazy("I have read the agreement and accept it for the employer."),
        error_messages={"required": gettext_lazy("Confirm that you accept the agreement.")},
    )
    cost_schedule = forms.BooleanField(
        label=gettext_lazy("I have read the schedule of approved costs and accept it."),
        error_messages={
            "required": gettext_lazy("Confirm that you accept the schedule of approved costs.")
        },
    )
    general_terms = forms.BooleanField(
        label=gettext_lazy("I have read the general terms and accept them."),
        error_messages={"required": gettext_lazy("Confirm that you accept the general terms.")},
    )

    def clean_signatory(self) -> str:
        return _printable(self.cleaned_data["signatory"])

    def clean_title(self) -> str:
        return _printable(self.cleaned_data["title"])

    def confirmations(self) -> list[str]:
        return [
            name
            for name in ("agreement", "cost_schedule", "general_terms")
            if self.cleaned_data.get(name)
        ]


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        help_text=gettext_lazy("The applicant and the program office will read it."),
        max_length=OFFER_END_REASON_MAX,
        widget=forms.Textarea,
        error_messages={"required": gettext_lazy("Give the reason.")},
    )


def _printable(value: str) -> str:
    text = value.strip()
    if not text.isprintable():
        raise forms.ValidationError(gettext_lazy("Use letters, digits and punctuation only."))
    return text
