"""bench/kpis.py's data: files, trainees, outcomes, follow-ups, claims, payments, receivables and
ledger legs written on the server by INSERT ... SELECT over generate_series (see bench/kpis.py).

Each table's columns come from its model: the ones given here are SQL expressions over the
generated rows; the others take the model's default (a NULL where the field is nullable, an
empty string where it may be blank), so a migration that adds a column with a default needs no
change here."""

from __future__ import annotations

import json
from typing import Any

from django.db import connection, models

EMPLOYERS = 20_000


def _literal(field: models.Field[Any, Any]) -> str:
    """The SQL of a field's default, for the columns a statement does not name."""
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return "now()"
    if field.has_default():
        default = field.get_default()
        if isinstance(default, bool):
            return "TRUE" if default else "FALSE"
        if isinstance(default, int):
            return str(default)
        if isinstance(default, dict | list):
            return f"'{json.dumps(default)}'::jsonb"
        return "'" + str(default).replace("'", "''") + "'"
    if field.null:
        return "NULL"
    if isinstance(field, models.CharField | models.TextField):
        return "''"
    raise ValueError(f"{field.model.__name__}.{field.name} needs a value")


def insert(model: type[models.Model], values: dict[str, str], source: str) -> int:
    """INSERT INTO model's table SELECT `values` (by attname; the rest defaulted) FROM source."""
    columns, expressions = [], []
    for field in model._meta.concrete_fields:
        if field.primary_key and field.attname not in values:
            continue
        columns.append(f'"{field.column}"')
        expressions.append(values.get(field.attname) or _literal(field))
    sql = (
        f'INSERT INTO "{model._meta.db_table}" ({", ".join(columns)})'
        f" SELECT {', '.join(expressions)} FROM {source}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return int(cursor.rowcount)


def _execute(sql: str, params: list[Any] | None = None) -> None:
    """Run `sql`; with no params, Django passes none to psycopg, so % is PostgreSQL's modulo."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)  # no params: a % is an operator


def generate(
    files: int,
    trainees: int,
    years: tuple[str, ...],
    weights: dict[str, int],
    federal_direct: tuple[str, ...],
) -> None:
    from django.db import transaction

    with transaction.atomic():
        user_id = _reference_rows(years, weights, federal_direct)
        _files(files, trainees, years, weights)
        _applications(user_id)
        _trainees(user_id)
        _money(user_id)
        _fix_sequences()
    _execute("ANALYZE")


def _reference_rows(
    years: tuple[str, ...], weights: dict[str, int], federal_direct: tuple[str, ...]
) -> int:
    """The bench user, programs and streams, budgets, batches and employers."""
    from jobgrant.service.accounts.models import Role, User
    from jobgrant.service.grants.models.applications import Program, Stream
    from jobgrant.service.grants.models.payments import PaymentBatch
    from jobgrant.service.ledger.models import BudgetAccount
    from jobgrant.service.registry.models import Employer

    user = User.objects.create(username="bench-kpis", role=Role.OFFICER, jurisdiction="ON")
    _execute(
        "CREATE TEMP TABLE bench_pool (jur text, fy text, stream_id bigint, delivery text,"
        " batch_id bigint, federal_id bigint, provincial_id bigint)"
    )
    for jurisdiction in weights:
        delivery = "federal-direct" if jurisdiction in federal_direct else "provincial"
        for year in years:
            program = Program.objects.create(
                jurisdiction=jurisdiction, fiscal_year=year, policy="bench", delivery=delivery
            )
            stream = Stream.objects.create(program=program, name_en="CJG", name_fr="SCE")
            batch = PaymentBatch.objects.create(
                jurisdiction=jurisdiction,
                fiscal_year=year,
                built_by=user,
                built_at=user.date_joined,
                state="reconciled",
            )
            accounts = {
                funder: BudgetAccount.objects.create(
                    funder=funder, jurisdiction=jurisdiction, fiscal_year=year
                ).pk
                for funder in ("federal", "provincial")
            }
            _execute(
                "INSERT INTO bench_pool VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [jurisdiction, year, stream.pk, delivery, batch.pk, *accounts.values()],
            )
    insert(
        Employer,
        {
            "id": "e",
            "business_number": "(100000000 + e)::text",
            "name": "'Bench employer ' || e",
            "employees": "1 + e % 1000",
            "jurisdiction": "'ON'",
        },
        f"generate_series(1, {EMPLOYERS}) e",
    )
    return int(user.pk)


def _files(files: int, trainees: int, years: tuple[str, ...], weights: dict[str, int]) -> None:
    """bench_file: one row per file, with what each later statement reads."""
    codes = [code for code, weight in weights.items() for _ in range(weight)]
    jurisdictions = "ARRAY[" + ", ".join(f"'{c}'" for c in codes) + "]"
    n = len(codes)
    fiscal_years = "ARRAY[" + ", ".join(f"'{y}'" for y in years) + "]"
    _execute(
        "CREATE TEMP TABLE bench_file AS SELECT i,"
        f" ({jurisdictions})[1 + (hashtext(i::text)::bigint % {n} + {n}) % {n}] AS jur,"
        f" ({fiscal_years})[1 + i % {len(years)}] AS fy,"
        " 3 + CASE WHEN i % 3 = 0 THEN 1 ELSE 0 END AS t,"
        " i % 20 = 0 AS consortium,"
        " CASE WHEN i % 20 = 1 THEN 'denied' WHEN i % 20 = 2 THEN 'submitted'"
        " WHEN i % 50 = 3 THEN 'draft' ELSE 'approved' END AS state,"
        " DATE '2023-05-01' + (i % 900) AS submitted_on"
        f" FROM generate_series(1, {files}) i"
    )
    _execute("ALTER TABLE bench_file ADD COLUMN approved boolean, ADD COLUMN reported boolean")
    _execute("UPDATE bench_file SET approved = state = 'approved'")
    _execute("UPDATE bench_file SET reported = approved AND i % 5 <> 0")
    _execute("CREATE INDEX ON bench_file (i)")
    _spread_trainees(trainees)


def _spread_trainees(trainees: int) -> None:
    """Exactly `trainees` participant slots: only approved files have slots (a slot is made
    after approval), so the approved files share them, each `base` or `base + 1` (which ones
    get the extra trainee is spread by a hash, not by file number). A file not approved keeps
    the 3 or 4 trainees of its request."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM bench_file WHERE approved")
        approved = int(cursor.fetchone()[0])
    base, extra = divmod(trainees, approved)
    _execute(
        f"UPDATE bench_file f SET t = {base} + CASE WHEN r.n <= {extra} THEN 1 ELSE 0 END"
        " FROM (SELECT i, row_number() OVER (ORDER BY hashtext(i::text), i) AS n"
        " FROM bench_file WHERE approved) r WHERE r.i = f.i"
    )


def _applications(user_id: int) -> None:
    from jobgrant.service.grants.models.agreements import Agreement, AgreementVersion
    from jobgrant.service.grants.models.applications import Application, ApplicationEmployer

    trainees = (
        "jsonb_build_object('trainees', (SELECT jsonb_agg(jsonb_build_object('employer_id',"
        " CASE WHEN f.consortium AND k % 2 = 1 THEN 'e1' ELSE 'e0' END))"
        " FROM generate_series(0, f.t - 1) k))"
    )
    insert(
        Application,
        {
            "id": "f.i",
            "stream_id": "p.stream_id",
            "state": "f.state",
            "jurisdiction": "f.jur",
            "fiscal_year": "f.fy",
            "delivery": "p.delivery",
            "created_by_id": str(user_id),
            "received_on": "f.submitted_on",
            "request": trainees,
            "policy": "'bench'",
            "policy_version": "'bench'",
            "quote": "'{}'::jsonb",
            "explanation": "'{}'::jsonb",
            "eligible": "TRUE",
            "federal_cents": "400000",
            "provincial_cents": "150000",
            "employer_cents": "200000",
        },
        "bench_file f JOIN bench_pool p ON p.jur = f.jur AND p.fy = f.fy",
    )
    sizes = (
        "CASE (f.i * 13) % 10 WHEN 0 THEN 1 + f.i % 49 WHEN 1 THEN 1 + f.i % 49"
        " WHEN 2 THEN 1 + f.i % 49 WHEN 3 THEN 1 + f.i % 49 WHEN 4 THEN 1 + f.i % 49"
        " WHEN 5 THEN 50 + f.i % 50 WHEN 6 THEN 50 + f.i % 50 WHEN 7 THEN 100 + f.i % 400"
        " WHEN 8 THEN 100 + f.i % 400 ELSE 500 + f.i % 2000 END"
    )
    employer = {
        "application_id": "f.i",
        "employer_id": f"1 + f.i % {EMPLOYERS}",
        "reference": "'e0'",
        "position": "0",
        "employees": sizes,
    }
    insert(ApplicationEmployer, employer, "bench_file f")
    consortium = {
        **employer,
        "employer_id": f"1 + (f.i * 7) % {EMPLOYERS}",
        "reference": "'e1'",
        "position": "1",
        "employees": "600 + f.i % 100",
    }
    insert(ApplicationEmployer, consortium, "bench_file f WHERE f.consortium")
    approved = "bench_file f WHERE f.approved"
    insert(
        Agreement,
        {
            "id": "f.i",
            "application_id": "f.i",
            "state": "'active'",
            "issued_at": "f.submitted_on + time '10:00'",
            "issued_by_id": str(user_id),
        },
        approved,
    )
    insert(
        AgreementVersion,
        {
            "id": "f.i",
            "agreement_id": "f.i",
            "number": "1",
            "created_at": "f.submitted_on + time '10:00'",
            "created_by_id": str(user_id),
            "cost_lines": "'[]'::jsonb",
            "trainee_shares": "'[]'::jsonb",
            "schedule": "'{}'::jsonb",
            "eligible_cents": "750000",
            "federal_cents": "400000",
            "provincial_cents": "150000",
            "employer_cents": "200000",
            "policy": "'bench'",
            "policy_version": "'bench'",
            "accept_by": "f.submitted_on + 30 + time '10:00'",
            "participants_by": "f.submitted_on + 30",
            "first_claim_by": "f.submitted_on + 90",
            "completion_report_by": "f.submitted_on + 200",
            "due_date_parameters": "'[]'::jsonb",
            "content_sha256": "repeat('0', 64)",
        },
        approved,
    )


def _trainees(user_id: int) -> None:
    from jobgrant.service.grants.models.completion import CompletionReport, FollowUp, TraineeOutcome
    from jobgrant.service.grants.models.participants import Participant

    def pick(values: list[str], salt: int) -> str:
        return equity_pick(values, salt, "f.i", "k")

    insert(
        Participant,
        {
            "application_id": "f.i",
            "position": "k",
            "state": "CASE WHEN f.reported THEN 'outcome_reported' ELSE 'confirmed' END",
            "email": "'trainee@example.com'",
            "language": "'en'",
            "invited_by_id": str(user_id),
            **{column: pick(values, salt) for column, (values, salt) in EQUITY_ANSWERS.items()},
        },
        "bench_file f CROSS JOIN LATERAL generate_series(0, f.t - 1) k WHERE f.approved",
    )
    insert(
        CompletionReport,
        {
            "id": "f.i",
            "application_id": "f.i",
            "state": "'submitted'",
            "questions_version": "'2023-04-01'",
            "due_on": "f.submitted_on + 200",
            "training_ended_on": "f.submitted_on + 170",
            "submitted_at": "f.submitted_on + 190 + time '10:00'",
        },
        "bench_file f WHERE f.reported",
    )
    reported = 'grants_participant p JOIN bench_file f ON f.i = p."application_id" WHERE f.reported'
    insert(
        TraineeOutcome,
        {
            "report_id": "f.i",
            "participant_id": "p.id",
            "completed": "p.id % 10 < 8",
            "not_completed_reason": "CASE WHEN p.id % 10 < 8 THEN '' ELSE 'dropped-out' END",
            "employed_at_end": "p.id % 10 < 7",
        },
        reported,
    )
    for milestone in (3, 12):
        for respondent, responded, lapsed in (("trainee", 11, 17), ("employer", 14, 20)):
            _follow_ups(FollowUp, reported, milestone, respondent, responded, lapsed)


def equity_pick(values: list[str], salt: int, file: str, position: str) -> str:
    """One of `values` for the trainee at `position` of `file`, by a hash: each question's
    answer independent of the others' (as people's are), so the cells of every combination of
    answers are there, as many as a real year has (a step through the list would tie them)."""
    array = "ARRAY[" + ", ".join(f"'{v}'" for v in values) + "]"
    n = len(values)
    digest = f"hashtext({file} || ':' || {position} || ':{salt}')::bigint"
    return f"({array})[1 + ({digest} % {n} + {n}) % {n}]"


#: The equity questions' answers, each with its salt (bench/kpis.py re-draws a kept database's).
EQUITY_ANSWERS = {
    "gender": (["woman"] * 4 + ["man"] * 4 + ["another", "", "prefer-not-to-say"], 3),
    "indigenous": (["no"] * 7 + ["first-nations", "metis", "prefer-not-to-say"], 5),
    "disability": (["no"] * 7 + ["yes", "yes", ""], 11),
    "visible_minority": (["no"] * 6 + ["yes"] * 3 + ["prefer-not-to-say"], 13),
    "immigration": (["no"] * 6 + ["immigrant", "immigrant", "refugee", ""], 17),
}


def redraw_equity_answers() -> int:
    """Give a kept database's participants the answers the generator now draws."""
    sets = ", ".join(
        f'"{column}" = '
        + equity_pick(values, salt, 'p."application_id"::text', 'p."position"::text')
        for column, (values, salt) in EQUITY_ANSWERS.items()
    )
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE grants_participant p SET {sets}")
        return int(cursor.rowcount)


def _follow_ups(
    model: Any, source: str, milestone: int, respondent: str, responded: int, lapsed: int
) -> None:
    """Rows at `milestone` for `respondent`: responded when h < responded, lapsed when h <
    lapsed, else sent; the latest year's 12-month ones are still due."""
    h = f"((p.id * 7 + {milestone}) % 20)"
    due = f"{milestone} = 12 AND f.fy = (SELECT max(fy) FROM bench_file)"
    state = (
        f"CASE WHEN {due} THEN 'due' WHEN {h} < {responded} THEN 'responded'"
        f" WHEN {h} < {lapsed} THEN 'lapsed' ELSE 'sent' END"
    )
    answered = f"NOT ({due}) AND {h} < {responded}"
    insert(
        model,
        {
            "application_id": "f.i",
            "participant_id": "p.id",
            "milestone": str(milestone),
            "respondent": f"'{respondent}'",
            "state": state,
            "due_on": f"f.submitted_on + 170 + {milestone * 30}",
            "language": "'en'",
            "sent_at": f"CASE WHEN {due} THEN NULL ELSE now() END",
            "responded_at": f"CASE WHEN {answered} THEN now() END",
            "lapsed_at": f"CASE WHEN NOT ({due}) AND {h} >= {responded} AND {h} < {lapsed}"
            " THEN now() END",
            "employed": f"CASE WHEN {answered} THEN (p.id + {milestone}) % 10 < 7 END",
        },
        source,
    )


def _money(user_id: int) -> None:
    from jobgrant.service.grants.models.claims import Claim
    from jobgrant.service.grants.models.payments import PaymentRequest, Receivable
    from jobgrant.service.ledger.models import LedgerTransaction, Posting

    submitted = "f.submitted_on + 120 + time '10:00'"
    insert(
        Claim,
        {
            "id": "f.i",
            "application_id": "f.i",
            "agreement_version_id": "f.i",
            "number": "1",
            "version": "1",
            "is_final": "TRUE",
            "state": "'approved'",
            "created_by_id": str(user_id),
            "submitted_at": submitted,
            "decided_by_id": str(user_id),
            "decided_at": submitted,
            "certified_by_id": str(user_id),
            "certified_at": submitted,
            "claimed_cents": "550000",
            "approved_cents": "550000",
            "caps": "'[]'::jsonb",
            "figures": "'{}'::jsonb",
        },
        "bench_file f WHERE f.approved",
    )
    pools = "bench_file f JOIN bench_pool p ON p.jur = f.jur AND p.fy = f.fy WHERE f.approved"
    for funder, cents in (("federal", 400000), ("provincial", 150000)):
        paid = "f.i % 25 <> 0"
        paid_on = "f.submitted_on + 125 + f.i % 60"
        insert(
            PaymentRequest,
            {
                "batch_id": "p.batch_id",
                "claim_id": "f.i",
                "application_id": "f.i",
                "payee_id": f"1 + f.i % {EMPLOYERS}",
                "account_id": f"p.{funder}_id",
                "funder": f"'{funder}'",
                "document_number": f"'B-{funder[0]}-' || f.i",
                "gross_cents": str(cents),
                "net_cents": str(cents),
                "state": f"CASE WHEN {paid} THEN 'paid' ELSE 'exported' END",
                "paid_on": f"CASE WHEN {paid} THEN {paid_on} END",
                "paid_at": f"CASE WHEN {paid} THEN {paid_on} + time '12:00' END",
            },
            pools,
        )
        _ledger(LedgerTransaction, Posting, funder, cents, pools)
    insert(
        Receivable,
        {
            "application_id": "f.i",
            "debtor_id": f"1 + f.i % {EMPLOYERS}",
            "account_id": "p.provincial_id",
            "funder": "'provincial'",
            "cause": "'not_completed'",
            "reason": "'bench'",
            "amount_cents": "50000",
            "recovered_cents": "20000",
            "state": "'partially_recovered'",
            "raised_by": "'bench'",
            "raised_at": "now()",
            "due_on": "f.submitted_on + 300",
            "due_parameter": "'{}'::jsonb",
        },
        pools + " AND f.i % 33 = 0",
    )


def _ledger(transactions: Any, postings: Any, funder: str, cents: int, pools: str) -> None:
    """commit (everything), claim (3/4 of it) and, for 3 files in 10, release the rest. Ids are
    the file's number times 10 plus the movement's code, so the legs can name them."""
    base = 1 if funder == "federal" else 4
    claimed = cents * 3 // 4
    moves = (
        ("commit", 0, "TRUE", (("available", -cents), ("committed", cents))),
        ("claim", 1, "TRUE", (("committed", -claimed), ("claimed", claimed))),
        (
            "release",
            2,
            "f.i % 10 < 3",
            (("committed", claimed - cents), ("available", cents - claimed)),
        ),
    )
    for kind, offset, condition, legs in moves:
        transaction_id = f"f.i * 10 + {base + offset}"
        insert(
            transactions,
            {
                "id": transaction_id,
                "kind": f"'{kind}'",
                "application_id": "f.i",
                "reference": "''",
                "actor": "'bench'",
            },
            f"{pools} AND {condition}",
        )
        for bucket, amount in legs:
            insert(
                postings,
                {
                    "transaction_id": transaction_id,
                    "account_id": f"p.{funder}_id",
                    "bucket": f"'{bucket}'",
                    "amount_cents": str(amount),
                },
                f"{pools} AND {condition}",
            )


def _fix_sequences() -> None:
    for table in (
        "grants_application",
        "grants_agreement",
        "grants_agreementversion",
        "grants_completionreport",
        "grants_claim",
        "ledger_ledgertransaction",
        "registry_employer",
    ):
        _execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
        )
