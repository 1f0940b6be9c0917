"""The analyst's simulation form: scenario, fiscal years, draws and seed."""

from __future__ import annotations

from typing import Any

from babel.numbers import format_decimal
from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.funding.years import MODEL_YEARS
from jobgrant.service.analysis.actions import MAX_DRAWS, RunRequest
from jobgrant.service.analysis.scenarios import BASELINE
from jobgrant.service.language import current_language, current_locale
from jobgrant.service.web.pages import set_choices
from jobgrant.simulation.montecarlo import DEFAULT_SEED
from jobgrant.simulation.scenario import Scenario

DEFAULT_DRAWS = 20
SEED_MAX = 2**31 - 1
INITIAL = {
    "scenario": BASELINE,
    "first_year": MODEL_YEARS[0],
    "last_year": MODEL_YEARS[-1],
    "draws": DEFAULT_DRAWS,
    "seed": DEFAULT_SEED,
}


class SimulationForm(forms.Form):
    scenario = forms.ChoiceField(label=gettext_lazy("Scenario"))
    first_year = forms.ChoiceField(label=gettext_lazy("First fiscal year"))
    last_year = forms.ChoiceField(label=gettext_lazy("Last fiscal year"))
    draws = forms.IntegerField(
        label=gettext_lazy("Draws"),
        min_value=1,
        max_value=MAX_DRAWS,
        help_text=gettext_lazy(
            "How many times the population and the uncertain parameters are drawn again: "
            "the bands are the 5th and 95th percentiles of the draws. 1 to 200."
        ),
    )
    seed = forms.IntegerField(
        label=gettext_lazy("Seed"),
        min_value=0,
        max_value=SEED_MAX,
        help_text=gettext_lazy("The same seed gives the same figures."),
    )

    def __init__(self, data: Any, scenarios: dict[str, Scenario]) -> None:
        super().__init__(data, initial=INITIAL)
        lang = current_language()
        baseline = _("baseline")
        set_choices(
            self,
            "scenario",
            [
                (name, _title(name, s, lang) + (f" ({baseline})" if name == BASELINE else ""))
                for name, s in scenarios.items()
            ],
        )
        years = [(y, y) for y in MODEL_YEARS]
        set_choices(self, "first_year", years)
        set_choices(self, "last_year", years)
        self.fields["scenario"].error_messages["invalid_choice"] = _(
            "Choose one of the scenarios listed."
        )
        for name in ("first_year", "last_year"):
            self.fields[name].error_messages["invalid_choice"] = _(
                "Choose one of the fiscal years listed."
            )
        draws = _("The number of draws must be a whole number from %(low)s to %(high)s.")
        seed = _("The seed must be a whole number from %(low)s to %(high)s.")
        for name, words, low, high in (("draws", draws, 1, MAX_DRAWS), ("seed", seed, 0, SEED_MAX)):
            said = words % {"low": _number(low), "high": _number(high)}
            # Django's own messages ("Ensure this value…") name neither the field nor the range.
            for code in ("invalid", "min_value", "max_value", "required"):
                self.fields[name].error_messages[code] = said

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        first, last = data.get("first_year"), data.get("last_year")
        if first and last and MODEL_YEARS.index(first) > MODEL_YEARS.index(last):
            self.add_error("last_year", _("The last fiscal year cannot come before the first."))
        return data

    def request(self) -> RunRequest:
        data = self.cleaned_data
        return RunRequest(
            data["scenario"], data["first_year"], data["last_year"], data["draws"], data["seed"]
        )


def _number(value: int) -> str:
    """2147483647 as "2,147,483,647" / "2 147 483 647"."""
    return format_decimal(value, locale=current_locale())


def _title(name: str, scenario: Scenario, lang: str) -> str:
    return f"{scenario.title.get(lang) or name} ({name})"
