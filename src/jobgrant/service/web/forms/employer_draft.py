"""The application wizard's draft checked as a whole: each step's forms bound to what was typed,
the first step still to complete, the review's confirmation, and the payload the actions take."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from django import forms
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from jobgrant.service.grants.applications.declarations import Declared, body_of
from jobgrant.service.grants.core import quoting
from jobgrant.service.grants.models.applications import Counterfactual
from jobgrant.service.grants.ranking.asked import asks_under_represented
from jobgrant.service.registry.models import Employer
from jobgrant.service.web.forms import employer_apply as apply
from jobgrant.service.web.forms import employer_trainees as trainees
from jobgrant.service.web.forms.employer_apply import Organizations
from jobgrant.service.web.forms.employer_declarations import DeclarationsForm, declarations_data
from jobgrant.service.web.forms.employer_trainees import TraineeRow
from jobgrant.service.web.forms.employer_training import Training, TrainingForm
from jobgrant.service.web.pages import set_choices


@dataclass
class Checked:
    """The draft checked step by step: what is valid so far, and each step's bound forms."""

    organizations: Organizations | None = None
    training: Training | None = None
    trainees: list[TraineeRow] | None = None
    declarations: Declared | None = None
    forms: dict[str, list[Any]] = field(default_factory=dict)
    #: The stream the application would go to ranks it on under-represented groups: step 3
    #: asks it of each trainee (elsewhere it is neither asked nor sent).
    asks_under_represented: bool = False

    @property
    def first_incomplete(self) -> str | None:
        for step in apply.STEPS[:-1]:
            if getattr(self, step) is None:
                return step
        return None

    @property
    def employer_choices(self) -> list[tuple[str, str]]:
        found = self.organizations.all if self.organizations else ()
        return [(e.business_number, e.name) for e in found]


def bind_draft(draft: Mapping[str, Any], acted_for: QuerySet[Employer], today: dt.date) -> Checked:
    """Each step's forms bound to what the draft holds, in order, as far as the steps check."""
    checked = Checked()
    data = apply.organizations_data(draft.get("organizations") or {})
    lead, partners = apply.organizations_forms(data, acted_for, {})
    checked.forms["organizations"] = [lead, partners]
    checked.organizations = apply.checked_organizations(lead, partners)
    training_raw = draft.get("training")
    if checked.organizations is None or not isinstance(training_raw, dict):
        return checked
    training = TrainingForm(
        training_raw, jurisdiction=checked.organizations.lead.jurisdiction, today=today
    )
    checked.forms["training"] = [training]
    checked.training = Training.of(training) if training.is_valid() else None
    if checked.training is not None:
        checked.asks_under_represented = asks_under_represented(
            checked.organizations.lead.jurisdiction,
            checked.training.start_date,
            today,
            checked.training.stream,
        )
    rows = draft.get("trainees")
    if checked.training is None or not isinstance(rows, list) or not rows:
        return checked
    formset = trainees.trainees_formset(
        trainees.trainees_data(r for r in rows if isinstance(r, dict)), checked.employer_choices
    )
    checked.forms["trainees"] = [formset]
    found = trainees.checked_trainees(formset)
    if found is not None and not checked.asks_under_represented:
        found = [replace(row, under_represented=False) for row in found]
    checked.trainees = found
    declared = draft.get("declarations")
    if checked.trainees is None or not isinstance(declared, dict):
        return checked
    form = DeclarationsForm(declarations_data(declared))
    checked.forms["declarations"] = [form]
    checked.declarations = form.declared if form.is_valid() else None
    return checked


class Ticked(forms.Field):
    """A checkbox ticked: its value, "yes", was posted (anything else is not a tick)."""

    def to_python(self, value: Any) -> bool:
        return isinstance(value, str) and value == "yes"

    def validate(self, value: Any) -> None:
        if self.required and not value:
            raise forms.ValidationError(self.error_messages["required"], code="required")


class ReviewForm(forms.Form):
    """The declaration, and (when the quote says the application is not eligible) the applicant's
    acknowledgment that it will likely be refused."""

    confirm = Ticked()
    understood = Ticked(required=False)
    counterfactual = forms.ChoiceField(required=False, widget=forms.RadioSelect)

    def __init__(self, *args: Any, eligible: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)
        self.eligible = eligible
        self._ask_counterfactual()
        self.fields["confirm"].label = _(
            "I confirm that the information in this application is true and complete."
        )
        self.fields["confirm"].error_messages["required"] = _(
            "Confirm that the information is true and complete."
        )
        self.fields["understood"].label = _(
            "I understand that this application is not eligible as entered and will likely be "
            "refused."
        )
        if eligible:
            del self.fields["understood"]

    def _ask_counterfactual(self) -> None:
        """The one question asked for the net outcomes, worded neutrally: every answer is
        as good as another, and none changes the decision."""
        field = self.fields["counterfactual"]
        field.label = _("Would this training have happened without the grant?")
        field.help_text = _(
            "Optional. Your answer is used only to measure what the grant adds; it does not"
            " change the decision on your application."
        )
        set_choices(
            self,
            "counterfactual",
            [
                *((str(v), str(label)) for v, label in Counterfactual.choices),
                ("", _("I prefer not to answer")),
            ],
        )

    def clean_understood(self) -> bool:
        if not self.cleaned_data["understood"]:
            raise forms.ValidationError(
                _(
                    "The application is not eligible as entered: correct it, or confirm that you "
                    "understand it will likely be refused."
                )
            )
        return True


def payload(
    organizations: Organizations,
    training: Training,
    rows: list[TraineeRow],
    declared: Declared | None = None,
) -> dict[str, Any]:
    """The application as create_application takes it: employers named by business number,
    and the declarations when they are made (the quote is asked without them)."""
    lead = organizations.lead
    body: dict[str, Any] = {
        "jurisdiction": lead.jurisdiction,
        "employers": [
            {"id": e.business_number, "business_number": e.business_number}
            for e in organizations.all
        ],
        "training": training.as_payload(),
        "trainees": [t.as_payload() for t in rows],
    }
    if lead.region:
        body["region"] = lead.region
    if training.stream is not None:
        body["stream"] = training.stream
    if declared is not None:
        body["declarations"] = body_of(declared)
    return body


def preview_quote(body: dict[str, Any], today: dt.date) -> dict[str, Any]:
    """The rules kernel's quote of an application not yet made: the computation POST
    /api/v1/quote runs (reads only; ServiceError). The organizations step has already checked
    that the person acts for the lead employer, the check the API makes first."""
    employers = quoting.checked_employers(body)
    return quoting.quote_checked(body, employers, today, explain=False).result
