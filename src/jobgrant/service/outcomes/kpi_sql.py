"""The SQL aggregates the KPIs are made of: plain statements that run on SQLite and PostgreSQL.

Each query is grouped and returns sums (never one row per person or per file): the participants'
outcomes grouped by jurisdiction, delivery and, where asked, firm size and the equity answers;
the files' money grouped by jurisdiction, delivery and funder; the days from claim to payment as
a histogram (days, claims), from which the average and the median are exact. Python only adds
these sums up (a breakdown's rows and its total come from the same cells).

Only two things differ between the databases, and `_dialect` writes them: reading a trainee's
employer out of the application's stored request (a consortium file), and a difference of dates.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection

from jobgrant.service.grants.models.agreements import Agreement
from jobgrant.service.grants.models.applications import Application, ApplicationEmployer
from jobgrant.service.grants.models.claims import Claim
from jobgrant.service.grants.models.comparison import ComparisonFollowUp
from jobgrant.service.grants.models.completion import CompletionReport, FollowUp, TraineeOutcome
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.grants.models.payments import PaymentRequest, Receivable
from jobgrant.service.ledger.models import BudgetAccount, LedgerTransaction, Posting

#: The participant slots that took part: confirmed, then reported on by the completion report.
TOOK_PART = ("confirmed", "outcome_reported")

#: The equity questions of the participant form, by the column that holds the answer.
EQUITY_COLUMNS = ("gender", "indigenous", "disability", "visible_minority", "immigration")

#: What one group of participants adds up to (the names are the SELECT's columns).
PEOPLE_SUMS = (
    "participants",
    "reported",
    "completed",
    "employed_end",
    "asked_3",
    "answered_3",
    "employed_3",
    "asked_12",
    "answered_12",
    "employed_12",
)


def _table(model: Any) -> str:
    return f'"{model._meta.db_table}"'


def _trainee_employer_sql() -> str:
    """The reference of trainee p's employer: request["trainees"][p.position]["employer_id"]."""
    if connection.vendor == "postgresql":
        return "(a.\"request\" -> 'trainees' -> (p.\"position\")::int ->> 'employer_id')"
    return "json_extract(a.\"request\", '$.trainees[' || p.\"position\" || '].employer_id')"


def local_date_sql(timestamp: str) -> str:
    """A timestamp's date in the service's one zone (settings.TIME_ZONE, Ottawa time), as the
    pages show it: an evening in Ottawa is already the next day in UTC."""
    zone = settings.TIME_ZONE
    if not _ZONE_NAME.fullmatch(zone):  # written into the statement: a zone's name, nothing else
        raise ValueError(f"not a time zone name: {zone!r}")
    if connection.vendor == "postgresql":
        return f"CAST(({timestamp} AT TIME ZONE '{zone}') AS date)"
    # Django's own SQLite function for a datetime's date in a zone (the ORM's TruncDate).
    return f"django_datetime_cast_date({timestamp}, '{zone}', '{connection.timezone_name}')"


_ZONE_NAME = re.compile(r"[A-Za-z0-9_+/-]+")


def days_between_sql(later: str, earlier_timestamp: str) -> str:
    """Whole days from a timestamp's date (in Ottawa time) to a date, never fewer than 0 (a
    payment dated the day of its claim took no day)."""
    earlier = local_date_sql(earlier_timestamp)
    if connection.vendor == "postgresql":
        return f"GREATEST({later} - {earlier}, 0)"
    return f"MAX(CAST(julianday({later}) - julianday({earlier}) AS INTEGER), 0)"


FIRM_SIZE_BANDS = (("1-49", 1, 49), ("50-99", 50, 99), ("100-499", 100, 499), ("500+", 500, None))


def _firm_joins(where: str) -> str:
    """fe: the trainee's own employer as it applied. A file with one employer needs no look-up;
    a consortium's trainee is matched to its employer by reference (the stored request)."""
    return (
        'LEFT JOIN (SELECT "application_id", COUNT(*) AS "employers"'
        f' FROM {_table(ApplicationEmployer)} WHERE "application_id" IN'
        f' (SELECT a."id" FROM {_table(Application)} a WHERE {where})'
        ' GROUP BY "application_id") f ON f."application_id" = p."application_id"'
        f" LEFT JOIN {_table(ApplicationEmployer)} fe"
        ' ON fe."application_id" = p."application_id"'
        f' AND (f."employers" = 1 OR fe."reference" = {_trainee_employer_sql()})'
    )


def firm_band_sql(column: str = 'fe."employees"') -> str:
    """The firm-size band of a column of employees (FIRM_SIZE_BANDS; 'unknown' when not
    recorded): the KPIs' and the burden meter's one definition of a firm's size."""
    whens = "".join(
        f" WHEN {column} <= {high} THEN '{band}'"
        for band, _low, high in FIRM_SIZE_BANDS
        if high is not None
    )
    return f"CASE WHEN {column} IS NULL THEN 'unknown'{whens} ELSE '{FIRM_SIZE_BANDS[-1][0]}' END"


def _scope_sql(jurisdiction: str | None) -> tuple[str, list[Any]]:
    if jurisdiction is None:
        return 'a."fiscal_year" = %s', []
    return 'a."fiscal_year" = %s AND a."jurisdiction" = %s', [jurisdiction]


def _follow_up_sums_sql(where: str) -> str:
    """One row per participant of the scope's files with follow-ups: per milestone m, `asked_m`
    (1 if either respondent's question left "due") and `answer_m`, the answer that counts: the
    trainee's (2 + employed) if the trainee responded, else the employer's (0 + employed), NULL
    if neither responded. One pass over the follow-ups, where four joins (trainee and employer,
    3 and 12 months) each read them again. A follow-up belongs to its participant's file
    (`follow_up_schedule`), so the scope's follow-ups are found by their file."""
    columns = []
    for m in (3, 12):
        columns += [
            f'MAX(CASE WHEN u."milestone" = {m} AND u."state" <> \'due\' THEN 1 ELSE 0 END)'
            f" AS asked_{m}",
            f'MAX(CASE WHEN u."milestone" = {m} AND u."state" = \'responded\' THEN'
            " (CASE WHEN u.\"respondent\" = 'trainee' THEN 2 ELSE 0 END)"
            f' + (CASE WHEN u."employed" THEN 1 ELSE 0 END) END) AS answer_{m}',
        ]
    return (
        f'SELECT u."participant_id", {", ".join(columns)} FROM {_table(FollowUp)} u'
        f' WHERE u."application_id" IN (SELECT a."id" FROM {_table(Application)} a WHERE {where})'
        ' GROUP BY u."participant_id"'
    )


def _outcomes_sql(where: str) -> str:
    """The trainee outcomes of the scope's submitted completion reports (one per participant at
    most; a report is on its trainees' file, `completion_actions`)."""
    return (
        'SELECT o."participant_id", o."completed", o."employed_at_end"'
        f" FROM {_table(TraineeOutcome)} o"
        f' JOIN {_table(CompletionReport)} r ON r."id" = o."report_id"'
        ' WHERE r."state" = \'submitted\' AND r."application_id" IN'
        f' (SELECT a."id" FROM {_table(Application)} a WHERE {where})'
    )


def _people_select() -> str:
    sums = [
        "COUNT(*)",
        'SUM(CASE WHEN o."participant_id" IS NOT NULL THEN 1 ELSE 0 END)',
        'SUM(CASE WHEN o."completed" THEN 1 ELSE 0 END)',
        'SUM(CASE WHEN o."employed_at_end" THEN 1 ELSE 0 END)',
    ]
    for m in (3, 12):
        sums += [
            f"SUM(fu.asked_{m})",
            f"SUM(CASE WHEN fu.answer_{m} IS NOT NULL THEN 1 ELSE 0 END)",
            f"SUM(CASE WHEN fu.answer_{m} IN (1, 3) THEN 1 ELSE 0 END)",
        ]
    return ", ".join(
        f"{expression} AS {name}" for expression, name in zip(sums, PEOPLE_SUMS, strict=True)
    )


def people_groups(
    fiscal_year: str, jurisdiction: str | None, dimensions: Sequence[str]
) -> Iterator[tuple[tuple[str, ...], dict[str, int]]]:
    """The participants of the fiscal year's files, grouped by `dimensions` (any of
    "jurisdiction", "delivery", "firm_size" and EQUITY_COLUMNS): (key, sums) per group."""
    expressions = [_dimension_sql(name) for name in dimensions]
    where, params = _scope_sql(jurisdiction)
    firm_size = "firm_size" in dimensions
    firms = _firm_joins(where) if firm_size else ""
    keys = ", ".join(f"{expression} AS k{i}" for i, expression in enumerate(expressions))
    states = ", ".join(f"'{state}'" for state in TOOK_PART)
    sql = (
        f"SELECT {keys}{', ' if keys else ''}{_people_select()}"
        f" FROM {_table(Participant)} p"
        f' JOIN {_table(Application)} a ON a."id" = p."application_id"'
        f' LEFT JOIN ({_outcomes_sql(where)}) o ON o."participant_id" = p."id"'
        f' LEFT JOIN ({_follow_up_sums_sql(where)}) fu ON fu."participant_id" = p."id"'
        f" {firms}"
        f' WHERE {where} AND p."state" IN ({states})'
    )
    if expressions:
        sql += " GROUP BY " + ", ".join(f"k{i}" for i in range(len(expressions)))
    scope = [fiscal_year, *params]
    for row in _fetch(sql, [*scope, *scope, *(scope if firm_size else []), *scope]):
        key = tuple(str(value or "") for value in row[: len(expressions)])
        sums = dict(zip(PEOPLE_SUMS, (int(v or 0) for v in row[len(expressions) :]), strict=True))
        if sums["participants"]:
            yield key, sums


def _dimension_sql(name: str) -> str:
    if name in ("jurisdiction", "delivery"):
        return f'a."{name}"'
    if name == "firm_size":
        return firm_band_sql()
    if name in EQUITY_COLUMNS:
        return f'p."{name}"'
    raise ValueError(f"no such dimension: {name}")


@dataclass(frozen=True)
class FileGroup:
    """(jurisdiction, delivery): what the files of a group add up to."""

    jurisdiction: str
    delivery: str


def file_counts(fiscal_year: str, jurisdiction: str | None) -> dict[FileGroup, dict[str, int]]:
    """Applications received (every file past draft) and approvals (files with an agreement:
    one is issued on approval, whatever became of it)."""
    where, params = _scope_sql(jurisdiction)
    sql = (
        'SELECT a."jurisdiction", a."delivery",'
        " SUM(CASE WHEN a.\"state\" <> 'draft' THEN 1 ELSE 0 END),"
        ' SUM(CASE WHEN g."id" IS NOT NULL THEN 1 ELSE 0 END)'
        f" FROM {_table(Application)} a"
        f' LEFT JOIN {_table(Agreement)} g ON g."application_id" = a."id"'
        f' WHERE {where} GROUP BY a."jurisdiction", a."delivery"'
    )
    return {
        FileGroup(j, d): {"applications": int(n or 0), "approvals": int(k or 0)}
        for j, d, n, k in _fetch(sql, [fiscal_year, *params])
    }


def money(fiscal_year: str, jurisdiction: str | None) -> dict[FileGroup, dict[str, int]]:
    """Per group and funder: paid (payment requests paid, gross: a set-off netted from a payment
    is money the file received), recovered (repaid or set off against the file's receivables)
    and slippage (committed and never claimed: the file's legs in the ledger's `committed`
    bucket other than releases, that is what is still committed and unclaimed plus what was
    released unclaimed)."""
    where, params = _scope_sql(jurisdiction)
    found: dict[FileGroup, dict[str, int]] = {}
    statements = {
        "paid": (
            f'SELECT a."jurisdiction", a."delivery", x."funder", SUM(x."gross_cents")'
            f" FROM {_table(PaymentRequest)} x"
            f' JOIN {_table(Application)} a ON a."id" = x."application_id"'
            f" WHERE {where} AND x.\"state\" = 'paid'"
            ' GROUP BY a."jurisdiction", a."delivery", x."funder"'
        ),
        "recovered": (
            f'SELECT a."jurisdiction", a."delivery", x."funder", SUM(x."recovered_cents")'
            f" FROM {_table(Receivable)} x"
            f' JOIN {_table(Application)} a ON a."id" = x."application_id"'
            f' WHERE {where} GROUP BY a."jurisdiction", a."delivery", x."funder"'
        ),
        "slippage": (
            f'SELECT a."jurisdiction", a."delivery", b."funder", SUM(x."amount_cents")'
            f" FROM {_table(Posting)} x"
            f' JOIN {_table(LedgerTransaction)} t ON t."id" = x."transaction_id"'
            f' JOIN {_table(Application)} a ON a."id" = t."application_id"'
            f' JOIN {_table(BudgetAccount)} b ON b."id" = x."account_id"'
            f" WHERE {where} AND x.\"bucket\" = 'committed' AND t.\"kind\" <> 'release'"
            ' GROUP BY a."jurisdiction", a."delivery", b."funder"'
        ),
    }
    for measure, sql in statements.items():
        for j, d, funder, cents in _fetch(sql, [fiscal_year, *params]):
            sums = found.setdefault(FileGroup(j, d), {})
            sums[f"{measure}_{funder}"] = sums.get(f"{measure}_{funder}", 0) + int(cents or 0)
    return found


def days_to_payment(fiscal_year: str, jurisdiction: str | None) -> dict[FileGroup, dict[int, int]]:
    """Per group: {days: claims}, for each claim version paid at least once, the days from its
    submission to its first payment paid."""
    where, params = _scope_sql(jurisdiction)
    first_paid = (
        'SELECT a."jurisdiction", a."delivery", c."submitted_at", MIN(x."paid_on") AS "paid_on"'
        f' FROM {_table(Claim)} c JOIN {_table(Application)} a ON a."id" = c."application_id"'
        f' JOIN {_table(PaymentRequest)} x ON x."claim_id" = c."id"'
        f' WHERE {where} AND x."state" = \'paid\' AND c."submitted_at" IS NOT NULL'
        ' GROUP BY c."id", a."jurisdiction", a."delivery", c."submitted_at"'
    )
    days = days_between_sql('y."paid_on"', 'y."submitted_at"')
    sql = (
        f'SELECT y."jurisdiction", y."delivery", {days} AS d, COUNT(*) FROM ({first_paid}) y'
        ' GROUP BY y."jurisdiction", y."delivery", d'
    )
    found: dict[FileGroup, dict[int, int]] = {}
    for j, d, day, claims in _fetch(sql, [fiscal_year, *params]):
        histogram = found.setdefault(FileGroup(j, d), {})
        histogram[int(day)] = histogram.get(int(day), 0) + int(claims)
    return found


#: What the comparison group's questions add up to, per group (prefixed: they sit beside the
#: files' sums): asked (a question sent, whatever became of it), answered, employed, per milestone.
COMPARISON_SUMS = tuple(
    f"comparison_{what}_{m}" for m in (3, 12) for what in ("asked", "answered", "employed")
)


def comparison(fiscal_year: str, jurisdiction: str | None) -> dict[FileGroup, dict[str, int]]:
    """Per group, the comparison group's answers (`grants.ComparisonFollowUp`): one row per
    trainee an unfunded file named, per milestone, so the sums count people."""
    where, params = _scope_sql(jurisdiction)
    columns = []
    for m in (3, 12):
        at = f'c."milestone" = {m}'
        columns += [
            f"SUM(CASE WHEN {at} AND c.\"state\" <> 'due' THEN 1 ELSE 0 END)",
            f"SUM(CASE WHEN {at} AND c.\"state\" = 'responded' THEN 1 ELSE 0 END)",
            f'SUM(CASE WHEN {at} AND c."state" = \'responded\' AND c."employed" THEN 1 ELSE 0 END)',
        ]
    sql = (
        f'SELECT a."jurisdiction", a."delivery", {", ".join(columns)}'
        f" FROM {_table(ComparisonFollowUp)} c"
        f' JOIN {_table(Application)} a ON a."id" = c."application_id"'
        f' WHERE {where} GROUP BY a."jurisdiction", a."delivery"'
    )
    return {
        FileGroup(j, d): dict(zip(COMPARISON_SUMS, (int(v or 0) for v in sums), strict=True))
        for j, d, *sums in _fetch(sql, [fiscal_year, *params])
    }


def counterfactual(fiscal_year: str, jurisdiction: str | None) -> dict[FileGroup, dict[str, int]]:
    """Per group, the participants by their employer's answer to "would this training have
    happened without the grant": at application (`counterfactual_application:<answer>`) and in
    the submitted completion report (`counterfactual_completion:<answer>`); "" is no answer."""
    where, params = _scope_sql(jurisdiction)
    states = ", ".join(f"'{state}'" for state in TOOK_PART)
    sql = (
        'SELECT a."jurisdiction", a."delivery", a."counterfactual",'
        " COALESCE(r.\"counterfactual\", ''), COUNT(*)"
        f" FROM {_table(Participant)} p"
        f' JOIN {_table(Application)} a ON a."id" = p."application_id"'
        f' LEFT JOIN {_table(CompletionReport)} r ON r."application_id" = a."id"'
        " AND r.\"state\" = 'submitted'"
        f' WHERE {where} AND p."state" IN ({states})'
        ' GROUP BY a."jurisdiction", a."delivery", a."counterfactual", r."counterfactual"'
    )
    found: dict[FileGroup, dict[str, int]] = {}
    for j, d, at_application, at_completion, people in _fetch(sql, [fiscal_year, *params]):
        sums = found.setdefault(FileGroup(j, d), {})
        for when, answer in (("application", at_application), ("completion", at_completion)):
            name = f"counterfactual_{when}:{answer or ''}"
            sums[name] = sums.get(name, 0) + int(people)
    return found


def _fetch(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())
