"""T7 for the back office: generated bad bodies and queries never cause a server error, and a
decision that is not taken writes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.addresses import page_path
from tests.personas import ANALYST, AUDITOR, EMPLOYER, FINANCE, OFFICER

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application, StateChange
from jobgrant.service.ledger.models import Posting

pytestmark = pytest.mark.django_db
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
texts = st.one_of(
    st.text(max_size=50),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=3990, max_size=4100),
    st.sampled_from(["", "   ", "\x00", "\u202e", "😀" * 10, "<script>alert(1)</script>"]),
)
values = st.one_of(
    texts,
    st.sampled_from(
        [
            "all",
            "ON",
            "QC",
            "CJG",
            "7",
            "-1",
            "2017-18",
            "1900-01",
            "federal",
            "budget-2013",
            "id",
            "-id",
        ]
    ),
)
QUERY_KEYS = (
    "state",
    "jurisdiction",
    "stream",
    "age",
    "sort",
    "page",
    "fiscal_year",
    "funder",
    "policy",
    "scenario",
    "actor",
    "action",
    "object_type",
    "object_id",
    "sequence",
    "since",
    "until",
    "extra",
)
queries = st.dictionaries(st.sampled_from(QUERY_KEYS), values, max_size=6)


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def written() -> tuple[int, int, int]:
    return (
        StateChange.objects.count(),
        AuditEntry.objects.exclude(action__startswith="refused.")
        .exclude(action__startswith="auth.")  # signing in is recorded (ADR 0027)
        .count(),
        Posting.objects.count(),
    )


@pytest.fixture
def application(make_body: Any) -> Application:
    employer = EMPLOYER.get()
    return actions.submit_application(employer, actions.create_application(employer, make_body()))


@SETTINGS
@given(
    body=st.dictionaries(
        st.sampled_from(["action", "note", "reason", "extra"]),
        st.one_of(texts, st.sampled_from(["explode", "deny", "approve", "DENY", " deny"])),
        max_size=4,
    )
)
def test_bad_decision_bodies_never_fail_and_write_nothing(
    application: Application, body: dict[str, str]
) -> None:
    if body.get("action") == "deny" and body.get("reason", "").strip("\x00 \t\n\r\x0b\x0c"):
        body["reason"] = " "  # a real reason would deny the application: keep it refused
    before = written()
    for language in ("en", "fr"):
        response = signed_in(OFFICER.username).post(
            page_path(language, f"/officer/applications/{application.pk}/decision/"), body
        )
        assert response.status_code in (400, 409, 422), (body, response.status_code)
    assert written() == before
    assert Application.objects.get(pk=application.pk).state == "submitted"


PAGES = (
    (OFFICER.username, "/officer/"),
    (FINANCE.username, "/finance/budgets/"),
    (FINANCE.username, "/finance/budgets.csv"),
    (ANALYST.username, "/analyst/scenarios/"),
    (AUDITOR.username, "/auditor/trail/"),
)


@SETTINGS
@given(query=queries, page=st.sampled_from(PAGES), language=st.sampled_from(["en", "fr"]))
def test_generated_filters_never_cause_a_server_error(
    demo: None, query: dict[str, str], page: tuple[str, str], language: str
) -> None:
    user, path = page
    before = written()
    response = signed_in(user).get(page_path(language, path), query)
    assert response.status_code in (200, 400), (path, query, response.status_code)
    if response.status_code == 400 or "gcds-error-summary" in response.content.decode(
        errors="replace"
    ):
        assert b"gcds-error-summary" in response.content
    assert written() == before
