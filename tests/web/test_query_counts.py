"""The pages and lists `make load` spends its time on read a fixed number of rows' worth of
queries: the count does not grow with the number of files shown (no query per file).

Each test counts the queries of one request with one file more than the demonstration data
has, then with ten more (every one approved: its agreement, its state changes, its commitment),
and requires the same count. A behaviour, not a timing: it holds on any machine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from tests.addresses import page_path
from tests.conftest import application_body, token_for
from tests.personas import EMPLOYER, OFFICER, SECOND_OFFICER

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.applications import actions

pytestmark = pytest.mark.django_db


def approved_files(count: int) -> list[int]:
    """`count` files of EMPLOYER's, each submitted, recommended and approved."""
    employer, recommender, approver = (
        User.objects.get(username=p.username) for p in (EMPLOYER, OFFICER, SECOND_OFFICER)
    )
    made = []
    for _ in range(count):
        application = actions.create_application(employer, application_body())
        actions.submit_application(employer, application)
        actions.recommend_application(recommender, application)
        actions.approve_application(approver, application)
        made.append(application.pk)
    return made


def signed_in(who: Any) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=who.username))
    return client


def queries(get: Callable[[], Any]) -> int:
    with CaptureQueriesContext(connection) as captured:
        answer = get()
    assert answer.status_code == 200, answer.content[:500]
    return len(captured.captured_queries)


def one_then_ten(get: Callable[[list[int]], Any]) -> tuple[int, int]:
    """The queries of `get` (given the files made so far) with 1 file made, then with 10."""
    files = approved_files(1)
    queries(lambda: get(files))  # what is read once per process (caches) is read now
    with_one = queries(lambda: get(files))
    files += approved_files(9)
    return with_one, queries(lambda: get(files))


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_employer_dashboard_reads_the_same_queries_for_1_and_10_files(
    demo: None, language: str
) -> None:
    client = signed_in(EMPLOYER)
    one, ten = one_then_ten(lambda files: client.get(page_path(language, "/employer/")))
    assert one == ten


def test_the_officer_queue_reads_the_same_queries_for_1_and_10_files(demo: None) -> None:
    client = signed_in(OFFICER)
    one, ten = one_then_ten(lambda files: client.get("/en/officer/"))
    assert one == ten


def test_an_application_page_reads_the_same_queries_whatever_the_employer_has(
    demo: None,
) -> None:
    employer, officer = signed_in(EMPLOYER), signed_in(OFFICER)
    one, ten = one_then_ten(lambda files: employer.get(f"/en/employer/applications/{files[0]}/"))
    assert one == ten
    one, ten = one_then_ten(lambda files: officer.get(f"/en/officer/applications/{files[0]}/"))
    assert one == ten


@pytest.mark.parametrize("who", [EMPLOYER, OFFICER], ids=["employer", "officer"])
def test_the_api_list_of_applications_reads_the_same_queries_for_1_and_10_files(
    demo: None, who: Any
) -> None:
    client, token = Client(), token_for(who)

    def listed(files: list[int]) -> Any:
        return client.get("/api/v1/applications", HTTP_AUTHORIZATION=f"Bearer {token}")

    one, ten = one_then_ten(listed)
    assert one == ten


def test_the_budgets_page_reads_the_same_queries_for_1_and_10_files(demo: None) -> None:
    from tests.personas import FINANCE

    client = signed_in(FINANCE)
    one, ten = one_then_ten(lambda files: client.get("/en/finance/budgets/"))
    assert one == ten


def test_a_partners_dashboard_reads_the_same_queries_for_1_and_10_consortium_files(
    demo: None,
) -> None:
    """The partner's rows read its own share of each quote, picked out in the query: no query
    per file."""
    from tests.personas import PARTNER, PARTNER_EMPLOYER

    employer = User.objects.get(username=EMPLOYER.username)

    def consortium_files(count: int) -> None:
        for _ in range(count):
            body = application_body()
            body["employers"].append({"id": "p", "business_number": PARTNER.get().business_number})
            body["trainees"].append({**body["trainees"][0], "employer_id": "p"})
            actions.submit_application(employer, actions.create_application(employer, body))

    client = signed_in(PARTNER_EMPLOYER)
    consortium_files(1)
    queries(lambda: client.get("/en/employer/"))
    with_one = queries(lambda: client.get("/en/employer/"))
    consortium_files(9)
    page = client.get("/en/employer/").content.decode()
    assert page.count('id="application-') >= 10  # the ten files are the partner's rows
    assert queries(lambda: client.get("/en/employer/")) == with_one
