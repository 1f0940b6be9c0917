"""`jobgrant report annual` and `jobgrant report open-data`: the files they write from a
KpiReport (the hand-made ones of tests/service/outcomes, whose figures are known), and bad
options refused with exit 2, naming the option in English or French, nothing written."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pypdf
import pytest
from tests.service.outcomes.report_fixtures import national, ontario
from typer.testing import CliRunner

from jobgrant.cli.app import app
from jobgrant.service.outcomes.report import opendata, source
from jobgrant.service.outcomes.tables import KpiReport

runner = CliRunner()
SECRETS = ("42.9", "42,9", "3 / 7")


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str | None, str]]:
    calls: list[tuple[str | None, str]] = []

    def fake(jurisdiction: str | None, fiscal_year: str) -> KpiReport:
        calls.append((jurisdiction, fiscal_year))
        made = national() if jurisdiction is None else ontario()
        return KpiReport(jurisdiction, fiscal_year, made.tables, notes=made.notes)

    monkeypatch.setattr(source, "annual_report", fake)
    return calls


@pytest.mark.parametrize(
    ("args", "lang", "expected"),
    [
        (
            ["--jurisdiction", "ZZ", "--fiscal-year", "2015-16"],
            "en",
            "--jurisdiction: must be a province or territory code",
        ),
        (
            ["--jurisdiction", "ON", "--fiscal-year", "2015-2016"],
            "en",
            "--fiscal-year: must be a fiscal year like 2015-16, from 2014-15 to ",
        ),
        (  # a year not begun yet: nothing to report (and no KPI cells stored for it)
            ["--jurisdiction", "ON", "--fiscal-year", "2999-00"],
            "en",
            "not '2999-00'",
        ),
        (["--jurisdiction", "ON"], "fr", "--fiscal-year : obligatoire (un exercice comme 2015-16)"),
        (["--fiscal-year", "2013-14"], "fr", "--fiscal-year : doit être un exercice comme 2015-16"),
        (["--fiscal-year", "2015-16", "--lang", "de"], "en", "--lang: must be en or fr, not 'de'"),
    ],
)
def test_bad_options_exit_2_naming_the_option_and_write_nothing(
    tmp_path: Path, asked: list[Any], args: list[str], lang: str, expected: str
) -> None:
    out = tmp_path / "out"
    language = [] if "--lang" in args else ["--lang", lang]
    result = runner.invoke(app, ["report", "annual", *args, *language, "--out", str(out)])
    assert result.exit_code == 2
    assert expected in result.stderr and result.stdout == ""
    assert not out.exists() and asked == []


def test_an_out_that_is_a_file_is_refused(tmp_path: Path, asked: list[Any]) -> None:
    file = tmp_path / "file"
    file.write_text("")
    result = runner.invoke(
        app, ["report", "open-data", "--fiscal-year", "2016-17:2015-16", "--out", str(file)]
    )
    assert result.exit_code == 2
    assert "--fiscal-year: 2016-17 comes after 2015-16" in result.stderr
    assert f"--out: '{file}' exists and is not a directory" in result.stderr
    assert asked == []


def test_annual_writes_both_pdfs_and_every_table_with_the_same_figures(
    tmp_path: Path, asked: list[Any]
) -> None:
    result = runner.invoke(
        app,
        [
            "report",
            "annual",
            "--jurisdiction",
            "on",
            "--fiscal-year",
            "2015-16",
            "--out",
            str(tmp_path),
            "--lang",
            "fr",
        ],
    )
    assert result.exit_code == 0, result.output
    assert asked == [("ON", "2015-16")]
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "annual-report-ON-2015-16-by-firm-size.csv",
        "annual-report-ON-2015-16-by-gender.csv",
        "annual-report-ON-2015-16-en.pdf",
        "annual-report-ON-2015-16-fr.pdf",
        "annual-report-ON-2015-16-headline.csv",
    ]
    assert "report : écriture du PDF en anglais" in result.stderr
    table = list(
        csv.DictReader(
            io.StringIO(
                (tmp_path / "annual-report-ON-2015-16-headline.csv").read_text(encoding="utf-8")
            )
        )
    )
    english = _text(tmp_path / "annual-report-ON-2015-16-en.pdf")
    french = _text(tmp_path / "annual-report-ON-2015-16-fr.pdf")
    # the CSV's exact figures, as each PDF writes them
    assert table[0]["participants"] == "1204" and "1,204" in english and "1\u00a0204" in french
    assert table[0]["slippage"] == "987654.32"
    assert "$987,654.32" in english and "987\u00a0654,32\u00a0$" in french
    assert "Rapport annuel" not in english and "reddition de comptes" in french
    assert [s for s in SECRETS if s in english + french] == []


def _text(path: Path) -> str:
    return "\n".join(p.extract_text() for p in pypdf.PdfReader(str(path)).pages)


def test_the_national_report_is_asked_for_without_a_jurisdiction_or_with_ca(
    tmp_path: Path, asked: list[Any]
) -> None:
    for extra in ([], ["--jurisdiction", "CA"]):
        result = runner.invoke(
            app, ["report", "annual", "--fiscal-year", "2015-16", *extra, "--out", str(tmp_path)]
        )
        assert result.exit_code == 0, result.output
    assert asked == [(None, "2015-16"), (None, "2015-16")]
    assert (tmp_path / "annual-report-CA-2015-16-federal-direct.csv").is_file()


def test_open_data_writes_one_file_per_table_and_a_bilingual_dictionary_of_every_field(
    tmp_path: Path, asked: list[Any]
) -> None:
    result = runner.invoke(
        app, ["report", "open-data", "--fiscal-year", "2015-16:2016-17", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert len(asked) == 2 * 14  # Canada and 13 provinces and territories, two years
    dictionary = list(
        csv.DictReader((tmp_path / opendata.DICTIONARY).open(encoding="utf-8", newline=""))
    )
    described = {(d["resource_name"], d["field_name"]) for d in dictionary}
    assert all(d["title_en"] and d["title_fr"] and d["data_type"] for d in dictionary)
    files = sorted(p for p in tmp_path.glob("cjg-*.csv"))
    assert [p.name for p in files] == sorted(
        f"cjg-{t}-2015-16_2016-17.csv"
        for t in ("headline", "by-firm-size", "by-gender", "by-jurisdiction", "federal-direct")
    )
    for path in files:
        header = next(csv.reader(path.open(encoding="utf-8", newline="")))
        assert {(path.name, field) for field in header} <= described
    sizes = list(
        csv.DictReader(
            (tmp_path / "cjg-by-firm-size-2015-16_2016-17.csv").open(encoding="utf-8", newline="")
        )
    )
    big = next(r for r in sizes if r["row"] == "500+" and r["jurisdiction"] == "ON")
    assert big["participants"] == "" and big["participants_status"] == "x"
    assert big["completion_rate_percent"] == "" and big["completion_rate_status"] == "x"
    small = next(r for r in sizes if r["row"] == "1-49" and r["jurisdiction"] == "ON")
    assert small["completion_rate_percent"] == "87.5" and small["completion_rate_status"] == ""
    everything = "".join(p.read_text(encoding="utf-8") for p in files)
    assert [s for s in SECRETS if s in everything] == []
    assert "Employed at 12 months (response rate, numerator)" in {d["title_en"] for d in dictionary}
    french = list(csv.DictReader((tmp_path / "data-dictionary-fr.csv").open(encoding="utf-8")))
    assert len(french) == len(dictionary)
    assert {"nom_ressource", "nom_champ", "type_donnees", "titre", "description"} == set(french[0])
    assert "En emploi après 12 mois (taux de réponse, numérateur)" in {d["titre"] for d in french}
