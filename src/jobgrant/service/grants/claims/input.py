"""A claim's body as the API and the pages send it, checked field by field (nothing written).

    {"is_final": false, "lines": [{"participant": 7, "category": "tuition", "amount": "4500.00"}]}

    approval: {"reason": "...", "lines": [{"id": 31, "amount": "4000.00", "reason": "..."}]}

Every problem names its field (`lines[1].amount`) in English and French.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jobgrant.rules.money import AmountError, parse_amount
from jobgrant.service.choices import CostCategory
from jobgrant.service.errors import ServiceError, bad_input, problem
from jobgrant.service.grants.core.input import ReasonRule, checked_reason
from jobgrant.service.grants.models.participants import Participant, ParticipantState

REASON_MAX = 4000
#: An officer's reason on a claim or one of its lines: the employer reads it.
CLAIM_REASON = ReasonRule(REASON_MAX)
MAX_LINES = 500


@dataclass(frozen=True)
class LineBody:
    participant: Participant
    category: str
    cents: int


@dataclass(frozen=True)
class LineDecision:
    line_id: int
    cents: int
    reason: str


def _list(body: dict[str, Any], key: str, found: list[dict[str, str]]) -> list[Any]:
    entries = body.get(key, [])
    if not isinstance(entries, list):
        found.append(problem(key, "must be a list", "doit être une liste"))
        return []
    if len(entries) > MAX_LINES:
        found.append(
            problem(
                key,
                f"must have at most {MAX_LINES} lines",
                f"doit compter au plus {MAX_LINES} lignes",
            )
        )
        return []
    return entries


def is_final(body: dict[str, Any], default: bool) -> bool:
    value = body.get("is_final", default)
    if not isinstance(value, bool):
        raise bad_input([problem("is_final", "must be true or false", "doit être true ou false")])
    return value


def amount(raw: Any, path: str, found: list[dict[str, str]]) -> int:
    try:
        return parse_amount(raw)
    except AmountError:
        found.append(
            problem(
                path,
                "must be an amount in dollars, zero or more, with at most two decimals",
                "doit être un montant en dollars, zéro ou plus, avec au plus deux décimales",
            )
        )
        return 0


def claim_lines(body: dict[str, Any], application_id: int) -> list[LineBody]:
    """The lines of a claim body, each naming a live trainee slot of the application and a cost
    category once; 422 naming every bad field."""
    found: list[dict[str, str]] = []
    entries = _list(body, "lines", found)
    slots = {
        slot.pk: slot
        for slot in Participant.objects.filter(application_id=application_id).exclude(
            state=ParticipantState.WITHDRAWN
        )
    }
    lines, seen = [], set()
    for i, entry in enumerate(entries):
        path = f"lines[{i}]"
        if not isinstance(entry, dict):
            found.append(problem(path, "must be an object", "doit être un objet"))
            continue
        given = entry.get("participant")
        slot = slots.get(given) if isinstance(given, int) else None
        if slot is None:
            found.append(
                problem(
                    f"{path}.participant",
                    "must be the id of a trainee of this file",
                    "doit être le numéro d'une personne participante de ce dossier",
                )
            )
        category = entry.get("category")
        if category not in CostCategory.values:
            found.append(
                problem(
                    f"{path}.category",
                    "must be one of " + ", ".join(CostCategory.values),
                    "doit être l'une de ces valeurs : " + ", ".join(CostCategory.values),
                )
            )
        cents = amount(entry.get("amount"), f"{path}.amount", found)
        if slot is not None and category in CostCategory.values:
            if (slot.pk, category) in seen:
                found.append(
                    problem(
                        path,
                        "repeats a trainee and category already claimed above",
                        "répète une personne et une catégorie déjà réclamées plus haut",
                    )
                )
            seen.add((slot.pk, category))
            lines.append(LineBody(slot, str(category), cents))
    if found:
        raise bad_input(found)
    return lines


def decisions(body: dict[str, Any], claimed: dict[int, int]) -> list[LineDecision]:
    """The officer's amount per line (`claimed`: line id -> cents claimed); a line left out is
    approved as claimed. An amount above the claim, or lowered without a reason, is refused."""
    found: list[dict[str, str]] = []
    entries = _list(body, "lines", found)
    chosen: dict[int, LineDecision] = {}
    for i, entry in enumerate(entries):
        path = f"lines[{i}]"
        line_id = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(line_id, int) or line_id not in claimed or line_id in chosen:
            found.append(
                problem(
                    f"{path}.id",
                    "must be the id of a line of this claim, once",
                    "doit être le numéro d'une ligne de cette demande, une seule fois",
                )
            )
            continue
        cents = amount(entry.get("amount"), f"{path}.amount", found)
        if cents > claimed[line_id]:
            found.append(
                problem(
                    f"{path}.amount",
                    "must not be more than the amount claimed",
                    "ne doit pas dépasser le montant réclamé",
                )
            )
        try:
            why = checked_reason(
                entry.get("reason"),
                CLAIM_REASON,
                required=cents < claimed[line_id],
                path=f"{path}.reason",
            )
        except ServiceError as error:  # its problems gathered with the others
            found.extend(error.problems)
            why = ""
        chosen[line_id] = LineDecision(line_id, cents, why)
    if found:
        raise bad_input(found)
    return [chosen.get(i) or LineDecision(i, cents, "") for i, cents in claimed.items()]
