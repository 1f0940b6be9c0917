"""The forms of a change request: one per kind for the employer, the decision for the officer.

Each employer form turns what was typed into the body the API takes (`as_body`), so the page and
the API ask `grants.change_actions` the same thing and get the same checks; the service's
problems, at their paths in that body, are put back on the form's fields (`field_of`). Nothing
here writes to the database.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.rules.batch import COST_CATEGORIES, STATUSES
from jobgrant.rules.money import format_amount
from jobgrant.service.grants.models.changes import ChangeKind
from jobgrant.service.web import labels
from jobgrant.service.web.forms.employer import (
    AmountField,
    ChoiceRadios,
    WithdrawForm,
    amount_messages,
    has_control_characters,
)
from jobgrant.service.web.forms.employer_apply import AMOUNTS
from jobgrant.service.web.forms.employer_training import PROVIDER_NAME_MAX, IsoDateField, date_hint
from jobgrant.service.web.pages import set_choices

NOTE_MAX = 1000
TRAINEE_ACTIONS = ("add", "remove", "replace")


def kind_choices() -> list[tuple[str, str]]:
    return [(str(kind.value), str(kind.label)) for kind in ChangeKind]


class KindForm(forms.Form):
    kind = forms.ChoiceField(
        label=gettext_lazy("What do you want to change?"),
        widget=ChoiceRadios,
        error_messages={"required": gettext_lazy("Choose what you want to change.")},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)
        set_choices(self, "kind", kind_choices())
        self.fields["kind"].error_messages["invalid_choice"] = _("Choose what you want to change.")


class ChangeForm(WithdrawForm):
    """What every kind's form shares: the note, why the change is asked for."""

    kind = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["note"].label = _("Why do you need this change? (optional)")
        self.fields["note"].help_text = _(
            "The officer who decides reads it. At most %(most)s characters."
        ) % {"most": NOTE_MAX}

    def as_body(self) -> dict[str, Any]:
        body = {"kind": self.kind, **self.fields_body()}
        note = self.cleaned_data.get("note", "")
        return {**body, "note": note} if note else body

    def fields_body(self) -> dict[str, Any]:
        raise NotImplementedError

    def field_of(self, path: str) -> str | None:
        """The form field a problem at `path` (in the body) is about; None: the whole form."""
        last = re.sub(r"\[\d+\]", "", path).split(".")[-1]
        return self.PATHS.get(path, self.PATHS.get(last))

    PATHS: ClassVar[dict[str, str]] = {}


class DatesForm(ChangeForm):
    kind = ChangeKind.DATES
    start_date = IsoDateField(label=gettext_lazy("New training start date"), required=False)
    end_date = IsoDateField(label=gettext_lazy("New training end date"), required=False)
    PATHS: ClassVar[dict[str, str]] = {
        "start_date": "start_date",
        "end_date": "end_date",
        "(body)": "start_date",
    }
    field_order = ["start_date", "end_date", "note"]  # noqa: RUF012

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("start_date", "end_date"):
            self.fields[name].help_text = date_hint()
            self.fields[name].error_messages["invalid"] = _(
                "%(field)s: write the date as year-month-day, for example 2027-01-11."
            ) % {"field": self.fields[name].label}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors and not data.get("start_date") and not data.get("end_date"):
            self.add_error("start_date", _("Enter a new start date, a new end date or both."))
        return data

    def fields_body(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {k: data[k].isoformat() for k in ("start_date", "end_date") if data.get(k)}


class ProviderForm(ChangeForm):
    kind = ChangeKind.PROVIDER
    provider_name = forms.CharField(
        label=gettext_lazy("New training provider's name"), max_length=PROVIDER_NAME_MAX
    )
    third_party = forms.ChoiceField(
        label=gettext_lazy("Is the provider a third party, independent of the employer?"),
        widget=ChoiceRadios,
    )
    PATHS: ClassVar[dict[str, str]] = {
        "name": "provider_name",
        "third_party": "third_party",
        "(body)": "provider_name",
    }
    field_order = ["provider_name", "third_party", "note"]  # noqa: RUF012

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        set_choices(self, "third_party", [("yes", _("Yes")), ("no", _("No"))])
        self.fields["provider_name"].error_messages.update(
            required=_("Enter the new training provider's name."),
            max_length=_("The provider's name must have at most %(most)s characters.")
            % {"most": PROVIDER_NAME_MAX},
        )
        message = _("Say whether the provider is a third party.")
        self.fields["third_party"].error_messages.update(required=message, invalid_choice=message)

    def clean_provider_name(self) -> str:
        name = str(self.cleaned_data["provider_name"]).strip()
        if has_control_characters(name):
            raise forms.ValidationError(
                _("The provider's name must hold only letters, digits, spaces and punctuation.")
            )
        return name

    def fields_body(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "provider": {"name": data["provider_name"], "third_party": data["third_party"] == "yes"}
        }


class TraineesForm(ChangeForm):
    """One trainee added, removed or replaced (the API takes several at once)."""

    kind = ChangeKind.TRAINEES
    action = forms.ChoiceField(label=gettext_lazy("What change?"), widget=ChoiceRadios)
    trainee = forms.ChoiceField(label=gettext_lazy("Which trainee?"), required=False)
    employer = forms.ChoiceField(label=gettext_lazy("Employer"), required=False)
    status = forms.ChoiceField(label=gettext_lazy("Status"), required=False)
    tuition = AmountField(required=False)
    student_fees = AmountField(required=False)
    materials = AmountField(required=False)
    exam_fees = AmountField(required=False)
    wages_in_kind = AmountField(required=False)
    PATHS: ClassVar[dict[str, str]] = {
        **{part: part for part in AMOUNTS},
        "employer_id": "employer",
        "status": "status",
        "remove": "trainee",
        "index": "trainee",
        "replace": "trainee",
        "add": "action",
        "(body)": "action",
    }
    field_order = ["action", "trainee", "employer", "status", *AMOUNTS, "note"]  # noqa: RUF012

    def __init__(
        self,
        *args: Any,
        trainees: list[tuple[str, str]],
        employers: list[tuple[str, str]],
        **kw: Any,
    ) -> None:
        super().__init__(*args, **kw)
        set_choices(
            self,
            "action",
            [
                ("add", _("Add a trainee")),
                ("remove", _("Remove a trainee")),
                ("replace", _("Replace a trainee by another")),
            ],
        )
        choose = [("", _("Choose…"))]
        set_choices(self, "trainee", choose + trainees)
        set_choices(self, "employer", choose + employers)
        statuses = labels.status_labels()
        set_choices(self, "status", choose + [(k, statuses[k]) for k in STATUSES])
        self.fields["trainee"].help_text = _("For a removal or a replacement.")
        self.fields["employer"].help_text = _("For a trainee added or put in another's place.")
        costs = labels.cost_labels()
        for part in AMOUNTS:
            field = self.fields[part]
            field.label = costs.get(part, _("Wages counted in kind"))
            field.error_messages.update(amount_messages(str(field.label)))
        message = _("Choose the change: add, remove or replace a trainee.")
        self.fields["action"].error_messages.update(required=message, invalid_choice=message)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        action = data.get("action")
        if action in ("remove", "replace") and not data.get("trainee"):
            self.add_error("trainee", _("Choose the trainee to remove or replace."))
        if action in ("add", "replace"):
            if not data.get("employer"):
                self.add_error("employer", _("Choose the new trainee's employer."))
            if not data.get("status"):
                self.add_error("status", _("Choose the new trainee's status."))
        return data

    def fields_body(self) -> dict[str, Any]:
        data = self.cleaned_data
        action = data["action"]
        if action == "remove":
            return {"remove": [int(data["trainee"])]}
        trainee = {
            "employer_id": data["employer"],
            "status": data["status"],
            "costs": {k: format_amount(data[k] or 0) for k in COST_CATEGORIES},
            "wages_in_kind": format_amount(data["wages_in_kind"] or 0),
        }
        if action == "add":
            return {"add": [trainee]}
        return {"replace": [{"index": int(data["trainee"]), "trainee": trainee}]}


class CostsForm(ChangeForm):
    """One move of money from a cost line to another (the API takes several at once)."""

    kind = ChangeKind.COST_REALLOCATION
    from_line = forms.ChoiceField(label=gettext_lazy("Take the money from"))
    to_line = forms.ChoiceField(label=gettext_lazy("Put it on"))
    amount = AmountField(label=gettext_lazy("Amount to move"))
    PATHS: ClassVar[dict[str, str]] = {
        "from": "from_line",
        "to": "to_line",
        "amount": "amount",
        "(body)": "from_line",
    }
    field_order = ["from_line", "to_line", "amount", "note"]  # noqa: RUF012

    def __init__(self, *args: Any, lines: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choose = [("", _("Choose…"))]
        for name, message in (
            ("from_line", _("Choose the cost line the money is taken from.")),
            ("to_line", _("Choose the cost line the money goes to.")),
        ):
            set_choices(self, name, choose + lines)
            self.fields[name].error_messages.update(required=message, invalid_choice=message)
        self.fields["amount"].error_messages.update(amount_messages(_("Amount to move")))
        self.fields["amount"].help_text = _("In dollars, for example 500.00.")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors and data.get("from_line") == data.get("to_line"):
            self.add_error(
                "to_line", _("Choose another line than the one the money is taken from.")
            )
        if not self.errors and not data.get("amount"):
            self.add_error("amount", _("Enter an amount above zero."))
        return data

    def fields_body(self) -> dict[str, Any]:
        data = self.cleaned_data

        def line(code: str) -> dict[str, Any]:
            index, _sep, category = code.partition(":")
            return {"trainee": int(index), "category": category}

        move = {
            "from": line(data["from_line"]),
            "to": line(data["to_line"]),
            "amount": format_amount(data["amount"]),
        }
        return {"moves": [move]}


FORMS: dict[str, type[ChangeForm]] = {
    ChangeKind.DATES: DatesForm,
    ChangeKind.PROVIDER: ProviderForm,
    ChangeKind.TRAINEES: TraineesForm,
    ChangeKind.COST_REALLOCATION: CostsForm,
}


def line_choices(trainees: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every cost line of the agreement's trainees, as `<index>:<category>`."""
    costs = labels.cost_labels()
    return [
        (f"{index}:{category}", f"{name}: {costs[category]}")
        for index, name in trainees
        for category in COST_CATEGORIES
    ]


class ChangeDecisionForm(forms.Form):
    """The officer's reason: optional to approve, required to deny (the employer reads it)."""

    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    missing_information = forms.BooleanField(
        label=gettext_lazy("Denied because information is missing"),
        help_text=gettext_lazy(
            "Tick when the employer may ask again with what is missing. It is counted as a"
            " request sent back in the figures of the burden on employers."
        ),
        required=False,
    )

    def __init__(self, *args: Any, deny: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        kwargs.setdefault("prefix", "deny" if deny else "approve")
        super().__init__(*args, **kwargs)
        if not deny:
            del self.fields["missing_information"]
        field = self.fields["reason"]
        field.required = deny
        if deny:
            field.label = _("Reason for the denial")
            field.help_text = _("Required. The employer will read this reason.")
            field.error_messages["required"] = _("Enter the reason for the denial.")
        else:
            field.label = _("Note with the approval")
            field.help_text = _("Optional. The employer will read it.")
        field.error_messages["max_length"] = _("The reason must have at most 4000 characters.")
