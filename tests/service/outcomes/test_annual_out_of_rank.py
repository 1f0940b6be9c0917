"""The annual report counts the decisions taken against an intake's ranking in its PDF (both
languages), its CSV files and its open data, per intake, by what they did, with no name and no
reason: on the hand-worked intake of ranking_helpers, file D approved below the cut-off."""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

import pypdf
import pytest
from django.test import Client
from tests.addresses import page_path
from tests.personas import ANALYST, OFFICER, PROGRAM_MANAGER, SECOND_OFFICER
from tests.service.grants.ranking_helpers import closed, ranked_stream, submitted_files

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.models.applications import Intake
from jobgrant.service.grants.ranking.actions import (
    rank_intake,
    request_override,
    sign_off_override,
)
from jobgrant.service.outcomes.report import csvfiles, opendata, source
from jobgrant.service.outcomes.report.pdf import report_pdf
from jobgrant.service.outcomes.tables import KpiReport

pytestmark = pytest.mark.django_db
REASON = "The employer's plant closes in March: the training must start now."
MADE = dt.datetime(2026, 12, 2, 4, 30, tzinfo=dt.UTC)


@pytest.fixture
def intake(demo: None) -> Intake:
    """The hand-worked intake ranked, every file recommended, D approved below the cut-off."""
    made = ranked_stream()
    files = submitted_files()
    rank_intake(closed(made))
    for application in files.values():
        actions.recommend_application(OFFICER.get(), application)
    override = request_override(OFFICER.get(), files["D"], "approve", REASON)
    sign_off_override(PROGRAM_MANAGER.get(), override, "Agreed.")
    actions.approve_application(SECOND_OFFICER.get(), files["D"])
    return Intake.objects.select_related("stream__program").get(pk=made.pk)


def report_of(intake: Intake) -> KpiReport:
    return source.annual_report("ON", intake.stream.program.fiscal_year)


def squeezed(text: str) -> str:
    return "".join(text.split())


def no_personal_data(text: str) -> bool:
    private = (REASON, OFFICER.username, PROGRAM_MANAGER.username, "Birchwood")
    return not any(word in text for word in private)


def test_the_table_counts_each_ranked_intake_s_decisions_by_what_they_did(intake) -> None:
    table = report_of(intake).table("out-of-rank")
    rows = {row.key: row for row in table.rows}
    row = rows[f"intake-{intake.pk}"]
    assert {c: f.value for c, f in row.figures.items()} == {
        "ranked_files": 4,
        "approved_below_cut_off": 1,
        "denied_above_cut_off": 0,
        "decisions_out_of_rank": 1,
    }
    assert row.label_en.startswith("ON: ") and row.label_fr.startswith("ON\u00a0: ")
    parts = [r for key, r in rows.items() if key != "total"]
    for column in table.columns:  # the total is the sum of the intakes, never suppressed
        total = rows["total"].figures[column.id]
        assert total.shown and total.value == sum(r.figures[column.id].value or 0 for r in parts)


def test_a_year_with_no_ranked_intake_has_the_table_with_its_total_at_zero(demo: None) -> None:
    table = source.annual_report("NS", "2015-16").table("out-of-rank")
    assert [row.key for row in table.rows] == ["total"]
    assert {f.value for f in table.rows[0].figures.values()} == {0}


def test_the_pdf_shows_the_count_in_each_language(intake) -> None:
    report = report_of(intake)
    texts = {}
    for language in ("en", "fr"):
        pdf = report_pdf(report, language, MADE)
        pages = pypdf.PdfReader(io.BytesIO(pdf)).pages
        texts[language] = squeezed("\n".join(page.extract_text() for page in pages))
        assert no_personal_data(texts[language])
    assert squeezed("Decisions against an intake's ranking") in texts["en"]
    assert squeezed("Approved below the cut-off") in texts["en"]
    assert squeezed("Décisions contraires au classement d'un appel de demandes") in texts["fr"]
    assert squeezed("Approuvées sous le seuil") in texts["fr"]
    assert squeezed("Refusées au-dessus du seuil") in texts["fr"]


def test_the_csv_files_and_the_open_data_carry_the_count_and_its_definitions(
    intake, tmp_path: Path
) -> None:
    report = report_of(intake)
    written = csvfiles.write_tables(report, tmp_path / "annual")
    name = csvfiles.file_name(report, "out-of-rank")
    assert tmp_path / "annual" / name in written
    opendata.write([report], tmp_path / "open")
    year = report.fiscal_year
    path = tmp_path / "open" / f"cjg-out-of-rank-{year}.csv"
    content = path.read_text(encoding="utf-8")
    assert no_personal_data(content)
    rows = {r["row"]: r for r in csv.DictReader(io.StringIO(content))}
    row = rows[f"intake-{intake.pk}"]
    assert row["jurisdiction"] == "ON" and row["fiscal_year"] == year
    assert (row["approved_below_cut_off"], row["approved_below_cut_off_status"]) == ("1", "")
    assert (row["denied_above_cut_off"], row["decisions_out_of_rank"]) == ("0", "1")
    assert row["ranked_files"] == "4"
    dictionary = list(csv.DictReader((tmp_path / "open" / opendata.DICTIONARY).open()))
    fields = {d["field_name"]: d for d in dictionary if d["resource_name"] == path.name}
    assert fields["approved_below_cut_off"]["title_fr"] == "Approuvées sous le seuil"
    assert "program manager's sign-off" in fields["approved_below_cut_off"]["description_en"]
    assert fields["denied_above_cut_off"]["data_type"] == "integer"


@pytest.mark.parametrize(
    ("language", "title"),
    [
        ("en", "Decisions against an intake&#x27;s ranking"),
        ("fr", "Décisions contraires au classement d&#x27;un appel de demandes"),
    ],
)
def test_the_page_shows_the_table_and_its_csv(intake, language: str, title: str) -> None:
    client = Client()
    client.force_login(User.objects.get(username=ANALYST.username))
    year = intake.stream.program.fiscal_year
    query = f"?jurisdiction=ON&fiscal_year={year}"
    page = client.get(page_path(language, f"/reports/annual/{query}")).content.decode()
    assert 'id="table-out-of-rank"' in page and title in page
    assert no_personal_data(page)
    table = client.get(page_path(language, f"/reports/annual/csv/out-of-rank/{query}"))
    assert table.status_code == 200 and f"intake-{intake.pk}" in table.content.decode()
