"""What the employer's forms share: field names as people see them, amounts and hours as people
type them, the withdrawal form, and the quote as the pages show it (reasons placed next to what
they concern). The wizard's own forms are in employer_apply.py.

Nothing here writes to the database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from babel.numbers import format_decimal
from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.rules.money import AmountError, format_amount, parse_amount
from jobgrant.service.errors import ServiceError
from jobgrant.service.language import current_locale, in_language, localized
from jobgrant.service.registry.models import Employer
from jobgrant.service.web.labels import cost_labels, service_message
from jobgrant.service.web.templatetags.jobgrant import longdate

MAX_TEXT = 300  # longest string kept from a posted field
NOTE_MAX = 1000
TRAINING_FIELDS = (
    "course",
    "setting",
    "start_date",
    "end_date",
    "hours",
    "provider_name",
    "third_party",
)


def field_label(key: str) -> str:
    """The name of a form field as the person sees it, e.g. "Tuition or trainer fees, trainee 2"."""
    fixed = {
        "lead": _("Organization applying"),
        "course": _("Course or program name"),
        "setting": _("Where the training takes place"),
        "start_date": _("Training start date"),
        "end_date": _("Training end date"),
        "hours": _("Hours of training"),
        "provider_name": _("Training provider's name"),
        "third_party": _("Third-party trainer"),
        "confirm": _("Confirmation"),
        "stream": _("Stream"),
    }
    if key in fixed:
        return fixed[key]
    partner = re.fullmatch(r"partner-(\d+)", key)
    if partner:
        return _("Partner %(number)s business number") % {"number": int(partner[1]) + 1}
    trainee = re.fullmatch(r"trainee-(\d+)-(\w+)", key)
    if trainee:
        number, part = int(trainee[1]) + 1, trainee[2]
        what = {**cost_labels(), "employer": _("Employer"), "status": _("Status")}.get(part, part)
        return _("%(field)s, trainee %(number)s") % {"field": what, "number": number}
    return _("Application")


def row_number(prefix: str | None) -> int:
    """The row a formset form stands for, counted from 1 ("trainee-2" is row 3)."""
    found = re.search(r"-(\d+)$", prefix or "")
    return int(found[1]) + 1 if found else 1


# --- Numbers as people type them --------------------------------------------------------------

_SPACES = re.compile(r"[\s\u00a0\u202f]+")
_GROUPED = re.compile(r"^\d{1,3}(,\d{3})+(\.\d*)?$")


def normalize_number(raw: str) -> str:
    """ "1 500,50 $", "$1,500.50" and "1500.5" all become "1500.50"-style decimal text.

    The last of "," and "." is the decimal mark when both appear; a lone comma is a decimal
    comma unless it groups thousands ("1,500").
    """
    text = _SPACES.sub("", raw).replace("$", "")
    if "," in text and "." in text:
        decimal = "," if text.rfind(",") > text.rfind(".") else "."
        grouping = "." if decimal == "," else ","
        text = text.replace(grouping, "").replace(decimal, ".")
    elif "," in text:
        text = text.replace(",", "") if _GROUPED.match(text) else text.replace(",", ".")
    return text


def parse_money(raw: str) -> int:
    """Cents from what a person typed ("" is 0); AmountError names what is wrong."""
    text = normalize_number(raw)
    return parse_amount(text) if text else 0


def show_amount(cents: int) -> str:
    """An amount as the form shows it back: "1500.00" / "1500,00" (no grouping, no sign)."""
    text = format_amount(cents)
    return in_language(en=text, fr=text.replace(".", ","))


def show_hours(hundredths: int) -> str:
    """Hours for people: "120", "37.5" / "37,5" (grouped by the locale's rules)."""
    locale = current_locale()
    return format_decimal(Decimal(hundredths) / 100, locale=locale)


def amount_messages(label: str) -> dict[str, str]:
    """An AmountField's errors, each naming the field (AmountError codes as keys)."""
    return {
        "too_many_decimals": _("%(field)s: use at most two decimals (cents).") % {"field": label},
        "too_large": _("%(field)s: the amount is too large.") % {"field": label},
        "invalid": _("%(field)s: enter an amount in dollars, 0 or more, for example %(example)s.")
        % {"field": label, "example": show_amount(150000)},
    }


class AmountField(forms.Field):
    """An amount in dollars as people write it in either language; cleans to cents (blank is 0).
    Its error messages are set by the form, which knows the row the field is on."""

    def to_python(self, value: Any) -> int:
        text = value[:MAX_TEXT] if isinstance(value, str) else ""
        try:
            return parse_money(text)
        except AmountError as error:
            code = error.code if error.code in ("too_many_decimals", "too_large") else "invalid"
            raise forms.ValidationError(self.error_messages[code], code=code) from None


class ChoiceRadios(forms.RadioSelect):
    """Radio buttons whose ids are `<field>-<value>` (stable for error links and browser tests)."""

    def create_option(self, name: str, value: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(name, value, *args, **kwargs)
        option["attrs"]["id"] = f"{name}-{value}"
        return option

    def first_option_id(self, auto_id: str) -> str:
        """Where an error link about the group goes: its first button."""
        first = next(iter(self.choices), ("", ""))
        return f"{auto_id}-{first[0]}"


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def has_control_characters(text: str) -> bool:
    """Characters no one types (NUL and the like), which the database may refuse to store."""
    return bool(_CONTROL.search(text))


class WithdrawForm(forms.Form):
    note = forms.CharField(
        label=gettext_lazy("Reason for withdrawing (optional)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "%s")
        super().__init__(*args, **kwargs)
        self.fields["note"].help_text = _("At most %(most)s characters.") % {"most": NOTE_MAX}
        self.fields["note"].error_messages["null_characters_not_allowed"] = _(
            "The reason must hold only letters, digits, spaces and punctuation."
        )

    def clean_note(self) -> str:
        note = str(self.cleaned_data["note"]).replace("\r\n", "\n")
        if len(note) > NOTE_MAX:
            raise forms.ValidationError(
                _("The reason must have at most %(most)s characters.") % {"most": NOTE_MAX}
            )
        if has_control_characters(note):
            raise forms.ValidationError(
                _("The reason must hold only letters, digits, spaces and punctuation.")
            )
        return note


# --- From the service's field paths and the kernel's reasons to the form's fields --------------

_TRAINING_PATHS = {
    "training.course": "course",
    "training.setting": "setting",
    "training.start_date": "start_date",
    "training.end_date": "end_date",
    "training.hours": "hours",
    "training.provider": "provider_name",
    "training.provider.name": "provider_name",
    "training.provider.third_party": "third_party",
    "training": "setting",
}


def field_for_path(path: str) -> str:
    """`trainees[0].costs.tuition` -> `trainee-0-tuition`; `employers[1]...` -> `partner-0`."""
    if path in _TRAINING_PATHS:
        return _TRAINING_PATHS[path]
    employer = re.fullmatch(r"employers\[(\d+)\].*", path)
    if employer:
        index = int(employer[1])
        return "lead" if index == 0 else f"partner-{index - 1}"
    trainee = re.fullmatch(r"trainees\[(\d+)\](?:\.(costs\.)?(\w+))?", path)
    if trainee:
        part = {"employer_id": "employer"}.get(trainee[3] or "employer", trainee[3] or "employer")
        return f"trainee-{trainee[1]}-{part}"
    if path == "trainees":
        return "trainee-0-employer"
    return "lead"


def step_of(key: str) -> str:
    if key == "lead" or key.startswith("partner-"):
        return "organizations"
    if key in TRAINING_FIELDS:
        return "training"
    if key.startswith("trainee-"):
        return "trainees"
    return "review"


def service_problems(error: ServiceError) -> list[tuple[str, str]]:
    """A refusal from the service as (form field, message) pairs, each message naming its field
    in the page's language."""
    found = []
    for item in error.problems:
        key = field_for_path(item.get("field", ""))
        message = localized(item)
        found.append(
            (key, _("%(field)s: %(problem)s") % {"field": field_label(key), "problem": message})
        )
    return found or [("lead", service_message(error))]


_REASON_FIELDS = {
    "PROVIDER_NOT_THIRD_PARTY": "third_party",
    "TRAINING_SETTING_NOT_ELIGIBLE": "setting",
    "TRAINING_STARTED_BEFORE_APPLICATION": "start_date",
    "APPLICATION_TOO_CLOSE_TO_START": "start_date",
    "TRAINING_STARTS_TOO_FAR_AHEAD": "start_date",
    "TRAINING_TOO_LONG": "end_date",
    "TRAINING_TOO_SHORT": "hours",
}
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def reason_message(reason: Mapping[str, Any]) -> str:
    """The kernel's reason in the page's language, its dates written out for the locale."""
    if reason.get("code") == "TRAINEE_WITHOUT_ELIGIBLE_COSTS" and reason.get("trainee") is not None:
        return _("Trainee %(number)s has no eligible training costs.") % {
            "number": int(reason["trainee"]) + 1
        }
    text = localized(reason)
    return _ISO_DATE.sub(lambda m: longdate(m[0]), text)


def place_reasons(reasons: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Each reason under the field it concerns: a training field, `trainee-N`, `employer-BN`,
    or `general` for the application as a whole."""
    placed: dict[str, list[str]] = {}
    for reason in reasons:
        code = str(reason.get("code", ""))
        if reason.get("trainee") is not None:
            key = f"trainee-{reason['trainee']}"
        elif reason.get("employer"):
            key = f"employer-{reason['employer']}"
        else:
            key = _REASON_FIELDS.get(code, "general")
        placed.setdefault(key, []).append(reason_message(reason))
    return placed


def all_reasons(quote: Mapping[str, Any]) -> list[str]:
    """Every reason the quote gives, in the page's language: the warning before a submission."""
    return [reason_message(reason) for reason in quote.get("reasons") or []]


def quote_tables(
    quote: Mapping[str, Any],
    employers_by_id: Mapping[str, Employer],
    *,
    lead_id: str,
    only: set[str] | None = None,
) -> dict[str, Any]:
    """The quote as the pages show it: per trainee, per employer and in total, with each reason
    placed under what it concerns. `only` limits the rows to those employers (a partner sees its
    own share and trainees, not the others')."""
    reasons = place_reasons(quote.get("reasons") or [])
    trainee_rows = [
        {
            "number": int(t["index"]) + 1,
            "employer": employers_by_id.get(t["employer_id"]),
            "figures": t,
            "reasons": reasons.get(f"trainee-{t['index']}", []),
        }
        for t in quote.get("trainees") or []
        if only is None or t["employer_id"] in only
    ]
    employer_rows = [
        {
            "id": e["id"],
            "employer": employers_by_id.get(e["id"]),
            "role": _("Applicant") if e["id"] == lead_id else _("Partner"),
            "figures": e,
            "reasons": reasons.get(f"employer-{e['id']}", []),
        }
        for e in quote.get("employers") or []
        if only is None or e["id"] in only
    ]
    totals = quote.get("totals") or {}
    return {
        "eligible": bool(quote.get("eligible")),
        "trainee_rows": trainee_rows,
        "employer_rows": employer_rows,
        "totals": totals if only is None else None,
        "in_kind": any(r["figures"].get("in_kind") not in (None, "0.00") for r in employer_rows),
        "reasons": reasons,
        "general_reasons": reasons.get("general", []),
        "training_reasons": {k: reasons[k] for k in TRAINING_FIELDS if k in reasons},
    }
