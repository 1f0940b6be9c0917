"""The participant form a trainee answers through their link, and the employer's invitation form.

The trainee's form only renders: its fields accept any text, and grants.participant_form checks
the answers (every problem named, in the page's language), so the page and the service can never
disagree. Its fieldsets follow the form's sections."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.service.choices import Jurisdiction
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.participants.form import CHOICES, FIELDS
from jobgrant.service.language import localized

EMAIL_MAX = 254


class Radios(forms.RadioSelect):
    """Radio buttons whose error link moves to the first button (pages._anchor)."""

    def first_option_id(self, auto_id: str) -> str:
        return f"{auto_id}_0"


def _text(label: Any, *, hint: Any = "", autocomplete: str = "", width: str = "") -> forms.Field:
    field = forms.CharField(required=False, label=label, help_text=hint, strip=False)
    field.autocomplete = autocomplete  # type: ignore[attr-defined]
    field.width = width  # type: ignore[attr-defined]
    return field


def _radios(label: Any, choices: Any, *, hint: Any = "") -> forms.Field:
    return forms.CharField(
        required=False, label=label, help_text=hint, widget=Radios(choices=choices)
    )


FIELDSETS = (
    (gettext_lazy("About you"), FIELDS[:10]),
    (gettext_lazy("Equity and demographics"), FIELDS[10:17]),
    (gettext_lazy("Your work before the training"), FIELDS[17:22]),
    (gettext_lazy("Consent"), FIELDS[22:]),
)


class ParticipantForm(forms.Form):
    given_name = _text(gettext_lazy("Given name"), autocomplete="given-name")
    family_name = _text(gettext_lazy("Family name"), autocomplete="family-name")
    date_of_birth = _text(
        gettext_lazy("Date of birth"),
        hint=gettext_lazy("Written YYYY-MM-DD, for example 1990-04-12."),
        autocomplete="bday",
        width="short",
    )
    sin = _text(
        gettext_lazy("Social Insurance Number (SIN)"),
        hint=gettext_lazy(
            "9 digits. It is kept encrypted, shown only masked, and never sent by email."
        ),
        autocomplete="off",
        width="short",
    )
    contact_email = _text(gettext_lazy("Email address"), autocomplete="email")
    phone = _text(gettext_lazy("Phone number (optional)"), autocomplete="tel", width="short")
    street_address = _text(gettext_lazy("Street address"), autocomplete="street-address")
    city = _text(gettext_lazy("City or town"), autocomplete="address-level2")
    province = forms.CharField(
        required=False,
        label=gettext_lazy("Province or territory"),
        widget=forms.Select(choices=[("", gettext_lazy("Choose…")), *Jurisdiction.choices]),
    )
    postal_code = _text(gettext_lazy("Postal code"), autocomplete="postal-code", width="short")
    indigenous = _radios(
        gettext_lazy("Are you an Indigenous person (First Nations, Métis or Inuk)?"),
        CHOICES["indigenous"].choices,
    )
    disability = _radios(gettext_lazy("Do you have a disability?"), CHOICES["disability"].choices)
    visible_minority = _radios(
        gettext_lazy("Are you a member of a visible minority?"),
        CHOICES["visible_minority"].choices,
        hint=gettext_lazy(
            "As the Employment Equity Act defines it: persons, other than Indigenous peoples, "
            "who are non-Caucasian in race or non-white in colour."
        ),
    )
    immigration = _radios(
        gettext_lazy("Are you an immigrant or a refugee?"), CHOICES["immigration"].choices
    )
    gender = _radios(gettext_lazy("Gender"), CHOICES["gender"].choices)
    education = _radios(
        gettext_lazy("Highest level of education completed"), CHOICES["education"].choices
    )
    first_language = _radios(
        gettext_lazy("First language learned and still understood"),
        CHOICES["first_language"].choices,
    )
    employment_status = _radios(
        gettext_lazy("Your employment status just before the training"),
        CHOICES["employment_status"].choices,
    )
    noc = _text(
        gettext_lazy("Occupation code (NOC 2021)"),
        hint=gettext_lazy(
            "If you were working: the 5-digit code of your job in the National Occupational "
            "Classification 2021, for example 72100 for machinists. Ask your employer if you "
            "do not know it."
        ),
        width="short",
    )
    hourly_wage = _text(
        gettext_lazy("Hourly wage, in dollars"),
        hint=gettext_lazy("If you were working, for example 21.50."),
        width="short",
    )
    weekly_hours = _text(
        gettext_lazy("Hours worked in a usual week"),
        hint=gettext_lazy("If you were working: a whole number."),
        width="short",
    )
    receiving_ei = _radios(
        gettext_lazy("Were you receiving Employment Insurance (EI) benefits?"),
        [("yes", gettext_lazy("Yes")), ("no", gettext_lazy("No"))],
    )
    consent_name = _text(
        gettext_lazy("Type your given name and family name"),
        hint=gettext_lazy(
            "As you entered them above: this is your signature. Accents, capitals and extra "
            "spaces do not matter."
        ),
        autocomplete="name",
    )
    consent = forms.CharField(
        required=False,
        label=gettext_lazy(
            "I confirm that my answers are true, and I agree that they are used to run and "
            "evaluate the Canada Job Grant."
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)

    def fieldsets(self) -> list[tuple[str, list[dict[str, Any]]]]:
        """(legend, fields) in page order; each field with what its template needs."""
        return [(str(legend), [self._shown(name) for name in names]) for legend, names in FIELDSETS]

    def _shown(self, name: str) -> dict[str, Any]:
        field = self.fields[name]
        widget = field.widget
        kind = (
            "radios"
            if isinstance(widget, Radios)
            else "select"
            if isinstance(widget, forms.Select)
            else "checkbox"
            if name == "consent"
            else "sin"
            if name == "sin"
            else "text"
        )
        return {
            "f": self[name],
            "kind": kind,
            "autocomplete": getattr(field, "autocomplete", ""),
            "width": getattr(field, "width", ""),
        }

    def show_problems(self, error: ServiceError) -> None:
        """Each problem of the service on its field, in the page's language."""
        self.is_valid()  # the fields accept anything: this only makes cleaned_data
        for found in error.problems:
            name = found["field"] if found["field"] in self.fields else None
            self.add_error(name, localized(found))


class InviteForm(forms.Form):
    """Invite one trainee: which one, where to write, in which language."""

    trainee = forms.ChoiceField(label=gettext_lazy("Trainee"))
    email = forms.EmailField(label=gettext_lazy("Trainee's email address"), max_length=EMAIL_MAX)
    language = forms.ChoiceField(
        label=gettext_lazy("Language of the messages and of the form"),
        choices=[("en", "English"), ("fr", "Français")],
        widget=Radios,
    )

    def __init__(self, *args: Any, trainees: list[tuple[str, str]], **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "invite-%s")
        super().__init__(*args, **kwargs)
        field = self.fields["trainee"]
        field.choices = [("", _("Choose…")), *trainees]  # type: ignore[attr-defined]
        messages = {
            "trainee": _("Choose the trainee to invite."),
            "email": _("Enter the trainee's email address, like name@example.com."),
            "language": _("Choose the language of the trainee's messages and form."),
        }
        for name, text in messages.items():
            self.fields[name].error_messages.update(
                required=text, invalid=text, invalid_choice=text, max_length=text
            )
