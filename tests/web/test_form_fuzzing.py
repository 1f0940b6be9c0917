"""T7: generated bad bodies to every form, with a valid session and CSRF token.

Each body is invalid by construction (one field at least is made bad: unicode, huge strings,
control characters, bad numbers, dates and business numbers), with fields dropped and unknown
fields added at random. For every form: no server error, the page comes back with its
`<gcds-error-summary>` (HTTP 200, 400 or 422), and not one row is written in any table.

JOBGRANT_FUZZ_EXAMPLES sets the number of bodies per form (default 25; T7 asks for 500 to 2,000:
`JOBGRANT_FUZZ_EXAMPLES=1000 make pytest`).
"""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from axes.utils import reset as axes_reset
from django.apps import apps
from django.db import connection
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.addresses import page_path
from tests.conftest import DECLARATIONS_STEP, TRAINING_STEP
from tests.personas import (
    ANALYST,
    APPLICANT,
    AUDITOR,
    EMPLOYER,
    FINANCE,
    OFFICER,
    PARTNER,
    PROGRAM_MANAGER,
    SECOND_OFFICER,
)

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.demo import DEMO_PASSWORD
from jobgrant.service.demo_support import business_number
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.core.quoting import open_intake
from jobgrant.service.grants.models.applications import Program, Selection
from jobgrant.service.grants.models.burden import FieldErrorShown
from jobgrant.service.registry.models import Employer
from jobgrant.service.web.forms import employer as employer_forms
from jobgrant.service.web.forms.employer_apply import AMOUNTS
from jobgrant.service.web.views.employer_apply import DRAFT_KEY

EXAMPLES = int(os.environ.get("JOBGRANT_FUZZ_EXAMPLES", "25"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES <= 25,  # the short default run is the same every time
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# --- Values -------------------------------------------------------------------------------------

NASTY = [
    "",
    " ",
    "\x00",
    "\t\n",
    "\u202e",
    "\ufeff",
    "0",
    "-0",
    "-1",
    "NaN",
    "Infinity",
    "1e9",
    "0x10",
    "1_000",
    "١٢٣",
    "²",
    "Ⅻ",
    "1,2,3",
    "1.2.3",
    "99999999999999999999999999",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "{{ 7*7 }}",
    "%(number)s",
    "../../etc/passwd",
    "😀" * 10,
    "é" * 3000,
    "x" * 100_000,
]
TEXT = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=300),
    st.sampled_from(NASTY),
)
BAD_AMOUNTS = [
    "-1",
    "-0.01",
    "abc",
    "1.234",
    "0.001",
    "1e3",
    "NaN",
    "Infinity",
    "1,2,3",
    "1.2.3",
    "--5",
    "$$",
    "99999999999999999999",
    "12 34 56,78,9",
    "5%",
    "½",
    "1/2",
    "\x00",
    "9" * 400,
]
BAD_DATES = [
    "2027-02-30",
    "2027-13-01",
    "2027-00-10",
    "0000-01-01",
    "tomorrow",
    "11/01/2027",
    "2027-1-1",
    "2027/01/11",
    "20270111",
    "2027-01-11T00:00",
    "２０２７-０１-１１",
    "\x00",
    "2027-01-11" * 50,
]
#: Dates no locale reads (Django's date fields also take 11/01/2027 or 2027-1-1, which are dates).
NO_DATES = ["2027-02-30", "2027-13-01", "tomorrow", "20270111", "2027-01-11T00:00", "０-０", "\x00"]
BAD_BUSINESS_NUMBERS = [
    "12345678",
    "1234567890",
    "abcdefghi",
    "12345678A",
    "123-45-678",
    "１２３４５６７８２",
    business_number("30000000"),  # a valid number, but no registered employer has it
    "\x00",
    "9" * 400,
]


MISSING = "\x00missing\x00"  # in an invalid core: the field is left out of the body


def bad(values: list[str]) -> st.SearchStrategy[str]:
    return st.sampled_from(values)


# --- Forms --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Form:
    """A form: where it posts, as whom, the fields it knows, and how to make a body invalid."""

    name: str
    url: Callable[[dict[str, Any]], str]
    user: str | None
    fields: tuple[str, ...]
    invalid: st.SearchStrategy[dict[str, str]]
    method: str = "post"
    page: Callable[[dict[str, Any]], str] | None = None  # where the CSRF cookie comes from
    draft: bool = False  # the employer's application draft is reset before each body
    statuses: tuple[int, ...] = (200, 400, 422)
    marker: str = "<gcds-error-summary"
    never: tuple[str, ...] = field(default=())  # keys whose presence changes the form's meaning


def one_bad(choices: dict[str, st.SearchStrategy[str]], **fixed: str) -> Any:
    """A body whose field `key` (one of `choices`) holds a bad value; `fixed` fields as given."""
    return st.sampled_from(sorted(choices)).flatmap(
        lambda key: choices[key].map(lambda value: {**fixed, key: value})
    )


def not_the_password() -> st.SearchStrategy[str]:
    return TEXT.filter(lambda text: text != DEMO_PASSWORD)


TRAINING_BAD = {
    "course": bad(["", "   ", "x" * 201, "\x00", "CNC\tmachining"]),
    "setting": bad(["", "outer-space", "ON-SITE", "\x00", "on-site " * 40]),
    "start_date": bad(BAD_DATES),
    "end_date": bad([*BAD_DATES, "2027-01-10"]),  # the day before the start
    "hours": bad([*BAD_AMOUNTS, "0", "0.00"]),
    "provider_name": bad(["", "   ", "x" * 201, "\x00"]),
    "third_party": bad(["", "maybe", "YES", "\x00", "oui"]),
}
AMOUNT_KEYS = [f"trainee-0-{part}" for part in AMOUNTS]
TRAINEES_BAD = {
    "trainee-0-employer": bad(["", "000000000", *BAD_BUSINESS_NUMBERS]),
    "trainee-0-status": bad(["", "retired", "\x00", "new-hire " * 30]),
    **{key: bad(BAD_AMOUNTS) for key in AMOUNT_KEYS},
}
DECLARATIONS_BAD = {
    "provider_public_institution": bad(["", "maybe", "\x00"]),
    "provider_postal_code": bad(["", "12345", "\x00", "K1A 0B1 " * 20]),
    "provider_phone": bad(["", "555-0100", "\x00", "1" * 40]),
    "prepared_by": bad(["", "a friend", "EMPLOYER", "\x00"]),
    "preparer_fee": bad(BAD_AMOUNTS),
    "trainer_name": bad(["", "   ", "x" * 201, "\x00"]),
    "employer_attests_no_conflict": bad(["", "no", "oui", "\x00"]),
}
NOTE_MAX = employer_forms.NOTE_MAX
TOO_LONG_NOTE = st.integers(NOTE_MAX + 1, NOTE_MAX * 20).map(lambda n: "é" * n)
DECISION_NOTE = st.one_of(
    st.integers(4001, 20_000).map(lambda n: "n" * n), st.just("a\x00b"), st.just("\x00")
)

FORMS: tuple[Form, ...] = (
    Form(
        "sign-in",
        lambda _made: "/sign-in/",
        None,
        ("username", "password", "next"),
        st.fixed_dictionaries({"username": TEXT, "password": not_the_password()})
        | st.fixed_dictionaries({"username": st.just(EMPLOYER.username), "password": TEXT}).filter(
            lambda body: body["password"] != DEMO_PASSWORD
        )
        | st.just({}),
    ),
    Form(
        "employer: organizations",
        lambda _made: "/employer/apply/organizations/",
        EMPLOYER.username,
        ("lead", "partner-TOTAL_FORMS", "partner-0", "partner-1", "partner-2", "action"),
        one_bad(
            {
                "lead": bad(["", "0", "-1", "999999", "1.0", "\x00", "１", "1 OR 1=1"])
                | st.builds(lambda made: str(made), st.just("{outsider}")),
                "partner-0": bad(BAD_BUSINESS_NUMBERS),
            },
            action="next",
        ),
        draft=True,
        never=("remove-partner",),
    ),
    Form(
        "employer: training",
        lambda _made: "/employer/apply/training/",
        EMPLOYER.username,
        (
            "course",
            "setting",
            "start_date",
            "end_date",
            "hours",
            "provider_name",
            "third_party",
            "action",
        ),
        one_bad(TRAINING_BAD, action="next"),
        draft=True,
    ),
    Form(
        "employer: trainees and costs",
        lambda _made: "/employer/apply/trainees/",
        EMPLOYER.username,
        ("trainee-TOTAL_FORMS", "trainee-0-employer", "trainee-0-status", *AMOUNT_KEYS, "action"),
        st.sampled_from(["next", "calculate"]).flatmap(
            lambda action: one_bad(TRAINEES_BAD, action=action, **{"trainee-TOTAL_FORMS": "1"})
        ),
        draft=True,
        never=("remove-trainee",),
    ),
    Form(
        "employer: declarations",
        lambda _made: "/employer/apply/declarations/",
        EMPLOYER.username,
        (*DECLARATIONS_STEP, "action"),
        one_bad(DECLARATIONS_BAD, action="next"),
        draft=True,
    ),
    Form(
        "employer: review and submit",
        lambda _made: "/employer/apply/review/",
        EMPLOYER.username,
        ("confirm", "action"),
        st.fixed_dictionaries(
            {"confirm": TEXT.filter(lambda text: text != "yes"), "action": st.just("submit")}
        ),
        draft=True,
    ),
    Form(
        "employer: withdraw",
        lambda made: f"/employer/applications/{made['submitted']}/withdraw/",
        EMPLOYER.username,
        ("note",),
        st.fixed_dictionaries({"note": TOO_LONG_NOTE}),
    ),
    Form(
        "officer: recommend or approve",
        lambda made: f"/officer/applications/{made['submitted']}/decision/",
        SECOND_OFFICER.username,
        ("action", "note", "reason"),
        st.fixed_dictionaries(
            {"action": st.sampled_from(["recommend", "approve"]), "note": DECISION_NOTE}
        ),
        page=lambda made: f"/officer/applications/{made['submitted']}/",
    ),
    Form(
        "officer: deny",
        lambda made: f"/officer/applications/{made['submitted']}/decision/",
        SECOND_OFFICER.username,
        ("action", "note", "reason"),
        st.fixed_dictionaries(
            {
                "action": st.just("deny"),
                "reason": bad(["", " ", "\t\n ", "\x00"]) | DECISION_NOTE,
            }
        )
        | st.just({"action": "deny", "reason": MISSING}),
        page=lambda made: f"/officer/applications/{made['submitted']}/",
    ),
    Form(
        "officer: no decision named",
        lambda made: f"/officer/applications/{made['submitted']}/decision/",
        SECOND_OFFICER.username,
        ("action", "note", "reason"),
        st.fixed_dictionaries(
            {"action": TEXT.filter(lambda text: text not in ("recommend", "approve", "deny"))}
        )
        | st.just({}),
        page=lambda made: f"/officer/applications/{made['submitted']}/",
        statuses=(400,),
        marker='id="refusal"',
    ),
    Form(
        "officer: queue filter",
        lambda _made: "/officer/",
        OFFICER.username,
        ("state", "jurisdiction", "stream", "age", "sort", "page"),
        one_bad(
            {
                "state": bad(["nonsense", "draft", "\x00", "x" * 5000]),
                "jurisdiction": bad(["QC", "XX", "on", "\x00"]),  # QC: not this officer's
                "age": bad(["5", "-7", "seven", "1e3", "\x00"]),
                "sort": bad(["password", "-", "--id", "id;drop", "\x00"]),
            }
        ),
        method="get",
    ),
    Form(
        "finance: budgets filter",
        lambda _made: "/finance/budgets/",
        FINANCE.username,
        ("fiscal_year", "jurisdiction", "funder", "stream"),
        one_bad(
            {
                "fiscal_year": bad(["1999-00", "2026", "2026-28", "\x00", "x" * 5000]),
                "jurisdiction": bad(["XX", "on", "\x00"]),
                "funder": bad(["nobody", "FEDERAL", "\x00"]),
            }
        ),
        method="get",
    ),
    Form(
        "finance: budgets CSV",
        lambda _made: "/finance/budgets.csv",
        FINANCE.username,
        ("fiscal_year", "jurisdiction", "funder", "stream"),
        one_bad({"fiscal_year": bad(["1999-00", "\x00"]), "funder": bad(["nobody"])}),
        method="get",
        page=lambda _made: "/finance/budgets/",
    ),
    Form(
        "analyst: scenario form",
        lambda _made: "/analyst/scenarios/",
        ANALYST.username,
        ("policy", "scenario", "fiscal_year"),
        one_bad(
            {
                "policy": bad(["nonsense", "../cjg-2013", "\x00", "x" * 5000]),
                "scenario": bad(["nonsense", "../../etc/passwd", "\x00"]),
                "fiscal_year": bad(["1900-01", "2026", "\x00"]),
            }
        ),
        method="get",
    ),
    Form(
        "program manager: new intake",
        lambda made: f"/programs/streams/{made['ranked_stream']}/intakes/new/",
        PROGRAM_MANAGER.username,
        ("name_en", "name_fr", "opens_on", "closes_on", "federal_budget", "provincial_budget"),
        one_bad(
            {
                "name_en": bad(["", "   ", "x" * 201, "a\x00b"]),
                "opens_on": bad([*BAD_DATES, "2020-04-01"]),  # in the past
                "closes_on": bad([*BAD_DATES, "2099-03-31"]),  # outside the fiscal year
                "federal_budget": bad([*BAD_AMOUNTS, "999999999999.00"]),
            },
            name_fr="Appel d'hiver",
        ),
    ),
    Form(
        "program manager: close an intake",
        lambda made: f"/programs/intakes/{made['open_intake']}/close/",
        PROGRAM_MANAGER.username,
        ("reason",),
        one_bad({"reason": bad(["", "   ", "x" * 2001, "a\x00b", "046 454 286"])}),
    ),
    Form(
        "auditor: trail filter",
        lambda _made: "/auditor/trail/",
        AUDITOR.username,
        ("actor", "action", "object_type", "object_id", "sequence", "since", "until"),
        one_bad(
            {
                "actor": st.integers(151, 5000).map(lambda n: "a" * n),
                "action": bad(["nonsense", "\x00"]),
                "object_type": bad(["nonsense", "\x00"]),
                "object_id": st.integers(65, 5000).map(lambda n: "9" * n),
                "sequence": bad(["first", "-1", "1.5", "9" * 400, "\x00"]),
                "since": bad(NO_DATES),
                "until": bad(NO_DATES),
            }
        ),
        method="get",
    ),
)


def noise(form: Form) -> st.SearchStrategy[dict[str, str]]:
    """Known fields with any value, and unknown fields."""
    known = st.sampled_from([*form.fields, "csrfmiddlewaretoken-x", "action", "extra"])
    return st.dictionaries(known | st.text(min_size=1, max_size=20), TEXT, max_size=6)


@st.composite
def bodies(draw: st.DrawFn, form: Form) -> dict[str, str]:
    body = draw(noise(form))
    core = draw(form.invalid)
    for key in draw(st.lists(st.sampled_from(form.fields), max_size=3)):
        if key not in core:
            body.pop(key, None)  # a field missing
    body.update(core)
    for key in form.never:
        body.pop(key, None)
    return {key: value for key, value in body.items() if value != MISSING}


# --- Set-up, and what must not change -----------------------------------------------------------


def row_counts() -> dict[str, int]:
    """The number of rows of every table of the project, but the lockout's count of failed
    sign-ins (django-axes): counting a wrong password is what it is for. One statement: a
    count per table through the ORM (about 70) was half of this test's CPU."""
    with connection.cursor() as cursor:
        cursor.execute(_row_counts_sql())
        return dict(cursor.fetchall())


@functools.cache
def _row_counts_sql() -> str:
    quote = connection.ops.quote_name
    audit = AuditEntry._meta.db_table
    tables = {
        model._meta.db_table for model in apps.get_models() if model._meta.app_label != "axes"
    }
    # So is each error a refused form shows an employer (the burden meter, ADR 0046): its form,
    # field and code, nothing typed.
    tables -= {FieldErrorShown._meta.db_table, audit}
    counts = [f"SELECT '{table}', COUNT(*) FROM {quote(table)}" for table in sorted(tables)]
    # A wrong password is recorded too (ADR 0027): that is what it is for, as axes' count.
    counts.append(
        f"SELECT '{audit}', COUNT(*) FROM {quote(audit)} WHERE SUBSTR(action, 1, 5) <> 'auth.'"
    )
    return " UNION ALL ".join(counts)


def valid_draft() -> dict[str, Any]:
    acme = APPLICANT.get()
    lakeshore = PARTNER.get()
    return {
        "organizations": {"lead": str(acme.pk), "partners": [lakeshore.business_number]},
        "training": dict(TRAINING_STEP),
        "trainees": [
            {
                "employer": acme.business_number,
                "status": "existing-employee",
                "tuition": "9000",
                "student_fees": "",
                "materials": "",
                "exam_fees": "",
                "wages_in_kind": "",
            }
        ],
        "declarations": dict(DECLARATIONS_STEP),
    }


@pytest.fixture
def made(demo: None, make_body: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    employer = EMPLOYER.get()
    application = actions.create_application(employer, make_body())
    actions.submit_application(employer, application)
    outsider = Employer.objects.create(
        business_number=business_number("40000000"),
        name="Outsider Ltd",
        employees=5,
        naics="332710",
        jurisdiction="ON",
        region="3550",
    )
    program = Program.objects.filter(jurisdiction="ON").order_by("-fiscal_year")[0]
    ranked = program.streams.get(selection=Selection.RANKED)
    current = open_intake(program, timezone.localdate())
    assert current is not None
    return {
        "submitted": application.pk,
        "outsider": outsider.pk,
        "ranked_stream": ranked.pk,
        "open_intake": current.pk,
    }


def signed_in(username: str | None) -> Client:
    client = Client(enforce_csrf_checks=True)
    if username:
        client.force_login(User.objects.get(username=username))
    return client


def csrf_token(client: Client, page: str) -> str:
    response = client.get(page)
    assert response.status_code == 200, f"{page}: {response.status_code}"
    return str(client.cookies["csrftoken"].value)


@pytest.mark.parametrize("form", FORMS, ids=lambda form: form.name)
def test_bad_bodies_never_fail_always_explain_and_write_nothing(
    made: dict[str, Any], form: Form
) -> None:
    client = signed_in(form.user)
    user = User.objects.get(username=form.user) if form.draft else None
    draft = actions.save_form_draft(user, None, "organizations", {}) if user else None
    if draft is not None:
        for step, typed in valid_draft().items():
            draft = actions.save_form_draft(user, draft, step, typed)
        session = client.session
        session[DRAFT_KEY] = draft.pk
        session.save()
    token = {
        lang: csrf_token(client, page_path(lang, (form.page or form.url)(made)))
        for lang in ("en", "fr")
    }
    statuses: Counter[int] = Counter()

    @FUZZ
    @given(body=bodies(form), lang=st.sampled_from(["en", "fr"]))
    def post(body: dict[str, str], lang: str) -> None:
        body = {k: v.replace("{outsider}", str(made["outsider"])) for k, v in body.items()}
        if draft is not None:  # the draft is opened again, as it was
            draft.refresh_from_db()
            session = client.session
            session[DRAFT_KEY] = draft.pk
            session.save()
        url = page_path(lang, form.url(made))
        if form.name == "sign-in":  # each body meets the form, not the lockout (test_lockout.py)
            axes_reset()
        before = row_counts()
        if form.method == "get":
            response = client.get(url, body)
        else:
            response = client.post(url, {**body, "csrfmiddlewaretoken": token[lang]})
        statuses[response.status_code] += 1
        assert response.status_code in form.statuses, (response.status_code, body)
        assert form.marker in response.content.decode(), (
            f"{form.name}: no {form.marker} in the answer to {body!r}"
        )
        after = row_counts()
        assert after == before, {t: (before[t], after[t]) for t in after if after[t] != before[t]}

    post()
    bodies_sent = sum(statuses.values())
    assert bodies_sent >= min(EXAMPLES, 10)
    if os.environ.get("JOBGRANT_E2E_REPORT"):  # the figures, for the closing note
        path = Path(os.environ["JOBGRANT_E2E_REPORT"]) / f"fuzz-{form.name.replace(': ', '-')}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps({"form": form.name, "bodies": bodies_sent, "statuses": statuses})
        )
