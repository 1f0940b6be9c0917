"""The annual report: the PDF's text (pypdf), the CSV tables and the page show the
same figures for the same KpiReport, in English and in French; a suppressed figure's numbers
appear in none of them; a rate over nobody is "..."; the national report has the federal-direct
files apart and the cost per job by jurisdiction."""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

import pypdf
import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pytest
from django.test import Client
from django.utils import translation
from tests.addresses import page_path
from tests.built_once import built_bytes
from tests.personas import ANALYST, EMPLOYER, OFFICER
from tests.service.outcomes.report_fixtures import national, ontario, widest

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.outcomes.report import content, csvfiles, plots, source
from jobgrant.service.outcomes.report.pdf import report_pdf
from jobgrant.service.outcomes.tables import KpiReport

MADE = dt.datetime(2026, 12, 2, 4, 30, tzinfo=dt.UTC)
# What the suppressed figures of the fixtures hold (3 of 7 people): never to be shown.
SECRETS = ("42.9", "42,9", "3 / 7", "0.43", "0,43")


def squeezed(text: str) -> str:
    """Without any whitespace (PDF text breaks lines inside table cells)."""
    return "".join(text.split())


def pdf_text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages)


def shown_texts(report: KpiReport, language: str) -> list[str]:
    with translation.override(language):
        seen = content.view(report, MADE)
    texts = [seen.summary.opening, *seen.summary.figures, seen.summary.closing]
    texts += [seen.suppression_rule, seen.place, seen.title]
    for table in seen.tables:
        texts += [table.title, *table.headers]
        for row in table.rows:
            texts += [row.label, *(c.text for c in row.cells), *(c.response for c in row.cells)]
    texts += [d.description for d in seen.definitions if d.description]
    return [t for t in texts if t]


REPORTS = {
    "on": ontario,
    "ca": national,
    "on-widest": lambda: widest("ON"),
    "ca-widest": lambda: widest(None),
}


MADE_FROM = (
    "tests/service/outcomes/report_fixtures.py",
    "tests/service/outcomes/test_annual_report.py",
)
PDF_PACKAGES = ("weasyprint", "pydyf", "matplotlib")


@pytest.fixture(scope="module")
def pdf_files() -> dict[tuple[str, str], bytes]:
    """The eight PDFs, made once per run and content (tests/built_once.py), not per process."""
    return {
        (name, language): built_bytes(
            "annual-report-pdfs",
            f"{name}-{language}.pdf",
            lambda make=make, language=language: report_pdf(make(), language, MADE),
            tests=MADE_FROM,
            packages=PDF_PACKAGES,
        )
        for name, make in REPORTS.items()
        for language in ("en", "fr")
    }


@pytest.fixture(scope="module")
def pdfs(pdf_files: dict[tuple[str, str], bytes]) -> dict[tuple[str, str], str]:
    """Their text, read once per run and content too (pypdf: about 0.3 s a PDF, in each of the
    four test processes that ran this module)."""
    return {
        key: built_bytes(
            "annual-report-texts",
            f"{key[0]}-{key[1]}.txt",
            lambda pdf=pdf: pdf_text(pdf).encode(),
            tests=MADE_FROM,
            packages=(*PDF_PACKAGES, "pypdf"),
        ).decode()
        for key, pdf in pdf_files.items()
    }


def off_the_page(pdf: bytes) -> list[str]:
    """Every character whose box (pdfium's, in points) lies even partly beyond its page's
    edges, with its page and what it starts: nothing may be cut off."""
    document = pdfium.PdfDocument(pdf)
    beyond = []
    for number in range(len(document)):
        page = document[number]
        width, height = page.get_width(), page.get_height()
        text = page.get_textpage()
        for index in range(text.count_chars()):
            left, bottom, right, top = text.get_charbox(index)
            if left < -0.5 or right > width + 0.5 or bottom < -0.5 or top > height + 0.5:
                beyond.append(
                    f"page {number + 1} (width {width:.0f}): {text.get_text_range(index, 12)!r}"
                    f" at x {left:.0f}–{right:.0f}"
                )
    return beyond


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("name", ["on", "ca", "on-widest", "ca-widest"])
def test_every_figure_of_the_pdf_lies_within_its_page(
    pdf_files: dict[tuple[str, str], bytes], name: str, language: str
) -> None:
    """The text the PDF's pages hold, read back with its positions: no character beyond a
    page's width (the headline table once ran five columns off the page)."""
    beyond = off_the_page(pdf_files[name, language])
    assert beyond == [], beyond[:10]


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_summary_is_a_paragraph_a_list_of_the_headline_figures_and_a_closing_line(
    demo: None, kpis: dict[str, Any], language: str
) -> None:
    """Not one run-on line: the opening sentence, one list item per headline figure (a
    suppressed one named as such), then what was suppressed; the page and the PDF alike."""
    with translation.override(language):
        seen = content.view(ontario(), MADE).summary
    headline = ontario().tables[0]
    assert len(seen.figures) == len(headline.columns)
    assert all(";" not in figure for figure in seen.figures)
    page = signed_in(ANALYST.username).get(
        page_path(language, "/reports/annual/?jurisdiction=ON&fiscal_year=2015-16")
    )
    html = page.content.decode()
    summary = html[html.index('id="summary-heading"') : html.index('id="suppression-heading"')]
    assert summary.count("<p") == 2
    assert summary.count("<li>") == len(headline.columns)
    assert 'id="report-summary-figures"' in summary


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("name", ["on", "ca"])
def test_the_pdf_shows_every_figure_label_and_definition_of_the_view(
    pdfs: dict[tuple[str, str], str], name: str, language: str
) -> None:
    report = ontario() if name == "on" else national()
    text = squeezed(pdfs[name, language])
    missing = [t for t in shown_texts(report, language) if squeezed(t) not in text]
    assert missing == []


def test_the_figures_read_as_each_language_writes_them(pdfs: dict[tuple[str, str], str]) -> None:
    english, french = squeezed(pdfs["on", "en"]), squeezed(pdfs["on", "fr"])
    assert squeezed("85.7% (1,032 / 1,204)") in english
    assert squeezed("85,7 % (1 032 / 1 204)") in french
    assert "$11,653.76" in english  # 1,403,112,345 cents / 1,204 trainees
    assert squeezed("11 653,76 $") in french
    assert "Canada Job Grant: annual accountability report" in pdfs["on", "en"]
    assert "Subvention canadienne pour l'emploi" in pdfs["on", "fr"]


@pytest.mark.parametrize("key", [("on", "en"), ("on", "fr"), ("ca", "en"), ("ca", "fr")])
def test_no_suppressed_number_reaches_the_pdf(pdfs: dict[tuple[str, str], str], key: Any) -> None:
    text = pdfs[key]
    assert [s for s in SECRETS if s in text] == []


def test_a_rate_over_nobody_is_not_applicable() -> None:
    with translation.override("en"):
        table = content.view(ontario(), MADE).tables[2]
    none = next(r for r in table.rows if r.key == "none")
    assert [c.text for c in none.cells] == ["0", "..."]


def test_the_csv_gives_numerators_denominators_percentages_and_money_as_decimals() -> None:
    report = ontario()
    rows = list(csv.DictReader(io.StringIO(csvfiles.table_csv(report, report.tables[0]))))
    total = rows[0]
    assert total["completion_rate_numerator"] == "1032"
    assert total["completion_rate_denominator"] == "1204"
    assert total["completion_rate_percent"] == "85.7"
    assert total["cost_per_trainee_average"] == "11653.76"
    assert total["slippage"] == "987654.32"
    assert total["employed_12m_response_numerator"] == "517"
    assert total["employed_12m_response_percent"] == "50.1"
    assert (total["fiscal_year"], total["jurisdiction"], total["row"]) == ("2015-16", "ON", "total")


def test_the_csv_marks_suppressed_cells_x_with_the_legend_below() -> None:
    report = ontario()
    text = csvfiles.table_csv(report, report.table("by-firm-size"))
    lines = list(csv.reader(io.StringIO(text)))
    header, body = lines[0], lines[1:]
    big = next(line for line in body if line and line[2] == "500+")
    assert big[5:] == ["x"] * (len(header) - 5)
    mid = dict(
        zip(header, next(line for line in body if line and line[2] == "100-499"), strict=True)
    )
    assert mid["employed_12m_percent"] == "x" and mid["participants"] == "247"
    assert [
        "x: suppressed to protect the confidentiality of the people counted (fewer than 10 "
        "people, or a figure that would let such a one be worked out)"
    ] in lines
    assert [s for s in SECRETS if s in text] == []
    assert all(
        line[5:] == ["x"] * (len(header) - 5) or "7" not in line[5:] for line in body if line
    )


def test_every_table_is_written_as_its_own_csv_file(tmp_path: Any) -> None:
    written = csvfiles.write_tables(national(), tmp_path)
    assert [p.name for p in written] == [
        "annual-report-CA-2015-16-headline.csv",
        "annual-report-CA-2015-16-by-firm-size.csv",
        "annual-report-CA-2015-16-by-jurisdiction.csv",
        "annual-report-CA-2015-16-federal-direct.csv",
    ]
    federal = written[2].read_text(encoding="utf-8")
    assert "federal-direct,Federal-direct files,Dossiers fédéraux directs,64,40,64,62.5" in federal


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_national_plots_are_svg_with_a_title_a_description_and_no_suppressed_bar(
    language: str,
) -> None:
    with translation.override(language):
        drawn = {p.id: p for p in plots.plots(national())}
    assert set(drawn) == {"firm-size", "funnel", "cost-per-job"}
    cost = drawn["cost-per-job"]
    assert cost.svg.startswith('<svg role="img" aria-labelledby="plot-cost-per-job-title')
    assert f'<title id="plot-cost-per-job-title">{cost.title}</title>' in cost.svg
    texts = dict(cost.table_rows)
    nunavut = "Nunavut"
    assert texts[nunavut] == ["x"]
    # 1,403,112,345 cents for 845 people employed at the end: 1,660,488.57 cents each
    expected_cost = "$16,604.88" if language == "en" else "16\u00a0604,88\u00a0$"
    assert texts["Ontario"] == [expected_cost]
    assert [s for s in SECRETS if s in cost.svg] == []
    expected = {"en": "Government cost per job outcome", "fr": "Coût public par emploi obtenu"}
    assert expected[language] in cost.svg


def test_the_plots_ids_do_not_collide_on_one_page() -> None:
    import re

    ids = [i for p in plots.plots(national()) for i in re.findall(r'\bid="([^"]+)"', p.svg)]
    assert len(ids) == len(set(ids)) > 10


# --- The page --------------------------------------------------------------------------------


@pytest.fixture
def kpis(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """source.annual_report answers with the hand-made reports, whose every figure is known
    (test_kpi_snapshots.py holds the stored figures to the computed ones)."""
    asked: dict[str, Any] = {}

    def fake(jurisdiction: str | None, fiscal_year: str) -> KpiReport:
        asked.update(jurisdiction=jurisdiction, fiscal_year=fiscal_year)
        return national() if jurisdiction is None else ontario()

    monkeypatch.setattr(source, "annual_report", fake)
    return asked


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_page_shows_what_the_pdf_and_the_csv_show(
    demo: None, kpis: dict[str, Any], pdfs: dict[tuple[str, str], str], language: str
) -> None:
    client = signed_in(ANALYST.username)
    page = client.get(page_path(language, "/reports/annual/?jurisdiction=ON&fiscal_year=2015-16"))
    assert page.status_code == 200
    assert kpis == {"jurisdiction": "ON", "fiscal_year": "2015-16"}
    html = squeezed(page.content.decode().replace("&#x27;", "'").replace("&nbsp;", "\u00a0"))
    texts = shown_texts(ontario(), language)
    assert [t for t in texts if squeezed(t) not in html] == []
    pdf = squeezed(pdfs["on", language])
    assert [t for t in texts if squeezed(t) not in pdf] == []
    assert [s for s in SECRETS if s in page.content.decode()] == []
    csv_link = page_path(
        language, "/reports/annual/csv/headline/?jurisdiction=ON&fiscal_year=2015-16"
    )
    table = client.get(csv_link)
    assert table.status_code == 200
    assert table.content.decode() == csvfiles.table_csv(ontario(), ontario().tables[0])
    assert csv_link.split(f"/{language}")[1].replace("&", "&amp;") in page.content.decode()


@pytest.mark.django_db
def test_the_page_s_pdf_link_gives_the_pdf_in_the_language_asked(
    demo: None, kpis: dict[str, Any]
) -> None:
    client = signed_in(ANALYST.username)
    answer = client.get("/en/reports/annual/pdf/?jurisdiction=CA&fiscal_year=2015-16&language=fr")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/pdf"
    assert kpis["jurisdiction"] is None
    text = pdf_text(answer.content)
    assert "Dossiers fédéraux directs" in text and "Coût public par emploi obtenu" in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "expected"),
    [("en", "must be a fiscal year like 2015-16"), ("fr", "doit être un exercice comme 2015-16")],
)
def test_a_bad_fiscal_year_is_named_in_the_page_s_language(
    demo: None, kpis: dict[str, Any], language: str, expected: str
) -> None:
    page = signed_in(ANALYST.username).get(
        page_path(language, "/reports/annual/?fiscal_year=2015-2016")
    )
    assert page.status_code == 200
    assert expected in page.content.decode()
    assert kpis == {}  # nothing computed


@pytest.mark.django_db
def test_an_employer_cannot_open_the_report(demo: None, kpis: dict[str, Any]) -> None:
    assert signed_in(EMPLOYER.username).get("/en/reports/annual/").status_code == 403
    assert kpis == {}


@pytest.mark.django_db
def test_an_officer_reads_the_report_of_their_own_jurisdiction_only(
    demo: None, kpis: dict[str, Any]
) -> None:
    """As the KPIs page (outcomes/access.py): Ontario's officer opens Ontario's report, and is
    refused another province's and Canada's, on the page and for the downloads, each refusal
    audited and nothing computed."""
    client = signed_in(OFFICER.username)
    assert client.get("/en/reports/annual/?fiscal_year=2015-16").status_code == 200
    assert kpis == {"jurisdiction": "ON", "fiscal_year": "2015-16"}  # opens on their own
    kpis.clear()
    refused = client.get("/fr/rapports/annuel/?jurisdiction=BC&fiscal_year=2015-16")
    assert refused.status_code == 403 and 'id="refusal"' in refused.content.decode()
    for path in ("pdf/", "csv/headline/"):
        query = "?jurisdiction=CA&fiscal_year=2015-16"
        assert client.get(f"/en/reports/annual/{path}{query}").status_code == 403
    assert kpis == {}
    refusals = AuditEntry.objects.filter(action="refused.read_annual_report")
    assert refusals.count() == 3
