"""The forms of registration, an organization's people, partner requests and staff accounts.

They only read what was typed (strings, as posted); every check that matters is made by the
actions (grants.organization_actions, grants.staff_actions), whose problems are placed back
under the field they name (`show_problems`), in the page's language.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.password_validation import password_validators_help_texts
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.service.accounts.models import OrganizationRole, Role
from jobgrant.service.errors import ServiceError
from jobgrant.service.language import localized
from jobgrant.service.web import labels

MAX_TYPED = 300


def _text(
    label: Any, *, hint: Any = "", widget: type[forms.Widget] = forms.TextInput
) -> forms.CharField:
    return forms.CharField(
        label=label,
        help_text=hint,
        required=False,
        max_length=MAX_TYPED,
        widget=widget,
        strip=False,
    )


def _jurisdictions(blank: Any) -> list[tuple[str, str]]:
    return [
        ("", str(blank)),
        *((code, labels.jurisdiction_name(code)) for code in JURISDICTION_CODES),
    ]


class PlainForm(forms.Form):
    """Ids are the field names (the error summary links to them); nothing is required here:
    the action names what is missing. A password field's hint is Django's validators' own."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)
        if "password" in self.fields:
            self.fields["password"].help_text = " ".join(password_validators_help_texts())

    def typed(self) -> dict[str, Any]:
        """What was typed, as the action reads it (the form has no checks of its own)."""
        self.is_valid()
        return {name: self.cleaned_data.get(name, "") for name in self.fields}


class RegistrationForm(PlainForm):
    name = _text(_("Legal name of the organization"))
    business_number = _text(
        _("Business number"),
        hint=_("9 digits, from the Canada Revenue Agency, for example 123456782"),
    )
    street_address = _text(_("Street address"))
    city = _text(_("City or town"))
    jurisdiction = forms.ChoiceField(label=_("Province or territory"), required=False)
    postal_code = _text(_("Postal code"), hint=_("For example K1A 0B1"))
    phone = _text(
        _("Organization's telephone number"),
        hint=_("10 digits, for example 905-555-0100."),
        widget=forms.TelInput,
    )
    naics = _text(
        _("Industry (NAICS code)"),
        hint=_("The 6-digit code of NAICS Canada 2022, for example 332710 for machine shops"),
    )
    employees = _text(_("Number of employees"), hint=_("Everyone on the payroll, in Canada"))
    first_name = _text(_("Your given name"))
    last_name = _text(_("Your family name"))
    email = _text(
        _("Your email address"),
        hint=_("It is also your username. We send a link to it."),
        widget=forms.EmailInput,
    )
    password = _text(_("Choose a password"), widget=forms.PasswordInput)
    password_again = _text(_("Type the password again"), widget=forms.PasswordInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = _jurisdictions(_("Choose…"))
        self.fields["jurisdiction"].choices = choices  # type: ignore[attr-defined]

    def typed(self) -> dict[str, Any]:
        typed = super().typed()
        employees = str(typed.get("employees") or "").strip().replace(" ", "").replace(",", "")
        typed["employees"] = (
            int(employees) if employees.isascii() and employees.isdigit() else employees
        )
        return typed


class InviteForm(PlainForm):
    email = _text(_("Their email address"), widget=forms.EmailInput)
    role = forms.ChoiceField(
        label=_("Role"),
        required=False,
        choices=[
            ("member", _("Member: applies and follows applications")),
            ("admin", _("Administrator: also manages the people and answers partner requests")),
        ],
        widget=forms.RadioSelect,
    )
    language = forms.ChoiceField(
        label=_("Language of the invitation"),
        required=False,
        choices=[("en", "English"), ("fr", "Français")],
    )


class NewAccountForm(PlainForm):
    first_name = _text(_("Your given name"))
    last_name = _text(_("Your family name"))
    password = _text(_("Choose a password"), widget=forms.PasswordInput)
    password_again = _text(_("Type the password again"), widget=forms.PasswordInput)


class SetPasswordForm(PlainForm):
    password = _text(_("Choose a password"), widget=forms.PasswordInput)
    password_again = _text(_("Type the password again"), widget=forms.PasswordInput)


STAFF_ROLE_CHOICES = [
    (role.value, role.label)
    for role in (Role.OFFICER, Role.FINANCE, Role.ANALYST, Role.AUDITOR, Role.PROGRAM_MANAGER)
]


class StaffForm(PlainForm):
    username = _text(_("Username"))
    email = _text(
        _("Email address"),
        hint=_("The link to choose a password is sent to it."),
        widget=forms.EmailInput,
    )
    first_name = _text(_("Given name"))
    last_name = _text(_("Family name"))
    role = forms.ChoiceField(label=_("Role"), required=False)
    jurisdiction = forms.ChoiceField(
        label=_("Jurisdiction"),
        required=False,
        help_text=_("Required for a provincial or territorial officer or program manager."),
    )
    federal = forms.BooleanField(
        label=_("Works for the Government of Canada (Service Canada)"), required=False
    )
    may_view_sin = forms.BooleanField(
        label=_("May view Social Insurance Numbers in full"), required=False
    )
    affiliations = _text(
        _("Affiliations (conflict of interest)"),
        hint=_(
            "Business numbers of the organizations this person is tied to, separated by spaces: "
            "they will not be able to act on those organizations' files."
        ),
        widget=forms.Textarea,
    )
    language = forms.ChoiceField(
        label=_("Language of messages"),
        required=False,
        choices=[("en", "English"), ("fr", "Français")],
    )

    def __init__(self, *args: Any, editing: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["role"].choices = [("", str(_("Choose…"))), *STAFF_ROLE_CHOICES]  # type: ignore[attr-defined]
        self.fields["jurisdiction"].choices = _jurisdictions(_("None (federal or national)"))  # type: ignore[attr-defined]
        if editing:
            del self.fields["username"], self.fields["email"]

    def typed(self) -> dict[str, Any]:
        typed = super().typed()
        typed["affiliations"] = str(typed.get("affiliations") or "").replace(",", " ").split()
        return typed


def show_problems(form: forms.Form, error: ServiceError) -> list[tuple[str, str]]:
    """Put the action's problems under their fields (named, in the page's language); what
    names no field of the form comes back as (href, message) links for the summary."""
    elsewhere = []
    for item in error.problems:
        name = item.get("field", "")
        message = localized(item)
        if name in form.fields:
            label = form.fields[name].label
            form.add_error(
                name, gettext("%(field)s: %(problem)s") % {"field": label, "problem": message}
            )
        else:
            elsewhere.append(("#main-content", message))
    if not error.problems:
        elsewhere.append(("#main-content", labels.service_message(error)))
    return elsewhere


ROLE_CHOICES = OrganizationRole.choices


# --- An organization's verification (people/organization_verification.py) -------------------


class ProofForm(PlainForm):
    """The document an administrator uploads (read from request.FILES by the view)."""

    file = forms.FileField(
        label=_("Business registration document"),
        help_text=_(
            "A document from a business registry or the Canada Revenue Agency showing the "
            "organization's legal name and business number. A PDF, PNG or JPEG file, at most "
            "10 MB."
        ),
        required=False,
    )


class VerifyForm(PlainForm):
    method = forms.ChoiceField(
        label=_("Verified against"),
        choices=[
            ("document", _("A document the organization uploaded")),
            ("registry", _("A registry check I made")),
        ],
        required=False,
        widget=forms.RadioSelect,
    )
    proof = forms.ChoiceField(label=_("The document checked"), required=False)
    note = _text(
        _("What you checked"),
        hint=_(
            "For a registry check, your attestation: which registry, and what it showed (the "
            "legal name and the business number). Kept with the decision."
        ),
        widget=forms.Textarea,
    )


class RefuseForm(PlainForm):
    reason = _text(
        _("Why the organization is refused"),
        hint=_("Sent to its administrators: say what is missing or does not match."),
        widget=forms.Textarea,
    )


class ResolveForm(PlainForm):
    outcome = forms.ChoiceField(
        label=_("Decision on the dispute"),
        choices=[
            ("dismissed", _("Dismiss: the organization registered is the business")),
            (
                "upheld",
                _(
                    "Uphold: the person disputing is the business (its people are removed, "
                    "the person is invited as its administrator)"
                ),
            ),
        ],
        required=False,
        widget=forms.RadioSelect,
    )
    reason = _text(_("Reason"), hint=_("Sent to the person who disputed."), widget=forms.Textarea)


class DisputeForm(PlainForm):
    name = _text(_("Your full name"))
    phone = _text(_("Your telephone number"), hint=_("An officer may call you about it."))
    statement = _text(
        _("Why the business is yours"),
        hint=_("Your role in the business, and anything that shows the registration is not."),
        widget=forms.Textarea,
    )
    file = forms.FileField(
        label=_("A document showing the business is yours"),
        help_text=_(
            "For example its registration from a business registry or a letter from the Canada "
            "Revenue Agency with the business number. A PDF, PNG or JPEG file, at most 10 MB."
        ),
        required=False,
    )


class BankAccountForm(PlainForm):
    """An organization's direct-deposit account (the action checks and seals it)."""

    institution = _text(_("Institution number"), hint=_("3 digits, for example 003"))
    transit = _text(_("Transit (branch) number"), hint=_("5 digits, for example 01234"))
    account = _text(
        _("Account number"),
        hint=_("7 to 12 digits. It is stored sealed and shown only by its last 4 digits."),
    )
