"""The finance officer's payment and recovery forms: build a batch, hold a payment, import the
paying system's file, record a repayment, ask for or approve a write-off."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy

from jobgrant.service.grants.payments import recovery
from jobgrant.service.grants.payments.limits import MAX_REASON
from jobgrant.service.web.labels import jurisdiction_choices
from jobgrant.service.web.pages import set_choices

MAX_FILE = 20 * 1024 * 1024


#: A fiscal year as people write it: 2026-27, 2026-2027, with a dash or an en dash, spaced or not.
FISCAL_YEAR = re.compile(r"(\d{4})\s*[-\u2013\u2014/]\s*(\d{2}|\d{4})")
MAX_FISCAL_YEAR = 20  # characters: room for "2026 - 2027" and more, never cut in the browser


class FiscalYearField(forms.CharField):
    """A fiscal year typed in short or in full, cleaned to its short form ("2026-27"); anything
    else is refused with what it must look like."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=MAX_FISCAL_YEAR, **kwargs)

    def clean(self, value: Any) -> str:
        typed = str(super().clean(value))
        found = FISCAL_YEAR.fullmatch(typed)
        start = int(found[1]) if found else 0
        end = found[2] if found else ""
        if found and (end == str(start + 1) or end == str(start + 1)[-2:]):
            return f"{start}-{str(start + 1)[-2:]}"
        raise forms.ValidationError(
            gettext_lazy(
                "%(typed)s is not a fiscal year: write the year it starts and the next, for "
                "example 2026-27 or 2026-2027."
            )
            % {"typed": typed[:MAX_FISCAL_YEAR]}
        )


class BuildForm(forms.Form):
    jurisdiction = forms.ChoiceField(
        label=gettext_lazy("Jurisdiction"),
        error_messages={"required": gettext_lazy("Choose the jurisdiction to pay.")},
    )
    fiscal_year = FiscalYearField(
        label=gettext_lazy("Fiscal year"),
        help_text=gettext_lazy("Written 2026-27 or 2026-2027."),
        error_messages={"required": gettext_lazy("Enter the fiscal year, written 2026-27.")},
    )

    def __init__(self, data: Any = None, initial: dict[str, str] | None = None) -> None:
        super().__init__(data, initial=initial)
        set_choices(self, "jurisdiction", [("", ""), *jurisdiction_choices()])


class HoldForm(forms.Form):
    payment = forms.ChoiceField(
        label=gettext_lazy("Payment to hold"),
        error_messages={"required": gettext_lazy("Choose the payment to hold.")},
    )
    reason = forms.CharField(
        label=gettext_lazy("Why it is held"),
        help_text=gettext_lazy("Kept with the payment and in the audit trail."),
        max_length=MAX_REASON,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": gettext_lazy("Say why the payment is held.")},
    )

    def __init__(self, data: Any = None, choices: list[tuple[str, str]] | None = None) -> None:
        super().__init__(data)
        set_choices(self, "payment", [("", ""), *(choices or [])])


class ConfirmationForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("The paying system's confirmation file (CSV)"),
        help_text=gettext_lazy(
            "A header line with document_number and amount (paid_on and payment_reference "
            "if the file has them), then one line per payment made."
        ),
        error_messages={"required": gettext_lazy("Choose the confirmation file to import.")},
    )

    def clean_file(self) -> Any:
        uploaded = self.cleaned_data["file"]
        if uploaded.size > MAX_FILE:
            raise forms.ValidationError(gettext_lazy("The file is larger than 20 MB."))
        return uploaded


class RepaymentForm(forms.Form):
    amount = forms.RegexField(
        label=gettext_lazy("Amount received"),
        help_text=gettext_lazy("In dollars, for example 1250.00."),
        regex=r"^\d{1,10}(\.\d{1,2})?$",
        max_length=13,
        error_messages={
            "required": gettext_lazy("Enter the amount received."),
            "invalid": gettext_lazy("Write the amount in dollars, for example 1250.00."),
        },
    )
    received_on = forms.DateField(
        label=gettext_lazy("Received on"),
        help_text=gettext_lazy("The day the bank confirmed it, written 2026-11-30."),
        error_messages={
            "required": gettext_lazy("Enter the day the repayment was received."),
            "invalid": gettext_lazy("Write the date as 2026-11-30."),
        },
    )
    reference = forms.CharField(
        label=gettext_lazy("Reference"),
        help_text=gettext_lazy("The cheque or transfer number."),
        max_length=64,
        required=False,
    )


class WriteOffForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Why it is written off"),
        help_text=gettext_lazy("A second finance officer reads it before approving."),
        max_length=recovery.MAX_REASON,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": gettext_lazy("Say why the amount is written off.")},
    )
