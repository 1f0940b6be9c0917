"""The KPIs page (/en/analyst/kpis/, /fr/...): analysts and officers, suppressed cells marked."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from tests.personas import ANALYST, EMPLOYER, OFFICER, Persona
from tests.service.outcomes import kpi_fixture as fx
from tests.service.outcomes.test_kpis import nova_scotia

from jobgrant.service.accounts.models import User

pytestmark = pytest.mark.django_db


def signed_in(persona: Persona) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=persona.username))
    return client


def cells(html: str, table: str) -> str:
    """The table's cells, all its parts' (a wide table is shown in parts of five columns)."""
    found = re.findall(rf'<table[^>]*id="{table}(?:-part-\d+)?">(.*?)</table>', html, re.S)
    assert found, table
    return "".join(found)


def test_an_analyst_reads_nova_scotia_in_english_and_french(demo: None) -> None:
    """The fixture of test_kpis.nova_scotia: 17 participants, completion 10/12 (83.3%) with its
    response 12/17 (70.6%), the 3-month figure (9 people) hidden as small, $1,400.00 paid."""
    nova_scotia()
    client = signed_in(ANALYST)
    page = client.get("/en/analyst/kpis/", {"jurisdiction": "NS", "fiscal_year": fx.FISCAL_YEAR})
    assert page.status_code == 200
    html = page.content.decode()
    headline = cells(html, "headline")
    assert "Nova Scotia, fiscal year 2030-31" in html
    assert "83.3% (10/12)" in headline
    assert "response 70.6% (12/17)" in headline
    assert "$1,400.00" in headline
    assert 'data-suppressed="small"' in headline
    assert "suppressed: fewer than 10 people" in headline
    assert 'id="suppression-explained"' in html
    firm = cells(html, "by-firm-size")
    assert firm.count('data-suppressed="small"') >= 4
    french = client.get(
        "/fr/analyste/indicateurs/", {"jurisdiction": "NS", "fiscal_year": fx.FISCAL_YEAR}
    )
    text = french.content.decode()
    assert french.status_code == 200
    assert "Taux d’achèvement" in text or "Taux d&#x27;achèvement" in text
    assert "1\u00a0400,00\u00a0$" in cells(text, "headline")
    assert "83,3\u00a0% (10/12)" in cells(text, "headline")


def test_canada_marks_the_complementary_cell(demo: None) -> None:
    nova_scotia()
    pe = fx.file("PE", employers={"p": 8}, trainees=["p"] * 4)
    for i in range(4):
        fx.participant(pe, i)
    nu = fx.file("NU", employers={"n": 120}, trainees=["n"] * 11, delivery="federal-direct")
    for i in range(11):
        fx.participant(nu, i)
    page = signed_in(ANALYST).get("/en/analyst/kpis/", {"fiscal_year": fx.FISCAL_YEAR})
    table = cells(page.content.decode(), "by-jurisdiction")
    assert 'data-suppressed="complementary"' in table
    assert "Federal-direct files" in table


def test_an_officer_opens_on_their_jurisdiction_and_no_other(demo: None) -> None:
    client = signed_in(OFFICER)
    page = client.get("/en/analyst/kpis/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "Ontario, fiscal year" in html
    assert 'value="NS"' not in html  # only their own jurisdiction is offered
    assert 'id="kpi-queue-link"' in html
    other = client.get("/en/analyst/kpis/", {"jurisdiction": "NS"})
    assert other.status_code == 422
    assert 'id="error-summary"' in other.content.decode()


def test_an_employer_cannot_open_it(demo: None) -> None:
    assert signed_in(EMPLOYER).get("/en/analyst/kpis/").status_code == 403


def test_the_analysts_pages_link_to_it(demo: None) -> None:
    page = signed_in(ANALYST).get("/en/analyst/scenarios/")
    assert 'href="/en/analyst/kpis/"' in page.content.decode()


def test_the_page_says_as_of_when_in_english_and_french(demo: None) -> None:
    nova_scotia()
    client = signed_in(ANALYST)
    query = {"jurisdiction": "NS", "fiscal_year": fx.FISCAL_YEAR}
    english = client.get("/en/analyst/kpis/", query).content.decode()
    assert re.search(r'id="kpi-as-of">Figures as of \w+ \d+, \d{4}, [^<]+ \(Ottawa time\)', english)
    assert "every 15 minutes" in english
    assert 'id="kpi-refresh-button"' in english
    french = client.get("/fr/analyste/indicateurs/", query).content.decode()
    assert re.search(r'id="kpi-as-of">Chiffres en date du \S+ \w+ \d{4}, [^<]+ \(heure', french)
    assert "Mettre à jour maintenant" in french
    officer = signed_in(OFFICER).get("/en/analyst/kpis/").content.decode()
    assert 'id="kpi-as-of"' in officer
    assert 'id="kpi-refresh-button"' not in officer  # an analyst's button


def test_only_an_analyst_may_ask_for_a_refresh(demo: None) -> None:
    form = {"jurisdiction": "ON", "fiscal_year": fx.FISCAL_YEAR}
    assert signed_in(OFFICER).post("/en/analyst/kpis/refresh/", form).status_code == 403
    assert signed_in(EMPLOYER).post("/en/analyst/kpis/refresh/", form).status_code == 403
    assert signed_in(ANALYST).get("/en/analyst/kpis/refresh/").status_code == 405
    bad = signed_in(ANALYST).post("/en/analyst/kpis/refresh/", {"fiscal_year": "1900-01"})
    assert bad.status_code == 422
    assert 'id="error-summary"' in bad.content.decode()


def run_the_worker() -> int:
    from jobgrant.service.notifications.worker import OutboxWorker

    ran = 0
    while (turn := OutboxWorker("test-worker", interval=0).turn()) > 0:
        ran += turn
    return ran


@pytest.mark.django_db(transaction=True)
def test_refresh_now_goes_through_the_worker_and_shows_its_progress(demo: None) -> None:
    """The stored figures (17 participants) stay as they were when 3 more join; "Refresh now"
    hands Nova Scotia to the worker, the page says a refresh is under way (0 of 1 done) in
    either language, and once the worker has run it shows 20 and no refresh under way."""
    from jobgrant.service.audit.models import AuditEntry
    from jobgrant.service.outcomes import snapshots

    nova_scotia()
    client = signed_in(ANALYST)
    query = {"jurisdiction": "NS", "fiscal_year": fx.FISCAL_YEAR}
    assert client.get("/en/analyst/kpis/", query).status_code == 200
    more = fx.file("NS", employers={"m": 12}, trainees=["m"] * 3)
    for i in range(3):
        fx.participant(more, i)

    def participants() -> int | None:
        report = snapshots.read("NS", fx.FISCAL_YEAR, suppress=False)
        return report.table("headline").rows[0].figures["participants"].value

    assert participants() == 17
    answer = client.post("/en/analyst/kpis/refresh/", query)
    assert answer.status_code == 302
    assert answer["Location"].endswith(f"?jurisdiction=NS&fiscal_year={fx.FISCAL_YEAR}#kpi-as-of")
    waiting = client.get("/en/analyst/kpis/", query).content.decode()
    assert "A refresh was asked for on" in waiting and "0 of 1 jurisdictions computed" in waiting
    french = client.get("/fr/analyste/indicateurs/", query).content.decode()
    assert "Une mise à jour a été demandée le" in french
    assert AuditEntry.objects.filter(action="kpis.refresh", object_id="NS/2030-31").exists()
    assert run_the_worker() >= 1
    assert participants() == 20
    done = client.get("/en/analyst/kpis/", query).content.decode()
    assert 'id="kpi-refreshing"' not in done
