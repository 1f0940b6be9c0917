"""Quote requests: the `jobgrant quote` JSON, validated field by field, in English and French.

Every problem names its field path (`trainees[0].costs.tuition`) and carries a message in both
official languages. Nothing is computed from a request that has any problem.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, TypeVar

import numpy as np

from jobgrant.rules.batch import (
    COST_CATEGORIES,
    DELIVERIES,
    POLICY_DEFAULT_DELIVERY,
    SETTINGS,
    STATUSES,
    Applications,
    Employers,
    QuoteBatch,
    Trainees,
    region_codes,
)
from jobgrant.rules.codes import JURISDICTION_CODES, JURISDICTION_INDEX, economic_regions
from jobgrant.rules.money import AmountError, parse_amount

T = TypeVar("T")

COURSE_MAX = 200  # characters in a course's name, once trimmed
EMPLOYER_ID_MAX = 100  # characters in an employer's id (the service stores it in 100)
#: C0 and C1 control characters and DEL: nobody types them, and a page cannot show them.
_CONTROL_CHARACTERS = frozenset(map(chr, (*range(0x20), *range(0x7F, 0xA0))))

MESSAGES: dict[str, tuple[str, str]] = {
    "required": ("is required", "est obligatoire"),
    "unknown_field": ("is not a known field", "n'est pas un champ connu"),
    "not_an_object": ("must be an object", "doit être un objet"),
    "not_a_list": ("must be a list", "doit être une liste"),
    "empty_list": ("must list at least one entry", "doit contenir au moins un élément"),
    "not_text": ("must be text", "doit être du texte"),
    "blank": ("must not be blank", "ne doit pas être vide"),
    "control_characters": (
        "must not contain control characters",
        "ne doit pas contenir de caractères de contrôle",
    ),
    "too_long": (
        f"must have at most {COURSE_MAX} characters",
        f"doit compter au plus {COURSE_MAX} caractères",
    ),
    "id_too_long": (
        f"must have at most {EMPLOYER_ID_MAX} characters",
        f"doit compter au plus {EMPLOYER_ID_MAX} caractères",
    ),
    "not_a_boolean": ("must be true or false", "doit être true ou false"),
    "not_a_count": ("must be a whole number, 0 or more", "doit être un nombre entier, 0 ou plus"),
    "not_an_amount": ("must be a non-negative amount", "doit être un montant positif ou nul"),
    "negative": ("must be a non-negative amount", "doit être un montant positif ou nul"),
    "too_many_decimals": (
        "must have at most two decimals",
        "doit avoir au plus deux décimales",
    ),
    "too_large": ("must not exceed 1000000000.00", "ne doit pas dépasser 1000000000.00"),
    "not_hours": (
        "must be a non-negative number of hours with at most two decimals",
        "doit être un nombre d'heures positif ou nul, avec au plus deux décimales",
    ),
    "not_a_date": (
        "must be a date written YYYY-MM-DD",
        "doit être une date écrite AAAA-MM-JJ",
    ),
    "end_before_start": (
        "must not be before training.start_date",
        "ne doit pas précéder training.start_date",
    ),
    "unknown_jurisdiction": (
        "must be one of " + ", ".join(JURISDICTION_CODES),
        "doit être l'un de " + ", ".join(JURISDICTION_CODES),
    ),
    "unknown_region": (
        "is not an economic region of the jurisdiction",
        "n'est pas une région économique de la province ou du territoire",
    ),
    "unknown_employer": (
        "does not match the id of any entry in employers",
        "ne correspond à l'id d'aucun élément de employers",
    ),
    "duplicate_employer": ("repeats another employer's id", "répète l'id d'un autre employeur"),
    "unknown_policy": ("is not a known policy", "n'est pas une politique connue"),
    "before_policy": (
        "is before the policy took effect",
        "précède l'entrée en vigueur de la politique",
    ),
    "not_json": ("is not valid JSON", "n'est pas du JSON valide"),
}


@dataclass(frozen=True)
class Problem:
    path: str
    code: str
    detail: str = ""

    def message(self, lang: str = "en") -> str:
        english, french = MESSAGES[self.code]
        text = french if lang == "fr" else english
        return f"{text} ({self.detail})" if self.detail else text

    def line(self, lang: str = "en") -> str:
        return f"{self.path}: {self.message(lang)}"


class InvalidRequestError(ValueError):
    """A request with one or more problems; nothing was computed."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(p.line() for p in problems))
        self.problems = problems


@dataclass(frozen=True)
class EmployerInput:
    id: str
    employees: int
    approved_this_fiscal_year: int


@dataclass(frozen=True)
class TraineeInput:
    employer_id: str
    status: str
    costs: tuple[int, int, int, int]  # COST_CATEGORIES order, cents
    wages_in_kind: int


@dataclass(frozen=True)
class QuoteRequest:
    policy: str | None
    jurisdiction: str
    region: str | None
    delivery: str | None
    application_date: dt.date
    start_date: dt.date
    end_date: dt.date
    hours: int  # hundredths
    provider_name: str
    course: str  # "" when the request names none (applications made before it was asked)
    third_party: bool
    setting: str
    employers: tuple[EmployerInput, ...]
    trainees: tuple[TraineeInput, ...]


class _Reader:
    """Reads fields off JSON objects, collecting every problem instead of stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def problem(self, path: str, code: str, detail: str = "") -> None:
        self.problems.append(Problem(path, code, detail))

    def named(self, *paths: str) -> bool:
        """Whether a problem was already found with any of these fields."""
        return any(problem.path in paths for problem in self.problems)

    def obj(self, raw: object, path: str, required: Set[str], optional: Set[str]) -> dict[str, Any]:
        if not isinstance(raw, dict):
            self.problem(path or "(request)", "not_an_object")
            return {}
        allowed = required | optional
        if required <= raw.keys() <= allowed:
            return raw  # the usual case, checked without building a path
        prefix = f"{path}." if path else ""
        for key in raw:
            if key not in allowed:
                self.problem(f"{prefix}{key}", "unknown_field")
        for key in sorted(required - set(raw)):
            self.problem(f"{prefix}{key}", "required")
        return raw

    def field(self, raw: dict[str, Any], key: str, path: str, parse: Callable[[Any, str], T]) -> T:
        full = f"{path}.{key}" if path else key
        return parse(raw[key], full) if key in raw else _missing()

    def text(self, raw: object, path: str) -> str:
        if not isinstance(raw, str) or not raw.strip():
            self.problem(path, "not_text")
            return ""
        return raw.strip()

    def course(self, raw: object, path: str) -> str:
        """A course or program's name, or a training provider's: text of 1 to COURSE_MAX
        characters once trimmed, with no control character (a NUL included)."""
        if not isinstance(raw, str):
            self.problem(path, "not_text")
        elif not raw.strip():
            self.problem(path, "blank")
        elif has_control_characters(raw):
            self.problem(path, "control_characters")
        elif len(raw.strip()) > COURSE_MAX:
            self.problem(path, "too_long")
        else:
            return raw.strip()
        return ""

    def choice(self, raw: object, path: str, choices: Iterable[str], code: str = "") -> str:
        options = tuple(choices)
        if raw not in options:
            self.problem(path, code or "not_text", "" if code else "one of " + ", ".join(options))
            return ""
        return str(raw)

    def date(self, raw: object, path: str) -> dt.date:
        try:
            if isinstance(raw, str) and len(raw) == 10:
                return dt.date.fromisoformat(raw)
        except ValueError:
            pass
        self.problem(path, "not_a_date")
        return dt.date.min

    def count(self, raw: object, path: str) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
            self.problem(path, "not_a_count")
            return 0
        return raw

    def amount(self, raw: object, path: str) -> int:
        try:
            return parse_amount(raw)
        except AmountError as error:
            self.problem(path, error.code)
            return 0

    def hours(self, raw: object, path: str) -> int:
        """Hours in hundredths: they share the amounts' format (at most two decimals)."""
        try:
            return parse_amount(raw)
        except AmountError:
            self.problem(path, "not_hours")
            return 0

    def boolean(self, raw: object, path: str) -> bool:
        if not isinstance(raw, bool):
            self.problem(path, "not_a_boolean")
            return False
        return raw


def _missing() -> Any:
    return None


def has_control_characters(text: str) -> bool:
    return not _CONTROL_CHARACTERS.isdisjoint(text)


def parse_quote_request(raw: object) -> QuoteRequest:
    """Validate a `jobgrant quote` document; raise InvalidRequestError listing every problem."""
    r = _Reader()
    top = r.obj(
        raw,
        "",
        {"jurisdiction", "application_date", "employers", "training", "trainees"},
        {"policy", "region", "delivery"},
    )
    jurisdiction = r.field(top, "jurisdiction", "", _jurisdiction(r)) or ""
    training = _training(r, top.get("training"))
    employers = _employers(r, top.get("employers")) if "employers" in top else ()
    # A missing list is already reported as required; `null` is a list that is not one.
    trainees = _trainees(r, top["trainees"], {e.id for e in employers}) if "trainees" in top else ()
    request = QuoteRequest(
        policy=r.field(top, "policy", "", r.text),
        jurisdiction=jurisdiction,
        region=r.field(top, "region", "", _region(r, jurisdiction)),
        delivery=r.field(top, "delivery", "", _delivery(r)),
        application_date=r.field(top, "application_date", "", r.date),
        employers=employers,
        trainees=trainees,
        **training,
    )
    if r.problems:
        raise InvalidRequestError(r.problems)
    return request


def _jurisdiction(r: _Reader) -> Callable[[object, str], str]:
    return lambda raw, path: r.choice(raw, path, JURISDICTION_CODES, "unknown_jurisdiction")


def _delivery(r: _Reader) -> Callable[[object, str], str]:
    return lambda raw, path: r.choice(raw, path, DELIVERIES[:2])


def _region(r: _Reader, jurisdiction: str) -> Callable[[object, str], str | None]:
    def parse(raw: object, path: str) -> str | None:
        if raw is None:
            return None
        code = str(raw) if isinstance(raw, str | int) and not isinstance(raw, bool) else ""
        region = economic_regions().get(code)
        if region is None or (jurisdiction and region.jurisdiction != jurisdiction):
            r.problem(path, "unknown_region", f"{code or raw!r}")
            return None
        return code

    return parse


def _training(r: _Reader, raw: object) -> dict[str, Any]:
    keys = {"setting", "start_date", "end_date", "hours", "provider"}
    training = r.obj(raw, "training", keys, {"course"}) if raw is not None else {}
    provider = r.obj(training.get("provider"), "training.provider", {"name", "third_party"}, set())
    if "provider" not in training:
        provider = {}
    start = r.field(training, "start_date", "training", r.date)
    end = r.field(training, "end_date", "training", r.date)
    # Compared only when both were read as dates: a date that is not one is already named, and
    # the value read in its place (dt.date.min) is also a real date, year 1's first day.
    if start and end and not r.named("training.start_date", "training.end_date") and end < start:
        r.problem("training.end_date", "end_before_start")
    return {
        "start_date": start,
        "end_date": end,
        "hours": r.field(training, "hours", "training", r.hours),
        "setting": r.field(training, "setting", "training", lambda v, p: r.choice(v, p, SETTINGS)),
        "provider_name": r.field(provider, "name", "training.provider", r.course),
        "course": r.field(training, "course", "training", r.course) or "",
        "third_party": r.field(provider, "third_party", "training.provider", r.boolean),
    }


def _employers(r: _Reader, raw: object) -> tuple[EmployerInput, ...]:
    if not isinstance(raw, list):
        r.problem("employers", "not_a_list")
        return ()
    if not raw:
        r.problem("employers", "empty_list")
    employers, seen = [], set()
    for i, item in enumerate(raw):
        path = f"employers[{i}]"
        fields = r.obj(item, path, {"id", "employees"}, {"approved_this_fiscal_year"})
        employer_id = r.field(fields, "id", path, r.text) or ""
        if len(employer_id) > EMPLOYER_ID_MAX:
            r.problem(f"{path}.id", "id_too_long")
        if employer_id in seen:
            r.problem(f"{path}.id", "duplicate_employer")
        seen.add(employer_id)
        approved = fields.get("approved_this_fiscal_year", "0.00")
        employers.append(
            EmployerInput(
                id=employer_id,
                employees=r.field(fields, "employees", path, r.count) or 0,
                approved_this_fiscal_year=r.amount(approved, f"{path}.approved_this_fiscal_year"),
            )
        )
    return tuple(employers)


def _trainees(r: _Reader, raw: object, employer_ids: set[str]) -> tuple[TraineeInput, ...]:
    if not isinstance(raw, list):
        r.problem("trainees", "not_a_list")
        return ()
    if not raw:
        r.problem("trainees", "empty_list")
    return tuple(_trainee(r, item, f"trainees[{i}]", employer_ids) for i, item in enumerate(raw))


def _trainee(r: _Reader, raw: object, path: str, employer_ids: set[str]) -> TraineeInput:
    usual = _well_formed_trainee(raw, employer_ids)
    return usual if usual is not None else _checked_trainee(r, raw, path, employer_ids)


_TRAINEE_REQUIRED = frozenset({"employer_id", "status", "costs"})
_TRAINEE_OPTIONAL = frozenset({"wages_in_kind"})
_TRAINEE_FIELDS = _TRAINEE_REQUIRED | _TRAINEE_OPTIONAL
_COST_KEYS = frozenset(COST_CATEGORIES)


def _well_formed_trainee(raw: object, employer_ids: set[str]) -> TraineeInput | None:
    """A trainee with nothing wrong, read without building the path of each field (a request
    can hold tens of thousands); None at the first doubt, and _checked_trainee then names every
    problem. It accepts nothing _checked_trainee would refuse."""
    if type(raw) is not dict or not _TRAINEE_REQUIRED <= raw.keys() <= _TRAINEE_FIELDS:
        return None
    employer_id, status, costs = raw["employer_id"], raw["status"], raw["costs"]
    if type(employer_id) is not str or employer_id not in employer_ids:  # ids are stripped
        return None
    if type(status) is not str or status not in STATUSES:
        return None
    if type(costs) is not dict or costs.keys() != _COST_KEYS:
        return None
    try:
        amounts = [parse_amount(costs[category]) for category in COST_CATEGORIES]
        wages = parse_amount(raw.get("wages_in_kind", "0.00"))
    except AmountError:
        return None
    return TraineeInput(
        employer_id, status, (amounts[0], amounts[1], amounts[2], amounts[3]), wages
    )


def _checked_trainee(r: _Reader, raw: object, path: str, employer_ids: set[str]) -> TraineeInput:
    fields = r.obj(raw, path, _TRAINEE_REQUIRED, _TRAINEE_OPTIONAL)
    employer_id = r.field(fields, "employer_id", path, r.text) or ""
    if employer_id and employer_id not in employer_ids:
        r.problem(f"{path}.employer_id", "unknown_employer")
    costs_path = f"{path}.costs"
    costs = r.obj(fields.get("costs"), costs_path, _COST_KEYS, frozenset())
    if "costs" not in fields:
        costs = {}
    amounts = tuple(r.field(costs, key, costs_path, r.amount) or 0 for key in COST_CATEGORIES)
    return TraineeInput(
        employer_id=employer_id,
        status=r.field(fields, "status", path, lambda v, p: r.choice(v, p, STATUSES)) or "",
        costs=(amounts[0], amounts[1], amounts[2], amounts[3]),
        wages_in_kind=r.amount(fields.get("wages_in_kind", "0.00"), f"{path}.wages_in_kind"),
    )


def build_batch(requests: list[QuoteRequest]) -> tuple[QuoteBatch, list[list[int]]]:
    """Columns for the kernel, in one linear pass; also each request's trainee rows in input order.

    Trainees are regrouped by employer (the kernel sums per employer over contiguous rows); the
    returned row lists map each input trainee back to its row.
    """
    regions = {code: i for i, code in enumerate(region_codes())}
    employer_offsets, trainee_offsets = [0], [0]
    employer_cols: dict[str, list[int]] = {"employees": [], "approved": [], "application": []}
    trainee_rows: list[TraineeInput] = []
    trainee_app: list[int] = []
    order: list[list[int]] = []
    for a, request in enumerate(requests):
        by_employer = {e.id: [] for e in request.employers}  # type: dict[str, list[int]]
        for i, trainee in enumerate(request.trainees):
            by_employer[trainee.employer_id].append(i)
        rows = [0] * len(request.trainees)
        for employer in request.employers:
            employer_cols["employees"].append(employer.employees)
            employer_cols["approved"].append(employer.approved_this_fiscal_year)
            employer_cols["application"].append(a)
            for i in by_employer[employer.id]:
                rows[i] = len(trainee_rows)
                trainee_rows.append(request.trainees[i])
                trainee_app.append(a)
            trainee_offsets.append(len(trainee_rows))
        employer_offsets.append(len(employer_cols["employees"]))
        order.append(rows)
    batch = QuoteBatch(
        applications=_application_columns(requests, regions, employer_offsets),
        employers=Employers(
            employees=np.array(employer_cols["employees"], dtype=np.int64),
            approved_this_fiscal_year=np.array(employer_cols["approved"], dtype=np.int64),
            trainee_offsets=np.array(trainee_offsets, dtype=np.int64),
            application=np.array(employer_cols["application"], dtype=np.int32),
        ),
        trainees=_trainee_columns(trainee_rows, trainee_app, trainee_offsets),
    )
    return batch, order


def _application_columns(
    requests: list[QuoteRequest], regions: dict[str, int], employer_offsets: list[int]
) -> Applications:
    def days(values: list[dt.date]) -> np.ndarray:
        return np.array(values, dtype="datetime64[D]")

    return Applications(
        jurisdiction=np.array([JURISDICTION_INDEX[q.jurisdiction] for q in requests], np.int8),
        region=np.array([regions[q.region] if q.region else -1 for q in requests], np.int16),
        delivery=np.array(
            [
                DELIVERIES.index(q.delivery) if q.delivery else POLICY_DEFAULT_DELIVERY
                for q in requests
            ],
            np.int8,
        ),
        application_date=days([q.application_date for q in requests]),
        start_date=days([q.start_date for q in requests]),
        end_date=days([q.end_date for q in requests]),
        hours=np.array([q.hours for q in requests], np.int64),
        third_party=np.array([q.third_party for q in requests], np.bool_),
        setting=np.array([SETTINGS.index(q.setting) for q in requests], np.int8),
        employer_offsets=np.array(employer_offsets, np.int64),
    )


def _trainee_columns(
    rows: list[TraineeInput], applications: list[int], trainee_offsets: list[int]
) -> Trainees:
    costs = np.array([t.costs for t in rows], dtype=np.int64).reshape(len(rows), 4)
    counts = [end - start for start, end in pairwise(trainee_offsets)]
    return Trainees(
        tuition=np.ascontiguousarray(costs[:, 0]),
        student_fees=np.ascontiguousarray(costs[:, 1]),
        materials=np.ascontiguousarray(costs[:, 2]),
        exam_fees=np.ascontiguousarray(costs[:, 3]),
        wages_in_kind=np.array([t.wages_in_kind for t in rows], dtype=np.int64),
        status=np.array([STATUSES.index(t.status) for t in rows], dtype=np.int8),
        employer=np.repeat(np.arange(len(counts), dtype=np.int32), counts),
        application=np.array(applications, dtype=np.int32),
    )
