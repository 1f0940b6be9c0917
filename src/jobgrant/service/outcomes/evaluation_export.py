"""The evaluator's file: one row per person, funded trainees and the comparison group alike,
de-identified and linkable, as CSV.

Nobody is named: no name, SIN, address, e-mail, date of birth or file number. Each person is a
keyed pseudonym, HMAC-SHA256 under the current key of JOBGRANT_EVALUATION_KEYS (a key ring,
`service.key_rings`) of what identifies them: a funded trainee's SIN blind index where the
trainee gave a SIN (so the same person in two files, or in two years' files, has one
pseudonym), else the participant slot; a comparison trainee, the file and position. The same key
gives the same pseudonym in every export (linkable across exports and years); a new key gives
new pseudonyms, and the pseudonym starts with its key's id so an evaluator knows which. Without
the key nobody can go back from a pseudonym to a person, nor test a guessed SIN against it.

What a row holds: group (treated, comparison), the source of a comparison row, jurisdiction,
fiscal year, the employer's firm-size band, the baseline the application gave (employed, wage
band, hours), the counterfactual answers, and the outcomes (completed, employed at the end, at 3
and at 12 months: the trainee's own answer, else the employer's).
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
from collections.abc import Iterator
from functools import cache
from typing import Any

from django.conf import settings

from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.comparison import ComparisonFollowUp
from jobgrant.service.grants.models.completion import FollowUp, TraineeOutcome
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.key_rings import KeyRing, parse_key_ring
from jobgrant.service.outcomes.kpi_sql import FIRM_SIZE_BANDS, TOOK_PART

KEY_ID_MAX = 16
FIELDS = (
    "person",
    "group",
    "source",
    "jurisdiction",
    "fiscal_year",
    "firm_size",
    "baseline_employed",
    "baseline_wage_band",
    "baseline_weekly_hours",
    "counterfactual_application",
    "counterfactual_completion",
    "completed",
    "employed_at_end",
    "employed_3_months",
    "employed_12_months",
)


class NoEvaluationKey(Exception):  # noqa: N818 - the business name of the refusal
    """JOBGRANT_EVALUATION_KEYS is not set: no export."""


@cache
def _ring(text: str) -> KeyRing:
    return parse_key_ring(text, "JOBGRANT_EVALUATION_KEYS", id_max=KEY_ID_MAX)


def current_key() -> tuple[str, bytes]:
    text = str(getattr(settings, "EVALUATION_KEYS", "") or "")
    if not text:
        raise NoEvaluationKey
    ring = _ring(text)
    return ring.current, ring.keys[ring.current]


def pseudonym(identity: str, key: tuple[str, bytes]) -> str:
    """`<key id>-<32 hex digits>`: HMAC-SHA256 of the identity under the key, truncated to 128
    bits (no collision in any population this program has)."""
    key_id, secret = key
    digest = hmac.new(secret, identity.encode(), hashlib.sha256).hexdigest()
    return f"{key_id}-{digest[:32]}"


def rows(fiscal_year: str, key: tuple[str, bytes]) -> Iterator[dict[str, Any]]:
    yield from _treated(fiscal_year, key)
    yield from _comparison(fiscal_year, key)


def csv_text(fiscal_year: str) -> tuple[str, int]:
    """(the CSV, how many people) for one fiscal year; NoEvaluationKey without a key."""
    key = current_key()
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    count = 0
    for row in rows(fiscal_year, key):
        writer.writerow({name: _cell(row.get(name)) for name in FIELDS})
        count += 1
    return buffer.getvalue(), count


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _band(employees: int | None) -> str:
    if employees is None:
        return "unknown"
    for band, low, high in FIRM_SIZE_BANDS:
        if employees >= low and (high is None or employees <= high):
            return band
    return "unknown"


def _file_facts(application: Application, position: int) -> dict[str, Any]:
    """What the application says of the trainee at `position` and of its employer."""
    trainees = application.request.get("trainees") or []
    trainee = trainees[position] if position < len(trainees) else {}
    baseline = trainee.get("baseline") if isinstance(trainee, dict) else None
    baseline = baseline if isinstance(baseline, dict) else {}
    reference = trainee.get("employer_id") if isinstance(trainee, dict) else None
    employers = list(application.employers.all())
    employer = next((e for e in employers if e.reference == reference), None)
    employer = employer or (employers[0] if len(employers) == 1 else None)
    return {
        "jurisdiction": application.jurisdiction,
        "fiscal_year": application.fiscal_year,
        "firm_size": _band(employer.employees if employer else None),
        "baseline_employed": baseline.get("employed"),
        "baseline_wage_band": baseline.get("wage_band"),
        "baseline_weekly_hours": baseline.get("weekly_hours"),
        "counterfactual_application": application.counterfactual,
    }


def _follow_up_answers(fiscal_year: str) -> dict[tuple[int, int], bool]:
    """(participant, milestone): the trainee's answer, else the employer's."""
    found: dict[tuple[int, int], bool] = {}
    answers = (
        FollowUp.objects.filter(application__fiscal_year=fiscal_year, state="responded")
        .order_by("respondent")  # "employer" before "trainee": the trainee's, read last, wins
        .values_list("participant_id", "milestone", "employed")
    )
    for participant, milestone, employed in answers:
        found[(participant, milestone)] = bool(employed)
    return found


def _treated(fiscal_year: str, key: tuple[str, bytes]) -> Iterator[dict[str, Any]]:
    answers = _follow_up_answers(fiscal_year)
    outcomes = {
        o.participant_id: o
        for o in TraineeOutcome.objects.filter(
            report__application__fiscal_year=fiscal_year, report__state="submitted"
        ).select_related("report")
    }
    slots = (
        Participant.objects.filter(application__fiscal_year=fiscal_year, state__in=TOOK_PART)
        .select_related("application")
        .prefetch_related("application__employers")
        .only("id", "position", "sin_index", "application")
        .order_by("application_id", "position")
    )
    for slot in slots:
        outcome = outcomes.get(slot.pk)
        identity = f"sin:{slot.sin_index}" if slot.sin_index else f"participant:{slot.pk}"
        yield {
            "person": pseudonym(identity, key),
            "group": "treated",
            "source": "",
            **_file_facts(slot.application, slot.position),
            "counterfactual_completion": outcome.report.counterfactual if outcome else "",
            "completed": outcome.completed if outcome else None,
            "employed_at_end": outcome.employed_at_end if outcome else None,
            "employed_3_months": answers.get((slot.pk, 3)),
            "employed_12_months": answers.get((slot.pk, 12)),
        }


def _comparison(fiscal_year: str, key: tuple[str, bytes]) -> Iterator[dict[str, Any]]:
    people: dict[tuple[int, int], dict[int, ComparisonFollowUp]] = {}
    for row in (
        ComparisonFollowUp.objects.filter(application__fiscal_year=fiscal_year)
        .select_related("application")
        .prefetch_related("application__employers")
        .order_by("application_id", "position", "milestone")
    ):
        people.setdefault((row.application_id, row.position), {})[row.milestone] = row
    for (application_id, position), by_milestone in people.items():
        first = next(iter(by_milestone.values()))
        yield {
            "person": pseudonym(f"comparison:{application_id}:{position}", key),
            "group": "comparison",
            "source": first.source,
            **_file_facts(first.application, position),
            "counterfactual_completion": "",
            "employed_3_months": _answered(by_milestone.get(3)),
            "employed_12_months": _answered(by_milestone.get(12)),
        }


def _answered(row: ComparisonFollowUp | None) -> bool | None:
    return row.employed if row is not None and row.state == "responded" else None
