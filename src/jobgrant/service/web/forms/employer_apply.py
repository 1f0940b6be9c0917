"""The wizard's first two steps: the organizations (the lead, a formset of partners) and the
training; the trainees are in employer_trainees.py, the whole draft and the review in
employer_draft.py. A draft holds what was typed (strings, as posted), step by step; the forms
check it again whenever it is used, so nothing half-checked reaches the actions. Nothing here
writes to the database: it reads the registry and runs the rules kernel.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from django import forms
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from jobgrant.rules.batch import COST_CATEGORIES, SETTINGS
from jobgrant.rules.money import AmountError, format_amount, parse_amount
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants import quoting
from jobgrant.service.registry.identifiers import normalize_business_number
from jobgrant.service.registry.models import Employer
from jobgrant.service.web import labels
from jobgrant.service.web.forms.employer import (
    MAX_TEXT,
    ChoiceRadios,
    field_label,
    has_control_characters,
    normalize_number,
    row_number,
)
from jobgrant.service.web.pages import set_choices
from jobgrant.service.web.templatetags.jobgrant import longdate

STEPS = ("organizations", "training", "trainees", "review")
MAX_PARTNERS = 20
MAX_TRAINEES = 50
PROVIDER_NAME_MAX = 200
AMOUNTS = (*COST_CATEGORIES, "wages_in_kind")
#: The training fields next to which eligibility reasons can appear.
REASON_SLOTS = ("setting", "start_date", "end_date", "hours", "third_party")
DATE_EXAMPLE = "2027-01-11"


def text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key, "")
    return value[:MAX_TEXT] if isinstance(value, str) else ""


def rows_data(data: Mapping[str, Any], prefix: str, most: int) -> dict[str, Any]:
    """Posted rows as a formset reads them: the row count from the form's management field,
    else the highest row present, never more than `most`."""
    try:
        count = int(text(data, f"{prefix}-TOTAL_FORMS"))
    except ValueError:
        pattern = re.compile(rf"{prefix}-(\d+)")
        found = [int(m[1]) + 1 for k in data if (m := pattern.match(k)) and len(m[1]) < 4]
        count = max(found, default=0)
    rows = {k: text(data, k) for k in data if k.startswith(f"{prefix}-")}
    return {**rows, f"{prefix}-TOTAL_FORMS": max(0, min(count, most)), f"{prefix}-INITIAL_FORMS": 0}


# --- Step 1: organizations --------------------------------------------------------------------


class OrganizationsForm(forms.Form):
    lead = forms.ChoiceField()

    def __init__(self, *args: Any, acted_for: QuerySet[Employer], **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)
        self.acted_for = acted_for
        lead = self.fields["lead"]
        lead.label = field_label("lead")
        lead.help_text = _("The organization that applies and signs the agreement.")
        choices = [(str(e.pk), f"{e.name} ({e.business_number})") for e in acted_for]
        set_choices(self, "lead", [("", _("Choose…")), *choices])
        message = _("Choose the organization that applies.")
        lead.error_messages.update(required=message, invalid_choice=message)

    def clean_lead(self) -> Employer:
        return self.acted_for.get(pk=int(self.cleaned_data["lead"]))


class PartnerForm(forms.Form):
    """One partner row: a business number. Its control is named after the row (`partner-0`)."""

    business_number = forms.CharField(required=False)

    def add_prefix(self, field_name: str) -> str:
        return self.prefix or field_name

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)
        self.number = row_number(self.prefix)
        self.fields["business_number"].label = field_label(f"partner-{self.number - 1}")
        self.fields["business_number"].help_text = _("9 digits")

    def clean_business_number(self) -> Employer | None:
        typed = str(self.cleaned_data["business_number"])
        if not typed:
            return None
        bn = normalize_business_number(typed)
        if bn is None:
            raise forms.ValidationError(self._why_not_a_number(typed))
        found = Employer.objects.filter(business_number=bn).first()
        if found is None:
            raise forms.ValidationError(
                _("Partner %(number)s: no registered employer has the business number %(bn)s.")
                % {"number": self.number, "bn": bn}
            )
        return found

    def _why_not_a_number(self, typed: str) -> str:
        if re.fullmatch(r"[0-9]{9}", re.sub(r"[\s-]", "", typed)):
            return _(
                "Partner %(number)s: %(bn)s is not a valid business number: its last digit, "
                "the check digit, does not match the others. Check the number."
            ) % {"number": self.number, "bn": typed}
        return _(
            "Partner %(number)s: enter a business number of 9 digits, for example 123456782."
        ) % {"number": self.number}


class BasePartnerFormSet(forms.BaseFormSet):  # type: ignore[type-arg]  # not generic at run time
    lead: Employer | None = None

    def clean(self) -> None:
        """Each organization once: not twice as a partner, nor as the lead and a partner."""
        seen = {self.lead.business_number} if self.lead else set()
        for form in self.forms:
            found = getattr(form, "cleaned_data", {}).get("business_number")
            if found is None:
                continue
            if found.business_number in seen:
                form.add_error(
                    "business_number",
                    _(
                        "Partner %(number)s is already in this application; list each organization "
                        "once."
                    )
                    % {"number": form.number},
                )
            seen.add(found.business_number)

    def partners(self) -> tuple[Employer, ...]:
        return tuple(
            f.cleaned_data["business_number"]
            for f in self.forms
            if f.cleaned_data.get("business_number")
        )


PartnerFormSet = forms.formset_factory(
    PartnerForm, BasePartnerFormSet, extra=0, max_num=MAX_PARTNERS, absolute_max=MAX_PARTNERS
)


@dataclass(frozen=True)
class Organizations:
    lead: Employer
    partners: tuple[Employer, ...]

    @property
    def all(self) -> tuple[Employer, ...]:
        return (self.lead, *self.partners)


def organizations_data(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A draft's organizations as posted data (what the forms bind to)."""
    partners = [str(p) for p in raw.get("partners") or []][:MAX_PARTNERS]
    return {
        "lead": str(raw.get("lead", "")),
        "partner-TOTAL_FORMS": len(partners),
        "partner-INITIAL_FORMS": 0,
        **{f"partner-{i}": bn for i, bn in enumerate(partners)},
    }


def organizations_forms(
    data: Mapping[str, Any] | None, acted_for: QuerySet[Employer], initial: Mapping[str, Any]
) -> tuple[OrganizationsForm, BasePartnerFormSet]:
    """The step's two forms, bound to `data` (posted data) or showing `initial` (a draft)."""
    if data is None:
        lead = OrganizationsForm(initial={"lead": initial.get("lead", "")}, acted_for=acted_for)
        rows = [{"business_number": p} for p in initial.get("partners") or []]
        return lead, cast(
            BasePartnerFormSet, PartnerFormSet(initial=rows, prefix="partner", auto_id="%s")
        )
    lead = OrganizationsForm(data, acted_for=acted_for)
    posted = rows_data(data, "partner", MAX_PARTNERS)
    partners = cast(BasePartnerFormSet, PartnerFormSet(posted, prefix="partner", auto_id="%s"))
    partners.lead = lead.cleaned_data["lead"] if lead.is_valid() else None
    return lead, partners


def typed_organizations(lead: OrganizationsForm, partners: BasePartnerFormSet) -> dict[str, Any]:
    """What was typed at step 1, as the draft keeps it."""
    return {
        "lead": str(lead["lead"].value() or "")[:MAX_TEXT],
        "partners": [str(f["business_number"].value() or "")[:MAX_TEXT] for f in partners],
    }


def checked_organizations(
    lead: OrganizationsForm, partners: BasePartnerFormSet
) -> Organizations | None:
    if not (lead.is_valid() and partners.is_valid()):
        return None
    return Organizations(lead.cleaned_data["lead"], partners.partners())


def cleaned_organizations(organizations: Organizations) -> dict[str, Any]:
    """The step's values once checked: blank partner rows dropped, numbers normalized."""
    return {
        "lead": str(organizations.lead.pk),
        "partners": [p.business_number for p in organizations.partners],
    }


# --- Step 2: training and provider ------------------------------------------------------------


class IsoDateField(forms.Field):
    """A date written YYYY-MM-DD, as the hint shows it in both languages."""

    def to_python(self, value: Any) -> dt.date | None:
        typed = value.strip() if isinstance(value, str) else ""
        if not typed:
            return None
        try:
            if len(typed) == 10:
                return dt.date.fromisoformat(typed)
        except ValueError:
            pass
        raise forms.ValidationError(self.error_messages["invalid"], code="invalid")


class HoursField(forms.Field):
    """Hours as people type them ("37,5"); cleans to hundredths, more than 0."""

    def to_python(self, value: Any) -> int:
        try:
            hours = parse_amount(normalize_number(value if isinstance(value, str) else ""))
        except AmountError:
            hours = 0
        if hours == 0:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return hours


def date_hint() -> str:
    return _("Write the date as year-month-day: YYYY-MM-DD, for example %(example)s.") % {
        "example": DATE_EXAMPLE
    }


class TrainingForm(forms.Form):
    setting = forms.ChoiceField(widget=ChoiceRadios)
    start_date = IsoDateField()
    end_date = IsoDateField()
    hours = HoursField()
    provider_name = forms.CharField()
    third_party = forms.ChoiceField(widget=ChoiceRadios)

    def __init__(self, *args: Any, jurisdiction: str, today: dt.date, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)
        self.jurisdiction, self.today = jurisdiction, today
        for name, field in self.fields.items():
            field.label = field_label(name)
        self.fields["third_party"].label = _(
            "Is the trainer a third party, independent of your organization?"
        )
        self._set_choices()
        self._set_hints()
        self._set_messages()

    def _set_choices(self) -> None:
        settings = [(k, v) for k, v in labels.setting_labels().items() if k in SETTINGS]
        set_choices(self, "setting", settings)
        answers = [("yes", _("Yes")), ("no", _("No, the training is given in house"))]
        set_choices(self, "third_party", answers)

    def _set_hints(self) -> None:
        hints = {
            "start_date": _("Training must start after you apply.") + " " + date_hint(),
            "end_date": date_hint(),
            "hours": _("Hours of instruction for each trainee."),
            "provider_name": _("The college, school or trainer who gives the training."),
        }
        for name, hint in hints.items():
            self.fields[name].help_text = hint

    def _set_messages(self) -> None:
        messages = {
            "setting": _("Choose where the training takes place."),
            "start_date": _("Enter the training start date as YYYY-MM-DD, for example %(example)s.")
            % {"example": DATE_EXAMPLE},
            "end_date": _("Enter the training end date as YYYY-MM-DD, for example %(example)s.")
            % {"example": DATE_EXAMPLE},
            "hours": _("Enter the number of hours of training, for example 120."),
            "provider_name": _("Enter the name of the training provider."),
            "third_party": _("Say whether the trainer is a third party."),
        }
        for name, message in messages.items():
            self.fields[name].error_messages.update(
                required=message, invalid=message, invalid_choice=message
            )
        self.fields["provider_name"].error_messages["null_characters_not_allowed"] = (
            self._provider_characters()
        )

    @staticmethod
    def _provider_characters() -> str:
        return _(
            "The training provider's name must hold only letters, digits, spaces and punctuation."
        )

    def clean_provider_name(self) -> str:
        name = str(self.cleaned_data["provider_name"])
        if has_control_characters(name):
            raise forms.ValidationError(self._provider_characters())
        if len(name) > PROVIDER_NAME_MAX:
            raise forms.ValidationError(
                _("The training provider's name must have at most %(most)s characters.")
                % {"most": PROVIDER_NAME_MAX}
            )
        return name

    def clean(self) -> dict[str, Any] | None:
        start, end = self.cleaned_data.get("start_date"), self.cleaned_data.get("end_date")
        if start is not None and end is not None and end < start:
            self.add_error(
                "end_date", _("The training end date must not be before its start date.")
            )
        if start is not None:
            self._check_intake(start)
        return self.cleaned_data

    def _check_intake(self, start: dt.date) -> None:
        """An intake must be open for the start date; a date in the past is said to be one."""
        try:
            training = {"start_date": start.isoformat()}
            quoting.program_for(
                {"jurisdiction": self.jurisdiction, "training": training}, self.today
            )
        except ServiceError:
            self.add_error("start_date", self._no_intake_message(start))

    def _no_intake_message(self, start: dt.date) -> str:
        if start < self.today:
            return _(
                "The training start date, %(date)s, is in the past: training must start after "
                "you apply."
            ) % {"date": longdate(start)}
        return _("No intake is open in %(jurisdiction)s for training that starts on %(date)s.") % {
            "jurisdiction": labels.jurisdiction_name(self.jurisdiction),
            "date": longdate(start),
        }


@dataclass(frozen=True)
class Training:
    setting: str
    start_date: dt.date
    end_date: dt.date
    hours: int  # hundredths
    provider_name: str
    third_party: bool

    @classmethod
    def of(cls, form: TrainingForm) -> Training:
        data = form.cleaned_data
        return cls(
            data["setting"],
            data["start_date"],
            data["end_date"],
            data["hours"],
            data["provider_name"],
            data["third_party"] == "yes",
        )

    def as_payload(self) -> dict[str, Any]:
        return {
            "setting": self.setting,
            "start_date": self.start_date.isoformat(),
            "end_date": self.end_date.isoformat(),
            "hours": format_amount(self.hours),
            "provider": {"name": self.provider_name, "third_party": self.third_party},
        }


def typed_training(form: TrainingForm) -> dict[str, str]:
    return {name: str(form[name].value() or "")[:MAX_TEXT] for name in form.fields}
