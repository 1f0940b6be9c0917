"""The four kinds of change, read from a request body and applied to an agreement's request.

`propose` checks a change body field by field (every problem named, in English and French, at
its path in the body: `start_date`, `add[0].costs.tuition`, `moves[1].amount`) and, when it has
none, returns the agreement's request as it would be after the change and the diff of exactly what
changes. It writes nothing and reads no database: `change_actions` then checks the new request
with the rules kernel's reader (`kernel_problems` maps its paths back to the body's) and quotes it.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from jobgrant.rules.batch import COST_CATEGORIES
from jobgrant.rules.codes import fiscal_year
from jobgrant.rules.money import AmountError, format_amount, parse_amount
from jobgrant.rules.requests import COURSE_MAX, InvalidRequestError, has_control_characters
from jobgrant.service.errors import ServiceError, bad_input, problem
from jobgrant.service.grants.core.evaluation_answers import check_evaluation_answers
from jobgrant.service.grants.models.changes import ChangeKind
from jobgrant.service.language import ENGLISH, FRENCH, long_date

MAX_ENTRIES = 100  # trainees added, removed or replaced, or moves, in one change
PROVIDER_MAX = COURSE_MAX
COMMON_FIELDS = frozenset({"kind", "note"})
#: Each kind's fields: (required, optional), besides `kind` and `note`.
FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    ChangeKind.DATES: (frozenset(), frozenset({"start_date", "end_date"})),
    ChangeKind.PROVIDER: (frozenset({"provider"}), frozenset()),
    ChangeKind.TRAINEES: (frozenset(), frozenset({"add", "remove", "replace"})),
    ChangeKind.COST_REALLOCATION: (frozenset({"moves"}), frozenset()),
}
#: Where a field of the agreement's training is in a change body.
TRAINING_PATHS = {
    "training.start_date": "start_date",
    "training.end_date": "end_date",
    "training.provider.name": "provider.name",
    "training.provider.third_party": "provider.third_party",
    "training.provider": "provider",
}
_TRAINEE_PATH = re.compile(r"^trainees\[(\d+)\](.*)$")


@dataclass(frozen=True)
class Proposal:
    """A change that reads well: the new request, what changes, and where each trainee of the
    new request came from in the body (for the kernel's problems)."""

    kind: str
    body: dict[str, Any]
    diff: list[dict[str, Any]]
    request: dict[str, Any]
    trainee_paths: dict[int, str] = field(default_factory=dict)


class _Problems:
    def __init__(self) -> None:
        self.found: list[dict[str, str]] = []

    def add(self, path: str, en: str, fr: str) -> None:
        self.found.append(problem(path, en, fr))

    def raise_any(self) -> None:
        if self.found:
            raise bad_input(self.found)


def propose(kind: Any, body: Any, current: dict[str, Any], year: str) -> Proposal:
    """The change `body` of `kind` applied to `current` (an agreement's request, in the
    application's shape), in fiscal year `year`; ServiceError(422) naming every problem."""
    problems = _Problems()
    body = _plain(body)
    if not isinstance(body, dict):
        raise bad_input([problem("(body)", "must be a JSON object", "doit être un objet JSON")])
    if not isinstance(kind, str) or kind not in FIELDS:  # an object is not a key: 422, not 500
        choices = ", ".join(FIELDS)
        raise bad_input(
            [problem("kind", f"must be one of {choices}", f"doit être l'un de {choices}")]
        )
    required, optional = FIELDS[kind]
    for key in body:
        if key not in required | optional | COMMON_FIELDS:
            problems.add(key, "is not a known field for this kind", "n'est pas un champ connu ici")
    for key in sorted(required - body.keys()):
        problems.add(key, "is required", "est obligatoire")
    problems.raise_any()
    fields = {key: value for key, value in body.items() if key not in COMMON_FIELDS}
    new = copy.deepcopy(current)
    diff, paths = PROPOSERS[kind](fields, current, new, year, problems)
    problems.raise_any()
    if not diff:
        raise bad_input(
            [problem("(body)", "changes nothing in the agreement", "ne change rien à l'entente")]
        )
    proposal = Proposal(str(kind), fields, diff, new, paths)
    _check_trainee_answers(proposal)
    return proposal


def _check_trainee_answers(proposal: Proposal) -> None:
    """The answers of the trainees the change adds or puts in (baseline, under-represented:
    never read by the kernel) checked as when applying, each named at its path in the body."""
    trainees = proposal.request.get("trainees")
    if not isinstance(trainees, list):
        return
    given = [trainees[i] for i in sorted(proposal.trainee_paths) if i < len(trainees)]
    try:
        check_evaluation_answers({"trainees": given})
    except ServiceError as error:
        positions = sorted(proposal.trainee_paths)
        raise bad_input(
            [
                problem(
                    _given_path(p["field"], positions, proposal), p["message_en"], p["message_fr"]
                )
                for p in error.problems
            ]
        ) from None


def _given_path(path: str, positions: list[int], proposal: Proposal) -> str:
    """`trainees[k]…` of the trainees given (the k-th one added or put in) at its body path."""
    matched = _TRAINEE_PATH.match(path)
    if matched is None or int(matched[1]) >= len(positions):
        return path
    return proposal.trainee_paths[positions[int(matched[1])]] + matched[2]


def _plain(value: Any) -> Any:
    """The body as JSON can store it: amounts read as Decimal (api/bodies.py) become text."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


Proposer = Callable[
    [dict[str, Any], dict[str, Any], dict[str, Any], str, _Problems],
    tuple[list[dict[str, Any]], dict[int, str]],
]


def _change(path: str, before: Any, after: Any, **also: Any) -> dict[str, Any]:
    return {"field": path, "before": before, "after": after, **also}


# --- Dates ------------------------------------------------------------------------------------


def _dates(
    fields: dict[str, Any], current: dict[str, Any], new: dict[str, Any], year: str, p: _Problems
) -> tuple[list[dict[str, Any]], dict[int, str]]:
    if not fields:
        p.add(
            "start_date",
            "give start_date, end_date or both",
            "donnez start_date, end_date ou les deux",
        )
        return [], {}
    training = new["training"]
    first = int(year[:4])
    for name in ("start_date", "end_date"):
        if name not in fields:
            continue
        day = _date(fields[name], name, p)
        if day is None:
            continue
        if fiscal_year(day) != year:
            p.add(
                name,
                f"must fall in fiscal year {year} (April 1, {first} to March 31, {first + 1}), "
                "the year the agreement's money is committed in",
                f"doit tomber dans l'exercice {year} (du 1er avril {first} au 31 mars "
                f"{first + 1}), l'exercice où l'argent de l'entente est engagé",
            )
        training[name] = day.isoformat()
    start, end = training["start_date"], training["end_date"]
    if not p.found and end < start:
        p.add(
            "end_date" if "end_date" in fields else "start_date",
            f"makes the training end ({_words(end, ENGLISH)}) before it starts "
            f"({_words(start, ENGLISH)})",
            f"fait finir la formation ({_words(end, FRENCH)}) avant son début "
            f"({_words(start, FRENCH)})",
        )
    return [
        _change(f"training.{name}", current["training"][name], training[name])
        for name in ("start_date", "end_date")
        if training[name] != current["training"][name]
    ], {}


def _words(iso: str, language: str) -> str:
    """An ISO date of the request as a sentence writes it ("March 26, 2027", "26 mars 2027")."""
    return long_date(dt.date.fromisoformat(iso), language)


def _date(raw: object, path: str, p: _Problems) -> dt.date | None:
    try:
        if isinstance(raw, str) and len(raw) == 10:
            return dt.date.fromisoformat(raw)
    except ValueError:
        pass
    p.add(path, "must be a date written YYYY-MM-DD", "doit être une date écrite AAAA-MM-JJ")
    return None


# --- The training provider -------------------------------------------------------------------


def _provider(
    fields: dict[str, Any], current: dict[str, Any], new: dict[str, Any], year: str, p: _Problems
) -> tuple[list[dict[str, Any]], dict[int, str]]:
    raw = fields["provider"]
    if not isinstance(raw, dict):
        p.add("provider", "must be an object", "doit être un objet")
        return [], {}
    for key in raw:
        if key not in ("name", "third_party"):
            p.add(f"provider.{key}", "is not a known field", "n'est pas un champ connu")
    name, third_party = raw.get("name"), raw.get("third_party")
    if not isinstance(name, str) or not name.strip():
        p.add("provider.name", "must be the provider's name", "doit être le nom du fournisseur")
    elif has_control_characters(name):
        p.add(
            "provider.name",
            "must not contain control characters",
            "ne doit pas contenir de caractères de contrôle",
        )
    elif len(name.strip()) > PROVIDER_MAX:
        p.add(
            "provider.name",
            f"must have at most {PROVIDER_MAX} characters",
            f"doit compter au plus {PROVIDER_MAX} caractères",
        )
    if not isinstance(third_party, bool):
        p.add("provider.third_party", "must be true or false", "doit être true ou false")
    if p.found:
        return [], {}
    assert isinstance(name, str)
    before = current["training"]["provider"]
    after = {"name": name.strip(), "third_party": third_party}
    new["training"]["provider"] = after
    return [
        _change(f"training.provider.{key}", before.get(key), after[key])
        for key in ("name", "third_party")
        if before.get(key) != after[key]
    ], {}


# --- Trainees: add, remove, replace ----------------------------------------------------------


def _trainees(
    fields: dict[str, Any], current: dict[str, Any], new: dict[str, Any], year: str, p: _Problems
) -> tuple[list[dict[str, Any]], dict[int, str]]:
    before: list[Any] = current["trainees"]
    add = _entries(fields, "add", p)
    remove = _entries(fields, "remove", p)
    replace = _entries(fields, "replace", p)
    if not (add or remove or replace) and not p.found:
        p.add(
            "add",
            "give trainees to add, remove or replace",
            "donnez des personnes en formation à ajouter, retirer ou remplacer",
        )
    touched: set[int] = set()
    removed: set[int] = set()
    for i, raw in enumerate(remove):
        index = _index(raw, f"remove[{i}]", len(before), touched, p)
        if index is not None:
            removed.add(index)
    replaced: dict[int, tuple[int, Any]] = {}
    for i, raw in enumerate(replace):
        path = f"replace[{i}]"
        if not isinstance(raw, dict) or set(raw) != {"index", "trainee"}:
            p.add(
                path,
                "must be an object with index and trainee",
                "doit être un objet avec index et trainee",
            )
            continue
        index = _index(raw["index"], f"{path}.index", len(before), touched, p)
        if index is not None:
            if raw["trainee"] == before[index]:
                p.add(
                    f"{path}.trainee",
                    "is the same as the trainee it replaces",
                    "est identique à la personne en formation remplacée",
                )
            replaced[index] = (i, raw["trainee"])
    if len(before) - len(removed) + len(add) < 1 and not p.found:
        p.add(
            "remove",
            "would leave the agreement with no trainee",
            "laisserait l'entente sans personne en formation",
        )
    if p.found:
        return [], {}
    trainees: list[Any] = []
    paths: dict[int, str] = {}
    diff = []
    for index, trainee in enumerate(before):
        if index in removed:
            diff.append(_change(f"trainees[{index}]", trainee, None, change="remove"))
        elif index in replaced:
            i, after = replaced[index]
            paths[len(trainees)] = f"replace[{i}].trainee"
            trainees.append(after)
            diff.append(_change(f"trainees[{index}]", trainee, after, change="replace"))
        else:
            trainees.append(trainee)
    for i, trainee in enumerate(add):
        paths[len(trainees)] = f"add[{i}]"
        trainees.append(trainee)
        diff.append(_change("trainees", None, trainee, change="add"))
    new["trainees"] = trainees
    return diff, paths


def _entries(fields: dict[str, Any], key: str, p: _Problems) -> list[Any]:
    raw = fields.get(key, [])
    if not isinstance(raw, list):
        p.add(key, "must be a list", "doit être une liste")
        return []
    if len(raw) > MAX_ENTRIES:
        p.add(
            key,
            f"must list at most {MAX_ENTRIES} entries",
            f"doit compter au plus {MAX_ENTRIES} éléments",
        )
        return []
    return raw


def _index(raw: object, path: str, count: int, touched: set[int], p: _Problems) -> int | None:
    """A trainee's index (0 for the first) in the agreement, used once in the change."""
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw < count:
        p.add(
            path,
            f"must be the index of one of the agreement's trainees, 0 to {count - 1}",
            f"doit être l'indice d'une des personnes en formation de l'entente, de 0 à {count - 1}",
        )
        return None
    if raw in touched:
        p.add(
            path,
            "names a trainee already changed in this request",
            "nomme une personne en formation déjà changée dans cette demande",
        )
        return None
    touched.add(raw)
    return raw


# --- Moving money between cost lines ---------------------------------------------------------


def _cost_reallocation(
    fields: dict[str, Any], current: dict[str, Any], new: dict[str, Any], year: str, p: _Problems
) -> tuple[list[dict[str, Any]], dict[int, str]]:
    moves = _entries(fields, "moves", p)
    if not moves and not p.found:
        p.add("moves", "must list at least one move", "doit contenir au moins un déplacement")
    trainees = new["trainees"]
    lines = {
        (index, category): parse_amount(trainee["costs"][category])
        for index, trainee in enumerate(trainees)
        for category in COST_CATEGORIES
    }
    original = dict(lines)
    for i, raw in enumerate(moves):
        path = f"moves[{i}]"
        if not isinstance(raw, dict) or set(raw) != {"from", "to", "amount"}:
            p.add(
                path,
                "must be an object with from, to and amount",
                "doit être un objet avec from, to et amount",
            )
            continue
        source = _line(raw["from"], f"{path}.from", len(trainees), p)
        target = _line(raw["to"], f"{path}.to", len(trainees), p)
        cents = _positive_amount(raw["amount"], f"{path}.amount", p)
        if source is None or target is None or cents is None:
            continue
        if source == target:
            p.add(
                f"{path}.to", "must be another line than from", "doit être une autre ligne que from"
            )
        elif lines[source] < cents:
            held = format_amount(lines[source])
            p.add(
                f"{path}.amount",
                f"is more than the line it is taken from holds ({held})",
                f"dépasse ce que contient la ligne d'où il est pris ({held})",
            )
        else:
            lines[source] -= cents
            lines[target] += cents
    if p.found:
        return [], {}
    diff = []
    for (index, category), cents in lines.items():
        if cents != original[(index, category)]:
            trainees[index]["costs"][category] = format_amount(cents)
            diff.append(
                _change(
                    f"trainees[{index}].costs.{category}",
                    format_amount(original[(index, category)]),
                    format_amount(cents),
                )
            )
    return diff, {}


def _line(raw: object, path: str, count: int, p: _Problems) -> tuple[int, str] | None:
    if not isinstance(raw, dict) or set(raw) != {"trainee", "category"}:
        p.add(
            path,
            "must be an object with trainee and category",
            "doit être un objet avec trainee et category",
        )
        return None
    index, category = raw["trainee"], raw["category"]
    ok = True
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
        p.add(
            f"{path}.trainee",
            f"must be the index of one of the agreement's trainees, 0 to {count - 1}",
            f"doit être l'indice d'une des personnes en formation de l'entente, de 0 à {count - 1}",
        )
        ok = False
    if category not in COST_CATEGORIES:
        names = ", ".join(COST_CATEGORIES)
        p.add(f"{path}.category", f"must be one of {names}", f"doit être l'un de {names}")
        ok = False
    return (index, str(category)) if ok else None


def _positive_amount(raw: object, path: str, p: _Problems) -> int | None:
    try:
        cents = parse_amount(raw)
    except AmountError:
        cents = 0
    if cents <= 0:
        p.add(
            path,
            "must be an amount above zero, with at most two decimals",
            "doit être un montant supérieur à zéro, avec au plus deux décimales",
        )
        return None
    return cents


PROPOSERS: dict[str, Proposer] = {
    ChangeKind.DATES: _dates,
    ChangeKind.PROVIDER: _provider,
    ChangeKind.TRAINEES: _trainees,
    ChangeKind.COST_REALLOCATION: _cost_reallocation,
}


def kernel_problems(error: InvalidRequestError, proposal: Proposal) -> ServiceError:
    """The rules kernel's problems with the new request, each at its path in the change body."""
    return bad_input(
        [
            problem(_body_path(found.path, proposal), found.message("en"), found.message("fr"))
            for found in error.problems
        ]
    )


def _body_path(path: str, proposal: Proposal) -> str:
    if path in TRAINING_PATHS:
        return TRAINING_PATHS[path]
    matched = _TRAINEE_PATH.match(path)
    if matched and int(matched[1]) in proposal.trainee_paths:
        return proposal.trainee_paths[int(matched[1])] + matched[2]
    return path
