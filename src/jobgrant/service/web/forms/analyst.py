"""The policy analyst's form: the policy, funding scenario and fiscal year to run."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.funding.scenario import FundingScenario
from jobgrant.funding.years import FULL_IMPLEMENTATION, MODEL_YEARS
from jobgrant.rules.evaluate import default_library
from jobgrant.service.language import in_language
from jobgrant.service.web.pages import set_choices

DEFAULT_SCENARIO = "budget-2013"


class ScenarioForm(forms.Form):
    policy = forms.ChoiceField(
        label=gettext_lazy("Policy"),
        help_text=gettext_lazy("The grant's rules; by default, the policy the scenario names."),
        required=False,
    )
    scenario = forms.ChoiceField(label=gettext_lazy("Funding scenario"), required=False)
    fiscal_year = forms.ChoiceField(label=gettext_lazy("Fiscal year"), required=False)

    def __init__(self, data: Any, scenarios: dict[str, FundingScenario]) -> None:
        super().__init__(data)
        policies = [(p, p) for p in default_library().policies]
        set_choices(self, "policy", [("", _("The scenario's policy")), *policies])
        title = in_language(en="title_en", fr="title_fr")
        set_choices(
            self,
            "scenario",
            [(name, f"{getattr(s, title)} ({name})") for name, s in scenarios.items()],
        )
        set_choices(self, "fiscal_year", [(y, y) for y in MODEL_YEARS])

    def choice(self) -> tuple[str, str, str]:
        """(policy or "", scenario name, fiscal year), with the defaults filled in."""
        data = self.cleaned_data
        return (
            data["policy"],
            data["scenario"] or DEFAULT_SCENARIO,
            data["fiscal_year"] or FULL_IMPLEMENTATION,
        )
