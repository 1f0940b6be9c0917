"""The analyst's funding scenarios: the table's figures (checked against sums done by hand),
the chart as SVG with its words in the page's language, and bad choices explained."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client
from tests.addresses import page_path
from tests.personas import ANALYST

pytestmark = pytest.mark.django_db
PAGE = "/analyst/scenarios/"


def analyst() -> Client:
    client = Client()
    client.force_login(ANALYST.get())
    return client


def text(response: Any) -> str:
    return html.unescape(response.content.decode()).replace("\u00a0", " ").replace("\u202f", " ")


def total_row(page: str) -> list[str]:
    row = page[page.index('<tr id="funding-total">') :]
    row = row[: row.index("</tr>")]
    return re.findall(r'<td class="jg-num">([^<]*)</td>', row)


def test_budget_2013_at_full_implementation_gives_the_premiers_600_million(demo: None) -> None:
    """By hand: the LMA transfer is $500M; Budget 2013 diverts 60% of it in 2017-18, $300M of
    federal grant money, leaving $200M. Each province and territory matches the federal
    grant dollar for dollar ($300M) and must replace the $300M diverted from its programs:
    $600M. Employers pay the last third of each trainee's cost, as much as Ottawa: $300M."""
    response = analyst().get(page_path("en", PAGE) + "?scenario=budget-2013&fiscal_year=2017-18")
    assert response.status_code == 200
    page = text(response)
    population, *money, trainees = total_row(page)
    assert money == [
        "$500,000,000.00",  # transfer
        "$300,000,000.00",  # grant: 60% of the transfer
        "$200,000,000.00",  # retained: the other 40%
        "$300,000,000.00",  # matching: one provincial dollar per federal dollar
        "$300,000,000.00",  # backfill: the diverted transfer, replaced
        "$600,000,000.00",  # provincial cost = matching + backfill
        "$300,000,000.00",  # employers: the last third
    ]
    assert population == "35,158,304" and trainees == "130,429"
    assert 'id="total-grant">$300,000,000.00<' in page
    assert 'id="total-provincial-cost">$600,000,000.00<' in page
    assert "<caption" in page and "<tfoot>" in page
    assert page.count('<tr id="funding-') == 14  # 13 jurisdictions and the total
    assert '<option value="2017-18" selected>' in page


def test_the_phase_in_and_the_policy_change_the_figures(demo: None) -> None:
    """By hand: in 2014-15 Budget 2013 diverts 15% of $500M, $75M. Under the 2014 agreements
    (cjg-2014) provinces match nothing, Quebec (its own agreement) gets no grant, and the
    employer pays a third of the cost, half of what government pays."""
    client = analyst()
    early = text(client.get(page_path("en", PAGE) + "?scenario=budget-2013&fiscal_year=2014-15"))
    assert total_row(early)[1:4] == ["$500,000,000.00", "$75,000,000.00", "$425,000,000.00"]
    signed = text(
        client.get(
            page_path("en", PAGE) + "?scenario=budget-2013&policy=cjg-2014&fiscal_year=2017-18"
        )
    )
    _, transfer, grant, _, matching, *_, employer, _ = total_row(signed)
    quebec = re.search(r'<tr id="funding-QC">.*?</tr>', signed, re.S)
    assert quebec is not None
    assert re.findall(r'<td class="jg-num">([^<]*)</td>', quebec.group(0))[2] == "$0.00"
    assert matching == "$0.00"
    cents = [int(re.sub(r"[^\d]", "", v)) for v in (transfer, grant, employer)]
    quebec_share = 69_379_353_44  # 60% of Quebec's $115,632,255.73 transfer, to the cent
    assert cents[1] + quebec_share == 300_000_000_00
    assert cents[2] * 2 == cents[1]


def test_the_page_and_table_in_french(demo: None) -> None:
    response = analyst().get(page_path("fr", PAGE) + "?scenario=budget-2013&fiscal_year=2017-18")
    page = text(response)
    assert '<html lang="fr">' in page
    assert "Scénarios de financement" in page
    assert "Le budget de 2013 tel qu'annoncé" in page  # the scenario's own French title
    assert total_row(page)[1:3] == ["500 000 000,00 $", "300 000 000,00 $"]
    assert "Coût provincial" in page and "Contrepartie" in page
    assert "<td>provinciale</td>" in page
    # the federal money moved from the transfer to the grant, in neutral words
    assert "réaffecté" in page and "détourn" not in page


def test_the_defaults_are_budget_2013_at_full_implementation(demo: None) -> None:
    page = text(analyst().get(page_path("en", PAGE)))
    assert total_row(page)[2] == "$300,000,000.00"
    assert "scenario=budget-2013" in page and "fiscal_year=2017-18" in page


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "Who pays for the Canada Job Grant in 2017-18"),
        ("fr", "Qui paie la Subvention canadienne pour l'emploi en 2017-18"),
    ],
)
def test_the_chart_is_an_svg_in_the_pages_language_with_a_text_alternative(
    demo: None, language: str, words: str
) -> None:
    client = analyst()
    page = text(client.get(page_path(language, PAGE) + "?scenario=budget-2013"))
    image = re.search(r'<img src="([^"]+)"[^>]*alt="([^"]+)"', page)
    assert image is not None and len(image.group(2)) > 80
    chart = client.get(image.group(1))
    assert chart.status_code == 200
    assert chart["Content-Type"] == "image/svg+xml"
    svg = text(chart)
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert words in svg
    if language == "fr":
        assert "Ontario (ON, provinciale)" in svg and "Colombie-Britannique" in svg
        assert " 460,7" in svg  # Ontario's bar: 115.2 + 115.2 + 115.2 + 115.2 millions


@pytest.mark.parametrize(
    "query",
    [
        "fiscal_year=1900-01",
        "scenario=northern-ontario-allowance",
        "policy=nonsense",
        "scenario=../../etc/passwd",
    ],
)
def test_bad_choices_are_named_and_nothing_runs(demo: None, query: str) -> None:
    client = analyst()
    response = client.get(page_path("en", PAGE) + "?" + query)
    assert response.status_code == 200
    page = text(response)
    assert "gcds-error-summary" in page
    assert 'id="funding-table"' not in page
    assert client.get(f"/en/analyst/scenarios/chart.svg?{query}").status_code == 400
