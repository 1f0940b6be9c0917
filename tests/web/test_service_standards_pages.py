"""The service standards on the pages: the public results page (no sign-in) in English and
French with a CSV, each file's clock on the officer's and the employer's pages, and the
officer's queue sorted by what is due first, with what is overdue.

Two Ontario files received on Monday, June 1, 2026 (their history moved there): one denied on
June 3 (acknowledged and decided in time), one never touched (both standards missed). The
decision was due 60 business days later, on August 25 (Canada Day skipped): the second quarter
of 2026-27; the acknowledgement 10 business days later, on June 15: the first quarter."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.personas import EMPLOYER, OFFICER
from tests.web.reading import signed_in, text

from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Application, State, StateChange

pytestmark = pytest.mark.django_db
Body = Callable[..., dict[str, Any]]
RECEIVED = dt.datetime(2026, 6, 1, 15, tzinfo=dt.UTC)
DENIED = dt.datetime(2026, 6, 3, 15, tzinfo=dt.UTC)


def submitted(make_body: Body) -> Application:
    employer = EMPLOYER.get()
    return actions.submit_application(employer, actions.create_application(employer, make_body()))


def received_in_june(application: Application) -> None:
    """The file as if received on June 1 (its history and due day moved there)."""
    StateChange.objects.filter(application=application, to_state=State.SUBMITTED).update(
        at=RECEIVED
    )
    Application.objects.filter(pk=application.pk).update(decide_by=dt.date(2026, 8, 25))


@pytest.fixture
def june_files(make_body: Body) -> tuple[Application, Application]:
    decided, waiting = submitted(make_body), submitted(make_body)
    for application in (decided, waiting):
        received_in_june(application)
    actions.deny_application(OFFICER.get(), decided, "The training is not eligible.")
    StateChange.objects.filter(application=decided, to_state=State.DENIED).update(at=DENIED)
    return decided, waiting


def _rows(page: str, standard: str) -> list[str]:
    table = page[page.index(f'id="results-{standard}"') :]
    table = table[: table.index("</table>")]
    return [
        re.sub(r"\s+", " ", re.sub("<[^>]+>", " ", row)).strip() for row in table.split("<tr>")[2:]
    ]


def test_the_public_page_gives_each_standards_results_by_quarter_without_signing_in(
    june_files: tuple[Application, Application],
) -> None:
    page = text(Client().get("/en/service-standards/?fiscal_year=2026-27"))
    assert "Within 60 business days, for at least 80% of files." in page
    assert "Nova Scotia: within 30 business days." in page
    assert _rows(page, "decide") == [
        "Q2 (July to September) Ontario 2 50.0% (1 / 2) 80% No",
        "Q2 (July to September) Canada: every file 2 50.0% (1 / 2) 80% No",
        # the demonstration's file denied against its ranked intake's ranking (demo_ranking.py)
        # in November, in time: its decision was due in January
        "Q4 (January to March) Ontario 1 100.0% (1 / 1) 80% Yes",
        "Q4 (January to March) Canada: every file 1 100.0% (1 / 1) 80% Yes",
    ]
    assert _rows(page, "acknowledge")[0] == "Q1 (April to June) Ontario 2 50.0% (1 / 2) 80% No"


def test_the_public_page_is_in_french_at_a_french_address(
    june_files: tuple[Application, Application],
) -> None:
    path = page_path("fr", "/service-standards/")
    assert path == "/fr/normes-de-service/"
    page = text(Client().get(path + "?fiscal_year=2026-27&jurisdiction=ON"))
    assert '<html lang="fr">' in page
    assert "Dans un délai de 60 jours ouvrables, pour au moins 80 % des dossiers." in page
    assert _rows(page, "decide") == [
        "T2 (juillet à septembre) Ontario 2 50,0 % (1 / 2) 80 % Non",
        "T4 (janvier à mars) Ontario 1 100,0 % (1 / 1) 80 % Oui",  # the demonstration's
    ]


def test_the_csv_gives_every_quarter_with_shares_as_decimals(
    june_files: tuple[Application, Application],
) -> None:
    response = Client().get("/en/service-standards/csv/")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    decide = [r for r in rows if r["standard"] == "decide" and r["jurisdiction"] == "ON"]
    assert decide == [
        {
            "fiscal_year": "2026-27",
            "quarter": "2",
            "jurisdiction": "ON",
            "standard": "decide",
            "files_due": "2",
            "files_met": "1",
            "share_met": "0.5000",
            "target_share": "0.8000",
            "target_met": "no",
        },
        {  # the demonstration's file denied against its intake's ranking, in time
            "fiscal_year": "2026-27",
            "quarter": "4",
            "jurisdiction": "ON",
            "standard": "decide",
            "files_due": "1",
            "files_met": "1",
            "share_met": "1.0000",
            "target_share": "0.8000",
            "target_met": "yes",
        },
    ]


def test_with_no_file_due_yet_the_page_says_so(demo: None) -> None:
    # British Columbia: the demonstration has no file of it due yet (Ontario's ranked intake
    # has one decided, so the page as a whole has results)
    page = text(Client().get("/en/service-standards/?jurisdiction=BC"))
    assert 'id="results-decide"' in page
    decide = page[page.index('id="results-decide"') :]
    assert "No file was due in this year." in decide[: decide.index("</table>")]


def test_the_officer_and_the_employer_see_the_files_clock(
    june_files: tuple[Application, Application],
) -> None:
    decided, waiting = june_files
    review = text(signed_in(OFFICER.username).get(f"/en/officer/applications/{waiting.pk}/"))
    row = review[review.index('id="clock-decide"') :]
    row = row[: row.index("</tr>")]
    assert "Decide the application, within 60 business days" in row
    assert "August 25, 2026" in row and "Overdue by 66 business days" in row
    french = page_path("fr", f"/employer/applications/{decided.pk}/")
    detail = text(signed_in(EMPLOYER.username).get(french))
    row = detail[detail.index('id="clock-decide-result"') :]
    assert row[: row.index("</td>")].endswith("Respectée : fait le 3 juin 2026")


def test_the_queue_puts_what_is_due_first_and_counts_what_is_overdue(make_body: Body) -> None:
    later, sooner = submitted(make_body), submitted(make_body)
    Application.objects.filter(pk=sooner.pk).update(decide_by=dt.date(2026, 11, 20))
    # by what is due (the queue opens in rank order while ranked files wait in it: the seed's)
    page = text(signed_in(OFFICER.username).get("/en/officer/?sort=due"))
    assert page.index(f'id="open-{sooner.pk}"') < page.index(f'id="open-{later.pk}"')
    assert "Decision overdue: <strong>1</strong>" in page
    due = page[page.index(f'id="due-{sooner.pk}"') :]
    assert due[: due.index("</td>")].endswith("Overdue by 5 business days</strong>")
    overdue_only = text(signed_in(OFFICER.username).get("/en/officer/?due=overdue"))
    assert f'id="open-{sooner.pk}"' in overdue_only
    assert f'id="open-{later.pk}"' not in overdue_only
    received_order = text(signed_in(OFFICER.username).get("/en/officer/?sort=received"))
    assert received_order.index(f'id="open-{later.pk}"') < received_order.index(
        f'id="open-{sooner.pk}"'
    )


def test_the_employers_claim_page_shows_its_payment_clock(canonical_file: Any) -> None:
    from jobgrant.service.grants.models.claims import Claim

    claim = Claim.objects.get(application=canonical_file("paid"))
    page = text(signed_in(EMPLOYER.username).get(f"/en/employer/claims/{claim.pk}/"))
    row = page[page.index(f'id="clock-pay-{claim.number}-1">') :]
    row = row[row.index(">") + 1 : row.index("</tr>")]
    row = re.sub(r"\s+", " ", re.sub("<[^>]+>", " ", row)).strip()
    assert row == (
        f"Pay claim {claim.number}, within 30 business days January 20, 2027 March 4, 2027"
        " Met: done on January 23, 2027"
    )
