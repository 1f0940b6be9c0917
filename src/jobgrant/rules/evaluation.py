"""What the kernel computed for a batch (`Evaluation`), and the reasons it gives.

`evaluate` builds an Evaluation; `trace` and `quote` read one. Keeping the class apart from the
function that computes it lets the trace be imported by `evaluate` without an import cycle.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from jobgrant.rules.batch import I8, I64, SETTINGS, Bool, QuoteBatch
from jobgrant.rules.codes import JURISDICTIONS, fiscal_year
from jobgrant.rules.formulas.key_rules import NO_LIMIT, RuleColumns
from jobgrant.rules.policies import Policy
from jobgrant.rules.reasons import REASONS_BY_CODE, Reason
from jobgrant.rules.table import ParameterTable


@dataclass(frozen=True)
class Totals:
    """Money per row (trainee, employer or application), int64 cents.

    A column the policy makes zero for every row (the provincial share under cjg-2014, wages in
    kind under cjg-2013) is a read-only view of one zero: no memory, nothing to compute.
    The derived columns are properties over whole arrays; `at` gives one row's figures without
    computing a column.
    """

    in_kind: I64
    eligible_cost: I64
    federal: I64
    provincial: I64

    @property
    def direct_cost(self) -> I64:
        if _is_zero_view(self.in_kind):  # no wages in kind: the eligible cost, read-only
            return _read_only(self.eligible_cost)
        result: I64 = self.eligible_cost - self.in_kind
        return result

    @property
    def government(self) -> I64:
        if _is_zero_view(self.provincial):  # no provincial share: the federal, read-only
            return _read_only(self.federal)
        result: I64 = self.federal + self.provincial
        return result

    @property
    def employer(self) -> I64:
        result: I64 = self.eligible_cost - self.federal - self.provincial
        return result

    def at(self, row: int) -> dict[str, int]:
        """Every figure of one row, computed from that row only."""
        in_kind, eligible = int(self.in_kind[row]), int(self.eligible_cost[row])
        federal, provincial = int(self.federal[row]), int(self.provincial[row])
        return {
            "direct_cost": eligible - in_kind,
            "in_kind": in_kind,
            "eligible_cost": eligible,
            "federal": federal,
            "provincial": provincial,
            "employer": eligible - federal - provincial,
            "government": federal + provincial,
        }


def _is_zero_view(column: I64) -> bool:
    return column.strides == (0,) and len(column) > 0 and column[0] == 0


def _read_only(column: I64) -> I64:
    view: I64 = column.view()
    view.setflags(write=False)
    return view


#: The Totals fields that are stored (the others are derived from them), in order.
TOTAL_FIELDS = ("in_kind", "eligible_cost", "federal", "provincial")


@lru_cache(maxsize=8)  # made once per size: a chunked population has one or two sizes
def zeros_view(n: int) -> I64:
    """n zeros that take no memory (read-only)."""
    zeros: I64 = np.broadcast_to(np.int64(0), (n,))
    return zeros


@dataclass(frozen=True)
class Evaluation:
    """Everything the kernel computed for a batch; reasons and traces are built on demand."""

    batch: QuoteBatch
    policy: Policy
    table: ParameterTable
    rules: RuleColumns
    key: I64  # per application
    delivery: I8  # per application
    trainees: Totals
    employers: Totals
    applications: Totals
    unemployed_rule: Bool | None  # per trainee, None when it applies to nobody
    failures: dict[str, Bool]  # reason code -> rows (of its level) where the rule fails
    eligible: Bool  # per application
    traces: list[list[dict[str, object]]] | None = None  # per application, with explain=True

    def application_trainee_offsets(self) -> I64:
        offsets: I64 = self.batch.employers.trainee_offsets[
            self.batch.applications.employer_offsets
        ]
        return offsets

    def fiscal_year(self, application: int) -> str:
        start = self.batch.applications.start_date[application].astype(dt.date)
        return fiscal_year(start)

    def reasons(
        self,
        application: int,
        employer_ids: list[str] | None = None,
        trainee_rows: list[int] | None = None,
    ) -> list[Reason]:
        """Why application `application` is not eligible (empty when it is).

        `employer_ids` names the employers; `trainee_rows[i]` is the row of the request's i-th
        trainee (the batch groups trainees by employer), so reasons cite the request's index.
        """
        return _reasons(self, application, employer_ids, trainee_rows)


def _reasons(
    ev: Evaluation, a: int, employer_ids: list[str] | None, trainee_rows: list[int] | None
) -> list[Reason]:
    apps, employers = ev.batch.applications, ev.batch.employers
    e0, e1 = int(apps.employer_offsets[a]), int(apps.employer_offsets[a + 1])
    t0, t1 = int(employers.trainee_offsets[e0]), int(employers.trainee_offsets[e1])
    reasons: list[Reason] = []
    for code, mask in ev.failures.items():
        reason_type = REASONS_BY_CODE[code]
        if reason_type.level == "application" and mask[a]:
            reasons.append(Reason(reason_type, _application_arguments(ev, a)))
        elif reason_type.level == "employer":
            for e in np.flatnonzero(mask[e0:e1]) + e0:
                name = employer_ids[e - e0] if employer_ids else str(e - e0)
                arguments = _employer_arguments(ev, a, int(e), name)
                reasons.append(Reason(reason_type, arguments, employer=name))
        elif reason_type.level == "trainee":
            index_of_row = {row: i for i, row in enumerate(trainee_rows or range(t0, t1))}
            for row in np.flatnonzero(mask[t0:t1]) + t0:
                index = index_of_row[int(row)]
                reasons.append(Reason(reason_type, {"trainee": index}, trainee=index))
    return reasons


def _application_arguments(ev: Evaluation, a: int) -> dict[str, object]:
    apps, key = ev.batch.applications, int(ev.key[a])
    applied = _day(apps.application_date[a])
    start, end = _day(apps.start_date[a]), _day(apps.end_date[a])
    jurisdiction = JURISDICTIONS[int(apps.jurisdiction[a])]
    setting = SETTINGS[int(apps.setting[a])]
    return {
        "jurisdiction_en": jurisdiction.name_en,
        "jurisdiction_fr": jurisdiction.name_fr,
        "setting_en": {"on-site": "on site", "off-site": "off site", "online": "online"}[setting],
        "setting_fr": {"on-site": "sur place", "off-site": "hors site", "online": "en ligne"}[
            setting
        ],
        "application_date": str(apps.application_date[a]),
        "start_date": str(apps.start_date[a]),
        "lead_days": start - applied,
        "min_lead_days": int(ev.rules["min_lead_days"][key]),
        "max_lead_days": int(ev.rules["max_lead_days"][key]),
        "duration_days": end - start + 1,
        "max_duration_days": int(ev.rules["max_duration_days"][key]),
        "hours": _hours(int(apps.hours[a])),
        "min_hours": _hours(int(ev.rules["min_hours"][key])),
        "cost": ev.applications.at(a)["direct_cost"],
        "minimum": int(ev.rules["minimum_cost"][key]),
    }


def _employer_arguments(ev: Evaluation, a: int, e: int, name: str) -> dict[str, object]:
    key = int(ev.key[a])
    cap = int(ev.rules["employer_cap"][key])
    approved = int(ev.batch.employers.approved_this_fiscal_year[e])
    per_region = bool(ev.rules["cap_per_region"][key])
    return {
        "employer": name,
        "fiscal_year": ev.fiscal_year(a),
        "total": ev.employers.at(e)["government"] + approved,
        "approved": approved,
        "cap": cap if cap < NO_LIMIT else 0,
        "available": max(cap - approved, 0),
        "scope_en": " per region" if per_region else "",
        "scope_fr": " et par région" if per_region else "",
    }


def _day(date: np.datetime64) -> int:
    """Days since 1970."""
    return int(date.astype("datetime64[D]").astype(np.int64))


def _hours(hundredths: int) -> str:
    whole, fraction = divmod(hundredths, 100)
    return f"{whole}" if fraction == 0 else f"{whole}.{fraction:02d}"
