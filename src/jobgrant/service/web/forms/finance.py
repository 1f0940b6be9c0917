"""The finance officer's form: the budgets' filters."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.web.labels import FUNDER_LABELS, jurisdiction_choices, label, stream_label
from jobgrant.service.web.pages import set_choices

ALL = "all"


class BudgetFilter(forms.Form):
    fiscal_year = forms.ChoiceField(label=gettext_lazy("Fiscal year"), required=False)
    jurisdiction = forms.ChoiceField(label=gettext_lazy("Jurisdiction"), required=False)
    funder = forms.ChoiceField(label=gettext_lazy("Funder"), required=False)
    stream = forms.ChoiceField(label=gettext_lazy("Stream"), required=False)

    def __init__(self, data: Any) -> None:
        super().__init__(data)
        years = sorted(set(BudgetAccount.objects.values_list("fiscal_year", flat=True)))
        set_choices(
            self,
            "fiscal_year",
            [("", _("This fiscal year")), (ALL, _("All fiscal years")), *((y, y) for y in years)],
        )
        set_choices(self, "jurisdiction", [("", _("All jurisdictions")), *jurisdiction_choices()])
        set_choices(
            self,
            "funder",
            [("", _("Both funders")), *((f, label(FUNDER_LABELS, f)) for f in Funder.values)],
        )
        streams = sorted(set(BudgetAccount.objects.values_list("stream", flat=True)))
        named = ((s, stream_label(s)) for s in streams)
        set_choices(self, "stream", [("", _("All streams")), *named])
