"""The KPIs page's choice: a jurisdiction (or Canada) and a fiscal year."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.models.applications import Program
from jobgrant.service.outcomes.access import may_read
from jobgrant.service.web.labels import jurisdiction_choices
from jobgrant.service.web.pages import set_choices

CANADA = ""


class KpiChoice(forms.Form):
    jurisdiction = forms.ChoiceField(label=gettext_lazy("Jurisdiction"), required=False)
    fiscal_year = forms.ChoiceField(label=gettext_lazy("Fiscal year"), required=False)

    def __init__(self, data: Any, user: User) -> None:
        super().__init__(data)
        places = [(CANADA, _("Canada (every jurisdiction)")), *jurisdiction_choices()]
        set_choices(
            self,
            "jurisdiction",
            [(code, name) for code, name in places if may_read(user, code or None)],
        )
        self.years = sorted(
            set(Program.objects.values_list("fiscal_year", flat=True)), reverse=True
        )
        set_choices(self, "fiscal_year", [(year, year) for year in self.years])

    def choice(self) -> tuple[str | None, str]:
        """(jurisdiction or None for Canada, fiscal year): the latest year by default."""
        data = self.cleaned_data
        return data["jurisdiction"] or None, data["fiscal_year"] or (self.years or [""])[0]
