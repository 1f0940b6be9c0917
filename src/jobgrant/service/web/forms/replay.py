"""The replay page's choice: a closed intake and the policy to replay it under."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.service.analysis.scenarios import scenarios_dir
from jobgrant.service.grants.models.applications import Intake
from jobgrant.service.language import current_language, long_date
from jobgrant.service.outcomes.replay import PolicyChoice, policy_choices, replayable_intakes
from jobgrant.service.web.labels import jurisdiction_name
from jobgrant.service.web.pages import set_choices


class ReplayChoice(forms.Form):
    intake = forms.ChoiceField(
        label=gettext_lazy("Closed intake"),
        help_text=gettext_lazy("Only an intake that no longer receives applications."),
    )
    policy = forms.ChoiceField(
        label=gettext_lazy("Replay it under"),
        help_text=gettext_lazy("A policy, or an analyst's rules scenario of the scenarios folder."),
    )

    def __init__(self, data: Any) -> None:
        super().__init__(data)
        self.policies = {p.key: p for p in policy_choices(scenarios_dir())}
        language = current_language()
        set_choices(self, "intake", [(str(i.pk), intake_label(i)) for i in replayable_intakes()])
        set_choices(
            self,
            "policy",
            [(key, getattr(p, f"title_{language}")) for key, p in self.policies.items()],
        )
        messages = {
            "intake": _("Choose the closed intake to replay."),
            "policy": _("Choose the policy to replay the intake under."),
        }
        for name, message in messages.items():
            self.fields[name].error_messages.update(required=message, invalid_choice=message)

    def choice(self) -> tuple[int, PolicyChoice]:
        return int(self.cleaned_data["intake"]), self.policies[self.cleaned_data["policy"]]


def intake_label(intake: Intake) -> str:
    """ "Ontario, 2026-27: November (closed on 31 March 2027)", in the page's language."""
    program = intake.stream.program
    language = current_language()
    name = getattr(intake, f"name_{language}") or _("Intake %(number)s") % {"number": intake.pk}
    return _("%(place)s, %(year)s: %(name)s (closed on %(date)s)") % {
        "place": jurisdiction_name(program.jurisdiction),
        "year": program.fiscal_year,
        "name": name,
        "date": long_date(intake.closes_on, language),
    }
