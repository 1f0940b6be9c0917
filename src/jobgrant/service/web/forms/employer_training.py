"""The wizard's second step: the training (the course, where, when, how long) and its provider.
Like the other steps it checks what was typed and builds the payload; nothing here writes to the
database (the start date is checked against the intakes, read through grants.quoting).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from jobgrant.rules.batch import SETTINGS
from jobgrant.rules.money import AmountError, format_amount, parse_amount
from jobgrant.rules.requests import COURSE_MAX
from jobgrant.rules.requests import has_control_characters as kernel_refuses
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.core import quoting
from jobgrant.service.grants.models.applications import Program
from jobgrant.service.language import current_language, month_of_year
from jobgrant.service.web import labels
from jobgrant.service.web.forms import employer_stream as stream_forms
from jobgrant.service.web.forms.employer import (
    MAX_TEXT,
    ChoiceRadios,
    field_label,
    has_control_characters,
    normalize_number,
)
from jobgrant.service.web.pages import set_choices
from jobgrant.service.web.templatetags.jobgrant import longdate

PROVIDER_NAME_MAX = 200
#: The training fields next to which eligibility reasons can appear.
REASON_SLOTS = ("setting", "start_date", "end_date", "hours", "third_party")
DATE_EXAMPLE = "2027-01-11"
HOURS_A_DAY = 24


ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


class IsoDateField(forms.Field):
    """A date written YYYY-MM-DD, as the hint shows it in both languages. A date in that form
    that is not on the calendar is told what is allowed: the months, or the days of its month."""

    def to_python(self, value: Any) -> dt.date | None:
        typed = value.strip() if isinstance(value, str) else ""
        if not typed:
            return None
        found = ISO_DATE.fullmatch(typed)
        if found is None:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        year, month, day = (int(part) for part in found.groups())
        if not 1 <= month <= 12:
            raise forms.ValidationError(
                _("%(field)s: %(typed)s has no month %(month)s; the months go from 01 to 12.")
                % {"field": self.label, "typed": typed, "month": found[2]},
                code="invalid",
            )
        days = calendar.monthrange(year, month)[1] if year else 31
        if not year or not 1 <= day <= days:
            raise forms.ValidationError(
                _("%(field)s: %(typed)s is not a day of the calendar; %(month)s has %(days)s days.")
                % {
                    "field": self.label,
                    "typed": typed,
                    "month": month_of_year(year or 1, month, current_language()),
                    "days": days,
                },
                code="invalid",
            )
        return dt.date(year, month, day)


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
    course = forms.CharField()
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
        stream_forms.add_field(self, stream_forms.open_today(jurisdiction, today))

    def _set_choices(self) -> None:
        settings = [(k, v) for k, v in labels.setting_labels().items() if k in SETTINGS]
        set_choices(self, "setting", settings)
        answers = [("yes", _("Yes")), ("no", _("No, the training is given in house"))]
        set_choices(self, "third_party", answers)

    def _set_hints(self) -> None:
        hints = {
            "course": _(
                "The course, certificate or program the trainees will follow, for example "
                "%(example)s."
            )
            % {"example": _("CNC machining certificate")},
            "start_date": _("Training must start after you apply.") + " " + date_hint(),
            "end_date": date_hint(),
            "hours": _("Hours of instruction for each trainee."),
            "provider_name": _("The college, school or trainer who gives the training."),
        }
        for name, hint in hints.items():
            self.fields[name].help_text = hint

    def _set_messages(self) -> None:
        messages = {
            "course": _("Enter the name of the course or program."),
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
        self.fields["course"].error_messages["null_characters_not_allowed"] = (
            self._course_characters()
        )

    @staticmethod
    def _course_characters() -> str:
        return _(
            "The course or program name must hold only letters, digits, spaces and punctuation."
        )

    def clean_course(self) -> str:
        """The kernel's own checks (training.course), said here in the page's words."""
        course = str(self.cleaned_data["course"])
        if kernel_refuses(course):
            raise forms.ValidationError(self._course_characters())
        if len(course) > COURSE_MAX:
            raise forms.ValidationError(
                _("The course or program name must have at most %(most)s characters.")
                % {"most": COURSE_MAX}
            )
        return course

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
        hours = self.cleaned_data.get("hours")
        if start is not None and end is not None and end >= start and hours is not None:
            self._check_hours(hours, (end - start).days + 1)
        if start is not None and start <= self.today:
            self.add_error("start_date", self._past_start_message(start))
        elif start is not None:
            program = self._check_intake(start)
            if program is not None:
                stream_forms.check_open(self, program, start, self.today)
            if program is not None and end is not None and end >= start:
                self._check_length(program, start, end)
        return self.cleaned_data

    def _check_hours(self, hours: int, days: int) -> None:
        """No more hours than the days of training hold (24 a day): what is allowed is said."""
        most = HOURS_A_DAY * days
        if hours > most * 100:
            self.add_error(
                "hours",
                ngettext(
                    "Hours of training: a training of %(days)s day has at most %(most)s hours.",
                    "Hours of training: a training of %(days)s days has at most %(most)s hours.",
                    days,
                )
                % {"days": days, "most": most},
            )

    def _past_start_message(self, start: dt.date) -> str:
        """Training must start after the application: the day after today at the earliest."""
        values = {"date": longdate(start), "first": longdate(self.today + dt.timedelta(days=1))}
        if start == self.today:
            return (
                _(
                    "The training start date, %(date)s, is today: training must start after you "
                    "apply, on %(first)s or later."
                )
                % values
            )
        return (
            _(
                "The training start date, %(date)s, is in the past: training must start after "
                "you apply, on %(first)s or later."
            )
            % values
        )

    def _check_intake(self, start: dt.date) -> Program | None:
        """An intake must be open for the start date: its program, or None (the error said)."""
        try:
            training = {"start_date": start.isoformat()}
            return quoting.program_for(
                {"jurisdiction": self.jurisdiction, "training": training}, self.today
            )
        except ServiceError:
            self.add_error("start_date", self._no_intake_message(start))
            return None

    def _check_length(self, program: Program, start: dt.date, end: dt.date) -> None:
        """No longer than the program's policy allows, said with the last day allowed."""
        longest = quoting.longest_training(program, self.today)
        if longest is None or (end - start).days + 1 <= longest:
            return
        last = start + dt.timedelta(days=longest - 1)
        self.add_error(
            "end_date",
            _(
                "Training may last at most %(days)s days, counting its first and last days: "
                "starting on %(start)s, it must end by %(last)s."
            )
            % {"days": longest, "start": longdate(start), "last": longdate(last)},
        )

    def _no_intake_message(self, start: dt.date) -> str:
        return _("No intake is open in %(jurisdiction)s for training that starts on %(date)s.") % {
            "jurisdiction": labels.jurisdiction_name(self.jurisdiction),
            "date": longdate(start),
        }


@dataclass(frozen=True)
class Training:
    course: str
    setting: str
    start_date: dt.date
    end_date: dt.date
    hours: int  # hundredths
    provider_name: str
    third_party: bool
    stream: int | None = None  # chosen where several streams are open (employer_stream.py)

    @classmethod
    def of(cls, form: TrainingForm) -> Training:
        data = form.cleaned_data
        return cls(
            data["course"],
            data["setting"],
            data["start_date"],
            data["end_date"],
            data["hours"],
            data["provider_name"],
            data["third_party"] == "yes",
            int(data["stream"]) if data.get("stream") else None,
        )

    def as_payload(self) -> dict[str, Any]:
        return {
            "course": self.course,
            "setting": self.setting,
            "start_date": self.start_date.isoformat(),
            "end_date": self.end_date.isoformat(),
            "hours": format_amount(self.hours),
            "provider": {"name": self.provider_name, "third_party": self.third_party},
        }


def typed_training(form: TrainingForm) -> dict[str, str]:
    return {name: str(form[name].value() or "")[:MAX_TEXT] for name in form.fields}
