"""The wizard's declarations step: the training provider's details, who prepared the application
and for what fee, ties between the organization and the provider, other government funding,
and the two conflict-of-interest attestations.

The rules are the service's (grants/applications/declarations.py): this form turns what was
typed into the declarations object the API takes (yes and no, amounts as people write them),
asks the service to check it, and puts each problem next to its field in the page's words.
Fields that only apply to another answer (a fee when the organization prepared the application
itself) are left out, as the hints say, rather than refused.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _

from jobgrant.rules.money import AmountError, format_amount
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import declarations as service
from jobgrant.service.grants.applications.declarations import Declared
from jobgrant.service.grants.models.declarations import Relation
from jobgrant.service.language import localized
from jobgrant.service.web.forms.employer import MAX_TEXT, ChoiceRadios, parse_money
from jobgrant.service.web.pages import set_choices

YES_NO = ("provider_public_institution", "related_to_provider", "other_funding")
TICKS = ("trainer_attests_no_conflict", "employer_attests_no_conflict")
AMOUNTS = ("preparer_fee", "other_funding_amount")
#: Fields asked only for one answer of another: (the question, the answer, its fields).
ONLY_WHEN = (
    ("prepared_by", ("consultant", "provider"), ("preparer_name", "preparer_fee")),
    ("related_to_provider", ("yes",), ("relations",)),
    ("other_funding", ("yes",), ("other_funding_program", "other_funding_amount")),
    ("provider_public_institution", ("no",), ("provider_business_number",)),
)


class ChoiceCheckboxes(forms.CheckboxSelectMultiple):
    """Checkboxes whose ids are `<field>-<value>`, as ChoiceRadios' are."""

    def create_option(self, name: str, value: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(name, value, *args, **kwargs)
        option["attrs"]["id"] = f"{name}-{value}"
        return option

    def first_option_id(self, auto_id: str) -> str:
        first = next(iter(self.choices), ("", ""))
        return f"{auto_id}-{first[0]}"


class DeclarationsForm(forms.Form):
    provider_public_institution = forms.ChoiceField(required=False, widget=ChoiceRadios)
    provider_business_number = forms.CharField(required=False)
    provider_street_address = forms.CharField(required=False)
    provider_city = forms.CharField(required=False)
    provider_postal_code = forms.CharField(required=False)
    provider_phone = forms.CharField(required=False)
    prepared_by = forms.ChoiceField(required=False, widget=ChoiceRadios)
    preparer_name = forms.CharField(required=False)
    preparer_fee = forms.CharField(required=False)
    related_to_provider = forms.ChoiceField(required=False, widget=ChoiceRadios)
    relations = forms.MultipleChoiceField(required=False, widget=ChoiceCheckboxes)
    other_funding = forms.ChoiceField(required=False, widget=ChoiceRadios)
    other_funding_program = forms.CharField(required=False)
    other_funding_amount = forms.CharField(required=False)
    trainer_name = forms.CharField(required=False)
    trainer_attests_no_conflict = forms.CharField(required=False)
    employer_attests_no_conflict = forms.CharField(required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)
        self.declared: Declared | None = None
        for name, field in self.fields.items():
            field.label = declaration_label(name)
            field.help_text = HINTS.get(name, lambda: "")()
        self._set_choices()

    def _set_choices(self) -> None:
        yes, no = _("Yes"), _("No")
        set_choices(
            self,
            "provider_public_institution",
            [
                ("yes", _("Yes: a public college, university, institute or school board")),
                ("no", _("No: a private trainer, school or company")),
            ],
        )
        set_choices(
            self,
            "prepared_by",
            [
                ("employer", _("Our organization prepared it")),
                ("consultant", _("A consultant we pay prepared it")),
                ("provider", _("The training provider prepared it")),
            ],
        )
        for name in ("related_to_provider", "other_funding"):
            set_choices(self, name, [("yes", yes), ("no", no)])
        set_choices(self, "relations", [(code, str(label)) for code, label in Relation.choices])

    def clean(self) -> dict[str, Any] | None:
        """The declarations checked by the service; each problem beside its field."""
        body = self._body()
        try:
            declared = service.checked_declaration(body)
        except ServiceError as error:
            for item in error.problems:
                key = item["field"].removeprefix(f"{service.KEY}.")
                if key not in self.errors:  # an amount that did not read is said once
                    self.add_error(key if key in self.fields else None, _sentence(key, item))
        else:
            self.declared = None if self.errors else declared
        return self.cleaned_data

    def _body(self) -> dict[str, Any]:
        """What was typed as the API's declarations object (amounts that do not read are
        errors of the form, in its own words)."""
        data = {k: v for k, v in self.cleaned_data.items() if v not in ("", [], None)}
        for question, answers, fields in ONLY_WHEN:
            if data.get(question) not in answers:
                for name in fields:
                    data.pop(name, None)
        for name in YES_NO:
            if name in data:
                data[name] = data[name] == "yes"
        for name in TICKS:
            data[name] = data.get(name) == "yes"
        for name in AMOUNTS:
            if name in data:
                data[name] = self._amount(name, str(data[name]))
        return {key: value for key, value in data.items() if value is not None}

    def _amount(self, name: str, typed: str) -> str | None:
        """The amount as the API writes it, or None (the error is the form's)."""
        try:
            return format_amount(parse_money(typed[:MAX_TEXT]))
        except AmountError:
            self.add_error(
                name,
                _("%(field)s: enter an amount in dollars, 0 or more, for example 1500.")
                % {"field": declaration_label(name)},
            )
            return None


def _sentence(key: str, item: dict[str, str]) -> str:
    """The service's problem as the page says it: a plain request when the answer is missing,
    else the field's name and what is wrong with it."""
    if key in TICKS or (item.get("message_en") == service.MISSING[0] and key in MISSING):
        return MISSING[key]()
    return _("%(field)s: %(problem)s") % {
        "field": declaration_label(key),
        "problem": localized(item),
    }


def declaration_label(key: str) -> str:
    return LABELS[key]() if key in LABELS else _("Declarations")


LABELS = {
    "provider_public_institution": lambda: _("Is the training provider a public institution?"),
    "provider_business_number": lambda: _("Provider's business number"),
    "provider_street_address": lambda: _("Provider's street address"),
    "provider_city": lambda: _("Provider's city or town"),
    "provider_postal_code": lambda: _("Provider's postal code"),
    "provider_phone": lambda: _("Provider's telephone number"),
    "prepared_by": lambda: _("Who prepared this application?"),
    "preparer_name": lambda: _("Name of the consultant or provider who prepared it"),
    "preparer_fee": lambda: _("Fee paid to prepare the application"),
    "related_to_provider": lambda: _("Are your organization and the training provider related?"),
    "relations": lambda: _("How are they related?"),
    "other_funding": lambda: _("Does other government funding pay for any part of this training?"),
    "other_funding_program": lambda: _("Name of the other program"),
    "other_funding_amount": lambda: _("Amount of the other funding"),
    "trainer_name": lambda: _("Name of the person who signed the trainer's attestation"),
    "trainer_attests_no_conflict": lambda: _(
        "I have the training provider's signed statement that it has no conflict of interest "
        "with our organization other than those declared above."
    ),
    "employer_attests_no_conflict": lambda: _(
        "I attest that our organization has no conflict of interest with the training provider "
        "other than those declared above, and that no one in our organization receives money, "
        "gifts or services from the provider for choosing it."
    ),
}
HINTS = {
    "provider_public_institution": lambda: _(
        "A public institution need not give a business number."
    ),
    "provider_business_number": lambda: _(
        "The provider's 9-digit business number from the Canada Revenue Agency, on its invoices. "
        "Leave it blank for a public institution."
    ),
    "provider_street_address": lambda: _(
        "Where the provider does business, for example 135 Fennell Avenue West. Officers compare "
        "it with your organization's address."
    ),
    "provider_postal_code": lambda: _("For example L9C 1E9."),
    "provider_phone": lambda: _("10 digits, for example 905-555-0100."),
    "prepared_by": lambda: _(
        "Who filled in this application, if not your organization. A consultant or the training "
        "provider may prepare it, but your organization's own account must submit it: in British "
        "Columbia no one may apply on an employer's behalf."
    ),
    "preparer_name": lambda: _(
        "The person or firm. Leave it blank if your organization prepared the application."
    ),
    "preparer_fee": lambda: _(
        "What your organization pays them to prepare it, in dollars, for example 1500; write 0 "
        "if nothing. Leave it blank if your organization prepared the application."
    ),
    "related_to_provider": lambda: _(
        "They are related when they have owners in common, or directors or officers in common; "
        "when an owner, director or manager of one is family of an owner, director or trainer "
        "of the other (a spouse or partner, parent, child, brother or sister, or in-law); or "
        "when they share an address. A related provider is allowed, but it must be declared."
    ),
    "relations": lambda: _("Tick each one that applies. Leave them all blank if not related."),
    "other_funding": lambda: _(
        "Any federal, provincial, territorial or municipal program that pays for this training "
        "or its trainees' wages while they train. The same costs cannot be paid twice; in "
        "British Columbia, training paid by another government program is not eligible."
    ),
    "other_funding_program": lambda: _("Leave it blank if there is no other funding."),
    "other_funding_amount": lambda: _(
        "In dollars, for example 2000. Leave it blank if there is no other funding."
    ),
    "trainer_name": lambda: _(
        "Before you submit, ask the training provider to sign a statement that it has no "
        "conflict of interest with your organization other than those declared above. Keep it: "
        "an officer may ask for it. Write the name of the person who signed it."
    ),
}
MISSING = {
    "provider_public_institution": lambda: _("Say whether the provider is a public institution."),
    "provider_business_number": lambda: _(
        "Enter the provider's business number: a private provider must give it."
    ),
    "provider_street_address": lambda: _("Enter the provider's street address."),
    "provider_city": lambda: _("Enter the provider's city or town."),
    "provider_postal_code": lambda: _("Enter the provider's postal code."),
    "provider_phone": lambda: _("Enter the provider's telephone number."),
    "prepared_by": lambda: _("Say who prepared this application."),
    "preparer_name": lambda: _("Enter the name of the consultant or provider who prepared it."),
    "preparer_fee": lambda: _(
        "Enter the fee paid to the consultant or provider who prepared the application (0 if "
        "nothing)."
    ),
    "related_to_provider": lambda: _("Say whether your organization and the provider are related."),
    "relations": lambda: _("Tick how your organization and the provider are related."),
    "other_funding": lambda: _("Say whether other government funding pays for this training."),
    "other_funding_program": lambda: _("Enter the name of the other funding program."),
    "other_funding_amount": lambda: _("Enter the amount of the other funding."),
    "trainer_name": lambda: _("Enter the name of the person who signed the trainer's attestation."),
    "trainer_attests_no_conflict": lambda: _(
        "Confirm that you have the training provider's signed statement of no conflict of "
        "interest: the application cannot be submitted without it."
    ),
    "employer_attests_no_conflict": lambda: _(
        "Confirm that your organization has no conflict of interest other than those declared: "
        "the application cannot be submitted without it."
    ),
}


def typed_declarations(form: DeclarationsForm) -> dict[str, Any]:
    """What was typed at this step, as the draft keeps it (strings; the relations a list)."""
    typed: dict[str, Any] = {}
    for name in form.fields:
        value = form[name].value()
        if name == "relations":
            typed[name] = [str(v)[:MAX_TEXT] for v in (value or [])][: len(Relation.values)]
        else:
            typed[name] = str(value or "")[:MAX_TEXT]
    return typed


def declarations_data(typed: dict[str, Any]) -> dict[str, Any]:
    """A draft's declarations as posted data (the relations as a QueryDict would give them)."""
    data = QueryDict(mutable=True)
    for name, value in typed.items():
        if isinstance(value, list):
            data.setlist(name, [str(v) for v in value])
        else:
            data[name] = str(value)
    return data
