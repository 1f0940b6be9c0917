"""The wizard's first step: the organizations (the lead, a formset of partners); the training is
in employer_training.py, the trainees in employer_trainees.py, the whole draft and the review in
employer_draft.py. A draft holds what was typed (strings, as posted), step by step; the forms
check it again whenever it is used, so nothing half-checked reaches the actions. Nothing here
writes to the database: it reads the registry and runs the rules kernel.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from django import forms
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from jobgrant.rules.batch import COST_CATEGORIES
from jobgrant.service.registry.identifiers import normalize_business_number
from jobgrant.service.registry.models import Employer
from jobgrant.service.web.forms.employer import (
    MAX_TEXT,
    field_label,
    row_number,
)
from jobgrant.service.web.pages import set_choices

STEPS = ("organizations", "training", "trainees", "declarations", "review")
MAX_PARTNERS = 20
MAX_TRAINEES = 50
AMOUNTS = (*COST_CATEGORIES, "wages_in_kind")


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

    def __init__(
        self, *args: Any, acted_for: QuerySet[Employer] | None = None, **kwargs: Any
    ) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)
        self.acted_for = acted_for
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
        return self._as_shown(found)

    def _as_shown(self, found: Employer) -> Employer:
        """The employer as the wizard may show it: an organization the user does not act for
        is shown by its number only (its name, size and place are not the user's to learn).
        The copy is never saved: the application is made from the number, read again."""
        if self.acted_for is not None and self.acted_for.filter(pk=found.pk).exists():
            return found
        return Employer(
            pk=found.pk,
            business_number=found.business_number,
            name=_("Organization %(bn)s") % {"bn": found.business_number},
            employees=found.employees,
            jurisdiction=found.jurisdiction,
            region=found.region,
        )

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
    shown = {"acted_for": acted_for}
    if data is None:
        lead = OrganizationsForm(initial={"lead": initial.get("lead", "")}, acted_for=acted_for)
        rows = [{"business_number": p} for p in initial.get("partners") or []]
        return lead, cast(
            BasePartnerFormSet,
            PartnerFormSet(initial=rows, prefix="partner", auto_id="%s", form_kwargs=shown),
        )
    lead = OrganizationsForm(data, acted_for=acted_for)
    posted = rows_data(data, "partner", MAX_PARTNERS)
    partners = cast(
        BasePartnerFormSet,
        PartnerFormSet(posted, prefix="partner", auto_id="%s", form_kwargs=shown),
    )
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
