"""Step 3 of the application wizard: the trainees, one formset row each, with their costs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django import forms
from django.utils.translation import gettext as _

from jobgrant.rules.batch import COST_CATEGORIES, STATUSES
from jobgrant.rules.money import format_amount
from jobgrant.service.grants.models.applications import WageBand
from jobgrant.service.web import labels
from jobgrant.service.web.forms.employer import (
    MAX_TEXT,
    AmountField,
    amount_messages,
    field_label,
    row_number,
)
from jobgrant.service.web.forms.employer_apply import AMOUNTS, MAX_TRAINEES, rows_data
from jobgrant.service.web.pages import set_choices

__all__ = ["AMOUNTS", "TraineeForm", "TraineeRow"]


class TraineeForm(forms.Form):
    employer = forms.ChoiceField()
    status = forms.ChoiceField()
    tuition = AmountField(required=False)
    student_fees = AmountField(required=False)
    materials = AmountField(required=False)
    exam_fees = AmountField(required=False)
    wages_in_kind = AmountField(required=False)
    # The trainee before the training (net outcomes; the rules never read it): optional.
    employed_before = forms.ChoiceField(required=False, widget=forms.RadioSelect)
    wage_band = forms.ChoiceField(required=False)
    weekly_hours = forms.IntegerField(required=False, min_value=1, max_value=168)
    # Asked only where the stream's ranking scores it (the page shows it then); never quoted.
    under_represented = forms.BooleanField(required=False)

    def __init__(self, *args: Any, employers: Iterable[tuple[str, str]], **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)
        self.number = row_number(self.prefix)
        self._set_choices(list(employers))
        costs = labels.cost_labels()
        for part in AMOUNTS:
            field = self.fields[part]
            field.label = costs[part]
            field.error_messages.update(amount_messages(field_label(self.add_prefix(part))))
        self.fields["wages_in_kind"].help_text = _(
            "Counted only for small employers, where the program allows it."
        )
        self._set_baseline_fields()
        self._set_under_represented()

    def _set_under_represented(self) -> None:
        field = self.fields["under_represented"]
        field.label = _(
            "Trainee %(number)s belongs to a group under-represented in the labour market"
        ) % {"number": self.number}
        field.help_text = _(
            "Optional. For example Indigenous people, persons with disabilities, visible"
            " minorities, newcomers, women in trades. Tick it only if the trainee agreed to it"
            " being declared. It is used only to rank the application in its intake."
        )

    def _set_baseline_fields(self) -> None:
        number = {"number": self.number}
        employed = self.fields["employed_before"]
        employed.label = _("Is trainee %(number)s employed now?") % number
        employed.help_text = _(
            "Optional. Used only to measure what the grant adds, never to decide on the"
            " application."
        )
        set_choices(self, "employed_before", [("", _("Not answered")), *yes_no_choices()])
        set_choices(
            self,
            "wage_band",
            [("", _("Choose…")), *[(str(v), str(label)) for v, label in WageBand.choices]],
        )
        self.fields["wage_band"].label = _("Usual hourly wage")
        hours = self.fields["weekly_hours"]
        hours.label = _("Usual hours a week")
        wrong = _("Enter the usual hours a week of trainee %(number)s, from 1 to 168.") % number
        hours.error_messages.update(invalid=wrong, min_value=wrong, max_value=wrong)

    def clean(self) -> dict[str, Any] | None:
        data = super().clean() or {}
        if data.get("employed_before") == "yes":
            number = {"number": self.number}
            if not data.get("wage_band"):
                self.add_error(
                    "wage_band", _("Choose the usual hourly wage of trainee %(number)s.") % number
                )
            if not data.get("weekly_hours"):
                self.add_error(
                    "weekly_hours",
                    _("Enter the usual hours a week of trainee %(number)s, from 1 to 168.")
                    % number,
                )
        return data

    def _set_choices(self, employers: list[tuple[str, str]]) -> None:
        choose = [("", _("Choose…"))]
        messages = {
            "employer": _("Choose the employer of trainee %(number)s."),
            "status": _("Choose the status of trainee %(number)s."),
        }
        options = {
            "employer": employers,
            "status": [(k, v) for k, v in labels.status_labels().items() if k in STATUSES],
        }
        for name, message in messages.items():
            set_choices(self, name, choose + options[name])
            field = self.fields[name]
            field.label = _("Employer") if name == "employer" else _("Status")
            text = message % {"number": self.number}
            field.error_messages.update(required=text, invalid_choice=text)


if TYPE_CHECKING:
    TraineeRows = forms.BaseFormSet[TraineeForm]

TraineeFormSet = forms.formset_factory(
    TraineeForm, extra=0, max_num=MAX_TRAINEES, absolute_max=MAX_TRAINEES
)


def yes_no_choices() -> list[tuple[str, str]]:
    return [("yes", _("Yes")), ("no", _("No"))]


@dataclass(frozen=True)
class TraineeRow:
    employer: str  # business number
    status: str
    amounts: dict[str, int]  # cents, by AMOUNTS
    baseline: dict[str, Any] | None = None  # the request's trainees[i].baseline, if answered
    under_represented: bool = False  # trainees[i].under_represented, where the stream asks

    @classmethod
    def of(cls, form: TraineeForm) -> TraineeRow:
        data = form.cleaned_data
        amounts = {part: data[part] for part in AMOUNTS}
        return cls(
            data["employer"],
            data["status"],
            amounts,
            _baseline(data),
            bool(data.get("under_represented")),
        )

    def as_payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "employer_id": self.employer,
            "status": self.status,
            "costs": {k: format_amount(self.amounts[k]) for k in COST_CATEGORIES},
            "wages_in_kind": format_amount(self.amounts["wages_in_kind"]),
        }
        if self.baseline is not None:
            body["baseline"] = self.baseline
        if self.under_represented:
            body["under_represented"] = True
        return body


def _baseline(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The baseline as the request holds it: employed, and when employed the band and hours."""
    answer = data.get("employed_before")
    if answer == "no":
        return {"employed": False}
    if answer == "yes":
        return {
            "employed": True,
            "wage_band": data["wage_band"],
            "weekly_hours": data["weekly_hours"],
        }
    return None


BASELINE_FIELDS = ("employed_before", "wage_band", "weekly_hours")


def blank_trainee(employer: str = "") -> dict[str, str]:
    return {
        "employer": employer,
        "status": "",
        **dict.fromkeys(AMOUNTS, ""),
        **dict.fromkeys(BASELINE_FIELDS, ""),
    }


def trainees_data(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A draft's trainees as posted data (what the formset binds to)."""
    data: dict[str, Any] = {"trainee-INITIAL_FORMS": 0}
    count = 0
    for i, row in enumerate(list(rows)[:MAX_TRAINEES]):
        data |= {f"trainee-{i}-{k}": str(v) for k, v in row.items() if isinstance(v, str)}
        count = i + 1
    return {**data, "trainee-TOTAL_FORMS": count}


def trainees_formset(
    data: Mapping[str, Any] | None,
    employers: Iterable[tuple[str, str]],
    initial: list[dict[str, str]] | None = None,
) -> TraineeRows:
    """The trainees' rows, bound to posted `data` or showing `initial` (a draft, or rows just
    added or removed)."""
    kwargs = {"employers": list(employers)}
    if data is None:
        return TraineeFormSet(
            initial=initial or [], prefix="trainee", auto_id="%s", form_kwargs=kwargs
        )
    bound = rows_data(data, "trainee", MAX_TRAINEES)
    # Always at least one row, so that an empty list is answered on the first row's employer.
    bound["trainee-TOTAL_FORMS"] = max(1, bound["trainee-TOTAL_FORMS"])
    return TraineeFormSet(bound, prefix="trainee", auto_id="%s", form_kwargs=kwargs)


def typed_trainees(formset: TraineeRows) -> list[dict[str, str]]:
    """What was typed at step 3, as the draft keeps it."""
    return [
        {name: str(form[name].value() or "")[:MAX_TEXT] for name in form.fields} for form in formset
    ]


def checked_trainees(formset: TraineeRows) -> list[TraineeRow] | None:
    """The rows once every one is valid, else None (the formset holds the errors)."""
    if not formset.is_valid() or not formset.forms:
        return None
    return [TraineeRow.of(form) for form in formset]
