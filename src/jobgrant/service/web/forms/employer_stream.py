"""The stream, on the wizard's training step: asked only where the jurisdiction has more than one
stream taking applications today (Ontario's first-come grant and its ranked selection, say).
Each choice names the stream, its intake's window and how the stream selects; the service
checks the choice again (grants.core.streams) when the application is quoted and made."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.utils.translation import gettext as _

from jobgrant.service.grants.core import quoting
from jobgrant.service.grants.models.applications import Intake, Program, Selection
from jobgrant.service.language import in_language
from jobgrant.service.web.forms.employer import ChoiceRadios
from jobgrant.service.web.templatetags.jobgrant import longdate

FIELD = "stream"


def open_today(jurisdiction: str, today: dt.date) -> list[Intake]:
    """The jurisdiction's intakes taking applications today, one per stream, by program."""
    found: list[Intake] = []
    for program in Program.objects.filter(jurisdiction=jurisdiction).order_by("fiscal_year"):
        found += quoting.open_intakes(program, today)
    return found


def choices(intakes: list[Intake]) -> list[tuple[str, str]]:
    return [(str(intake.stream_id), label(intake)) for intake in intakes]


def label(intake: Intake) -> str:
    """ "Canada-Ontario Job Grant, ranked selection: Winter intake, from November 29, 2026 to
    January 31, 2027; applications are ranked when the intake closes." """
    stream = intake.stream
    how = (
        _("applications are ranked when the intake closes")
        if stream.selection == Selection.RANKED
        else _("first come, first served")
    )
    return _("%(stream)s: %(intake)s, from %(opens)s to %(closes)s; %(selection)s.") % {
        "stream": in_language(en=stream.name_en, fr=stream.name_fr),
        "intake": in_language(en=intake.name_en, fr=intake.name_fr) or _("intake"),
        "opens": longdate(intake.opens_on),
        "closes": longdate(intake.closes_on),
        "selection": how,
    }


def add_field(form: forms.Form, intakes: list[Intake]) -> None:
    """The stream's radios on `form`, first, where more than one stream is open."""
    if len(intakes) < 2:
        return
    field = forms.ChoiceField(widget=ChoiceRadios, choices=choices(intakes))
    field.label = _("Which stream do you apply to?")
    field.help_text = help_text()
    message = required_message()
    field.error_messages.update(required=message, invalid=message, invalid_choice=message)
    form.fields = {FIELD: field, **form.fields}


def check_open(form: forms.Form, program: Program, start: dt.date, today: dt.date) -> None:
    """The chosen stream takes applications today in the program of the training's year."""
    chosen = form.cleaned_data.get(FIELD)
    if FIELD not in form.fields or not chosen:
        return
    open_ids = {str(i.stream_id) for i in quoting.open_intakes(program, today)}
    if chosen not in open_ids:
        form.add_error(FIELD, closed_message(start))


def help_text() -> str:
    return _(
        "More than one stream takes applications now, each with its own intake and budget. In a"
        " first-come stream, applications are decided in the order they arrive while the budget"
        " lasts. In a ranked stream, all the applications received are scored when the intake"
        " closes, and funded in rank order until its budget runs out."
    )


def required_message() -> str:
    return _("Choose the stream you apply to.")


def closed_message(start: dt.date) -> str:
    """The chosen stream takes no applications for training that starts on `start`."""
    return _(
        "The stream you chose takes no applications for training that starts on %(date)s:"
        " choose another."
    ) % {"date": longdate(start)}
