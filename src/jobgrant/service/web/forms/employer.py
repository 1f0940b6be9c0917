"""The employer's application form: the draft kept in the session, each step's checks, and the
payload that grants.actions.create_application takes.

The draft holds what the person typed (strings, as posted), step by step; every check runs again
on it whenever it is used, so nothing half-checked ever reaches the actions. Nothing here writes
to the database: it reads the registry and runs the rules kernel.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from babel.numbers import format_decimal
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from jobgrant.rules.batch import COST_CATEGORIES, SETTINGS, STATUSES
from jobgrant.rules.money import AmountError, format_amount, parse_amount
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants import quoting
from jobgrant.service.language import current_locale, in_language, localized
from jobgrant.service.registry.identifiers import normalize_business_number
from jobgrant.service.registry.models import Employer
from jobgrant.service.web.labels import cost_labels, jurisdiction_name, service_message
from jobgrant.service.web.templatetags.jobgrant import longdate

SESSION_KEY = "jobgrant.employer.application-draft"
STEPS = ("organizations", "training", "trainees", "review")
MAX_PARTNERS = 20
MAX_TRAINEES = 50
MAX_TEXT = 300  # longest string kept from a posted field
PROVIDER_NAME_MAX = 200
NOTE_MAX = 1000
AMOUNTS = (*COST_CATEGORIES, "wages_in_kind")
TRAINING_FIELDS = ("setting", "start_date", "end_date", "hours", "provider_name", "third_party")
#: The training fields next to which eligibility reasons can appear.
REASON_SLOTS = ("setting", "start_date", "end_date", "hours", "third_party")


def field_label(key: str) -> str:
    """The name of a form field as the person sees it, e.g. "Tuition or trainer fees, trainee 2"."""
    fixed = {
        "lead": _("Organization applying"),
        "setting": _("Where the training takes place"),
        "start_date": _("Training start date"),
        "end_date": _("Training end date"),
        "hours": _("Hours of training"),
        "provider_name": _("Training provider's name"),
        "third_party": _("Third-party trainer"),
        "confirm": _("Confirmation"),
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


# --- Problems ---------------------------------------------------------------------------------


@dataclass
class Problems:
    """Field problems in page order: the error summary lists them, each field shows its own."""

    items: list[tuple[str, str]] = field(default_factory=list)

    def add(self, key: str, message: str) -> None:
        if key not in self.by_field:
            self.items.append((key, message))

    @property
    def by_field(self) -> dict[str, str]:
        return dict(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)

    def extend(self, other: Problems) -> None:
        for key, message in other.items:
            self.add(key, message)


def anchor(key: str) -> str:
    """The id of the control an error link moves to (a radio group's first button)."""
    return {"setting": "setting-on-site", "third_party": "third_party-yes"}.get(key, key)


# --- Reading posted values --------------------------------------------------------------------


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key, "")
    return value[:MAX_TEXT] if isinstance(value, str) else ""


def _row_count(data: Mapping[str, Any], prefix: str, count_key: str, most: int) -> int:
    """How many rows were posted: the form's count, else the highest index present."""
    try:
        count = int(_text(data, count_key))
    except ValueError:
        pattern = re.compile(rf"{prefix}-(\d+)")
        found = [int(m[1]) + 1 for k in data if (m := pattern.match(k)) and len(m[1]) < 4]
        count = max(found, default=0)
    return max(0, min(count, most))


def read_organizations(data: Mapping[str, Any]) -> dict[str, Any]:
    count = _row_count(data, "partner", "partner-count", MAX_PARTNERS)
    return {
        "lead": _text(data, "lead"),
        "partners": [_text(data, f"partner-{i}") for i in range(count)],
    }


def read_training(data: Mapping[str, Any]) -> dict[str, str]:
    return {key: _text(data, key) for key in TRAINING_FIELDS}


def read_trainees(data: Mapping[str, Any]) -> list[dict[str, str]]:
    count = max(1, _row_count(data, "trainee", "trainee-count", MAX_TRAINEES))
    parts = ("employer", "status", *AMOUNTS)
    return [{part: _text(data, f"trainee-{i}-{part}") for part in parts} for i in range(count)]


def blank_trainee(employer: str = "") -> dict[str, str]:
    return {"employer": employer, "status": "", **dict.fromkeys(AMOUNTS, "")}


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
    return format_decimal(Decimal(hundredths) / 100, locale=current_locale())


def _amount_problem(label: str, error: AmountError) -> str:
    if error.code == "too_many_decimals":
        return _("%(field)s: use at most two decimals (cents).") % {"field": label}
    if error.code == "too_large":
        return _("%(field)s: the amount is too large.") % {"field": label}
    return _("%(field)s: enter an amount in dollars, 0 or more, for example %(example)s.") % {
        "field": label,
        "example": show_amount(150000),
    }


def small_index(raw: object) -> int | None:
    """A row number or a database id as typed in a form: ASCII digits only, or None."""
    text = raw if isinstance(raw, str) else ""
    return int(text) if re.fullmatch(r"[0-9]{1,9}", text) else None


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def has_control_characters(text: str) -> bool:
    """Characters no one types (NUL and the like), which the database may refuse to store."""
    return bool(_CONTROL.search(text))


def normalize_note(raw: object) -> str:
    """A free-text note: text only, trimmed, line ends unified."""
    return raw.replace("\r\n", "\n").strip() if isinstance(raw, str) else ""


# --- Step 1: organizations --------------------------------------------------------------------


@dataclass(frozen=True)
class Organizations:
    lead: Employer
    partners: tuple[Employer, ...]

    @property
    def all(self) -> tuple[Employer, ...]:
        return (self.lead, *self.partners)


def check_organizations(
    raw: Mapping[str, Any], acted_for: QuerySet[Employer]
) -> tuple[Organizations | None, Problems]:
    problems = Problems()
    lead = None
    lead_id = small_index(raw.get("lead"))
    if lead_id is not None:
        lead = acted_for.filter(pk=lead_id).first()
    if lead is None:
        problems.add("lead", _("Choose the organization that applies."))
    partners: list[Employer] = []
    seen = {lead.business_number} if lead else set()
    for i, typed in enumerate(raw.get("partners") or []):
        key, number = f"partner-{i}", i + 1
        if not typed.strip():
            continue
        bn = normalize_business_number(typed)
        found = Employer.objects.filter(business_number=bn).first() if bn else None
        if bn is None:
            problems.add(key, _(
                "Partner %(number)s: enter a business number of 9 digits, for example 123456782."
            ) % {"number": number})  # fmt: skip
        elif found is None:
            problems.add(key, _(
                "Partner %(number)s: no registered employer has the business number %(bn)s."
            ) % {"number": number, "bn": bn})  # fmt: skip
        elif bn in seen:
            problems.add(key, _(
                "Partner %(number)s is already in this application; list each organization once."
            ) % {"number": number})  # fmt: skip
        else:
            seen.add(bn)
            partners.append(found)
    if problems or lead is None:
        return None, problems
    return Organizations(lead, tuple(partners)), problems


def cleaned_organizations(organizations: Organizations) -> dict[str, Any]:
    """The step's raw values once checked: blank partner rows dropped, numbers normalized."""
    return {
        "lead": str(organizations.lead.pk),
        "partners": [p.business_number for p in organizations.partners],
    }


# --- Step 2: training and provider ------------------------------------------------------------


@dataclass(frozen=True)
class Training:
    setting: str
    start_date: dt.date
    end_date: dt.date
    hours: int  # hundredths
    provider_name: str
    third_party: bool

    def as_payload(self) -> dict[str, Any]:
        return {
            "setting": self.setting,
            "start_date": self.start_date.isoformat(),
            "end_date": self.end_date.isoformat(),
            "hours": format_amount(self.hours),
            "provider": {"name": self.provider_name, "third_party": self.third_party},
        }


def _date(raw: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(raw.strip()) if len(raw.strip()) == 10 else None
    except ValueError:
        return None


def check_training(
    raw: Mapping[str, str], jurisdiction: str | None, today: dt.date
) -> tuple[Training | None, Problems]:
    problems = Problems()
    setting = raw.get("setting", "")
    if setting not in SETTINGS:
        problems.add("setting", _("Choose where the training takes place."))
    start, end = _date(raw.get("start_date", "")), _date(raw.get("end_date", ""))
    date_hint = _("for example %(example)s") % {"example": "2027-01-11"}
    if start is None:
        problems.add("start_date", _("Enter the training start date (%(hint)s).") % {
            "hint": date_hint})  # fmt: skip
    if end is None:
        problems.add("end_date", _("Enter the training end date (%(hint)s).") % {
            "hint": date_hint})  # fmt: skip
    elif start is not None and end < start:
        problems.add("end_date", _("The training end date must not be before its start date."))
    hours = 0
    try:
        hours = parse_amount(normalize_number(raw.get("hours", "")))
        if hours == 0:
            raise AmountError("not_an_amount")
    except AmountError:
        problems.add("hours", _("Enter the number of hours of training, for example 120."))
    provider = raw.get("provider_name", "").strip()
    if not provider:
        problems.add("provider_name", _("Enter the name of the training provider."))
    elif has_control_characters(provider):
        problems.add("provider_name", _(
            "The training provider's name must hold only letters, digits, spaces and punctuation."
        ))  # fmt: skip
    elif len(provider) > PROVIDER_NAME_MAX:
        problems.add("provider_name", _(
            "The training provider's name must have at most %(most)s characters."
        ) % {"most": PROVIDER_NAME_MAX})  # fmt: skip
    third_party = raw.get("third_party", "")
    if third_party not in ("yes", "no"):
        problems.add("third_party", _("Say whether the trainer is a third party."))
    if start is not None and jurisdiction and "start_date" not in problems.by_field:
        try:
            quoting.program_for({"jurisdiction": jurisdiction,
                                 "training": {"start_date": start.isoformat()}}, today)  # fmt: skip
        except ServiceError:
            message = _(
                "No intake is open in %(jurisdiction)s for training that starts on %(date)s."
            )
            where = jurisdiction_name(jurisdiction)
            problems.add("start_date", message % {"jurisdiction": where, "date": longdate(start)})
    if problems or start is None or end is None:
        return None, problems
    training = Training(setting, start, end, hours, provider, third_party == "yes")
    return training, problems


# --- Step 3: trainees and costs ---------------------------------------------------------------


@dataclass(frozen=True)
class TraineeRow:
    employer: str  # business number
    status: str
    amounts: dict[str, int]  # cents, by AMOUNTS

    def as_payload(self) -> dict[str, Any]:
        return {
            "employer_id": self.employer,
            "status": self.status,
            "costs": {k: format_amount(self.amounts[k]) for k in COST_CATEGORIES},
            "wages_in_kind": format_amount(self.amounts["wages_in_kind"]),
        }


def check_trainees(
    rows: Iterable[Mapping[str, str]], employer_numbers: Iterable[str]
) -> tuple[list[TraineeRow] | None, Problems]:
    problems = Problems()
    allowed = set(employer_numbers)
    checked: list[TraineeRow] = []
    for i, row in enumerate(rows):
        number = i + 1
        if row.get("employer") not in allowed:
            problems.add(f"trainee-{i}-employer", _("Choose the employer of trainee %(number)s.")
                         % {"number": number})  # fmt: skip
        if row.get("status") not in STATUSES:
            problems.add(f"trainee-{i}-status", _("Choose the status of trainee %(number)s.")
                         % {"number": number})  # fmt: skip
        amounts: dict[str, int] = {}
        for part in AMOUNTS:
            key = f"trainee-{i}-{part}"
            try:
                amounts[part] = parse_money(row.get(part, ""))
            except AmountError as error:
                problems.add(key, _amount_problem(field_label(key), error))
        checked.append(TraineeRow(row.get("employer", ""), row.get("status", ""), amounts))
    if not checked:
        problems.add("trainee-0-employer", _("Add at least one trainee."))
    return (None if problems else checked), problems


# --- The whole draft --------------------------------------------------------------------------


@dataclass
class Checked:
    """The draft checked step by step: what is valid so far, and the first step in error."""

    organizations: Organizations | None = None
    training: Training | None = None
    trainees: list[TraineeRow] | None = None
    problems: dict[str, Problems] = field(default_factory=dict)

    @property
    def first_incomplete(self) -> str | None:
        for step in STEPS[:3]:
            if self.problems.get(step) or getattr(self, step) is None:
                return step
        return None


def check_draft(draft: Mapping[str, Any], acted_for: QuerySet[Employer], today: dt.date) -> Checked:
    checked = Checked()
    checked.organizations, checked.problems["organizations"] = check_organizations(
        draft.get("organizations") or {}, acted_for
    )
    if checked.organizations is None:
        return checked
    jurisdiction = checked.organizations.lead.jurisdiction
    training_raw = draft.get("training")
    if training_raw is None:
        return checked
    checked.training, checked.problems["training"] = check_training(
        training_raw, jurisdiction, today
    )
    if checked.training is None or not draft.get("trainees"):
        return checked
    numbers = [e.business_number for e in checked.organizations.all]
    checked.trainees, checked.problems["trainees"] = check_trainees(draft["trainees"], numbers)
    return checked


def payload(
    organizations: Organizations, training: Training, trainees: list[TraineeRow]
) -> dict[str, Any]:
    """The application as create_application takes it: employers named by business number."""
    lead = organizations.lead
    body: dict[str, Any] = {
        "jurisdiction": lead.jurisdiction,
        "employers": [
            {"id": e.business_number, "business_number": e.business_number}
            for e in organizations.all
        ],
        "training": training.as_payload(),
        "trainees": [t.as_payload() for t in trainees],
    }
    if lead.region:
        body["region"] = lead.region
    return body


def preview_quote(body: dict[str, Any], today: dt.date) -> dict[str, Any]:
    """The rules kernel's quote of an application not yet made (reads only; ServiceError)."""
    employers = quoting.registered_employers(body)
    program = quoting.program_for(body, today)
    return quoting.run_quote(quoting.kernel_request(body, employers, program, today), explain=False)


# --- From the service's field paths and the kernel's reasons to the form's fields --------------

_TRAINING_PATHS = {
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


def service_problems(error: ServiceError) -> Problems:
    """A refusal from the service as form problems, each naming its field in the page's language."""
    problems = Problems()
    for item in error.problems:
        key = field_for_path(item.get("field", ""))
        message = localized(item)
        problems.add(key, _("%(field)s: %(problem)s") % {
            "field": field_label(key), "problem": message})  # fmt: skip
    if not problems:
        problems.add("lead", service_message(error))
    return problems


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
            "number": int(reason["trainee"]) + 1}  # fmt: skip
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


# --- What the templates draw ------------------------------------------------------------------


def control(
    key: str,
    label: str,
    value: str = "",
    *,
    problems: Problems,
    hint: str = "",
    reason: str = "",
    reasons: Mapping[str, list[str]] | None = None,
    options: Iterable[tuple[str, str]] = (),
) -> dict[str, Any]:
    """One form control: its id and name (`key`, stable for browser tests), label, value, hint,
    error and the ids that describe it (hint, error, and `reason-<reason>`: the slot where the
    eligibility reasons about it appear; the control draws the slot when `reason` is its key)."""
    error = problems.by_field.get(key, "")
    described = [f"{key}-hint"] * bool(hint) + [f"{key}-error"] * bool(error)
    if reason:
        described.append(f"reason-{reason}")
    return {
        "id": key,
        "name": key,
        "label": label,
        "value": value,
        "hint": hint,
        "error": error,
        "describedby": " ".join(described),
        "reason_slot": reason,
        "reasons": (reasons or {}).get(reason, []),
        "own_slot": reason == key,
        "options": [
            {"value": v, "label": text, "selected": v == value, "id": f"{key}-{v}"}
            for v, text in options
        ],
    }


def error_links(
    problems: Problems, *, href: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """(href, message) for the error summary; `href` overrides where a field's link goes."""
    targets = href or {}
    return [(targets.get(key) or f"#{anchor(key)}", message) for key, message in problems.items]


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
