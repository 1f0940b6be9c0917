"""GET /api/v1/kpis: who may read which figures, suppressed or not, and bad parameters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.personas import (
    ANALYST,
    AUDITOR,
    EMPLOYER,
    FEDERAL_OFFICER,
    FINANCE,
    OFFICER,
    OTHER_JURISDICTION_OFFICER,
    Persona,
)
from tests.service.outcomes import kpi_fixture as fx
from tests.service.outcomes.test_kpis import nova_scotia

from jobgrant.service.audit.models import AuditEntry

Api = Callable[[Persona | None], Any]


def headline(body: dict[str, Any]) -> dict[str, Any]:
    table = next(t for t in body["tables"] if t["id"] == "headline")
    return table["rows"][0]["figures"]


def test_suppressed_for_an_analyst_whole_for_an_auditor(as_user: Api) -> None:
    """The Nova Scotia fixture (test_kpis.nova_scotia): the 3-month figure (9 people answered)
    is hidden for the analyst, with no number left; the auditor sees 6 / 9, response 9 / 12."""
    nova_scotia()
    answer = as_user(ANALYST).get("/kpis", jurisdiction="NS", fiscal_year=fx.FISCAL_YEAR)
    assert answer.status_code == 200
    body = answer.json()
    assert body["suppressed"] is True and body["threshold"] == 10
    three = headline(body)["employed_3_months"]
    assert three["suppressed"] == "small"
    assert three["numerator"] is None and three["denominator"] is None
    assert three["response"] == {
        "unit": "rate",
        "value": None,
        "numerator": None,
        "denominator": None,
        "people": None,
        "suppressed": "small",
        "response": None,
    }
    assert headline(body)["cost_government"]["value"] == "1400.00"
    audited = as_user(AUDITOR).get("/kpis", jurisdiction="NS", fiscal_year=fx.FISCAL_YEAR).json()
    three = headline(audited)["employed_3_months"]
    assert audited["suppressed"] is False
    assert (three["numerator"], three["denominator"], three["suppressed"]) == (6, 9, "")
    assert (three["response"]["numerator"], three["response"]["denominator"]) == (9, 12)


def test_canada_for_analysts_finance_and_federal_officers(as_user: Api) -> None:
    nova_scotia()
    for reader in (ANALYST, FINANCE, FEDERAL_OFFICER):
        answer = as_user(reader).get("/kpis", fiscal_year=fx.FISCAL_YEAR)
        assert answer.status_code == 200, reader.username
        body = answer.json()
        assert body["jurisdiction"] is None
        assert [t["id"] for t in body["tables"]][:2] == ["headline", "by-jurisdiction"]
        assert headline(body)["participants"]["value"] == 17
    empty = as_user(ANALYST).get("/kpis", jurisdiction="", fiscal_year=fx.FISCAL_YEAR)
    assert empty.json()["jurisdiction"] is None


def test_officers_read_their_own_jurisdiction_only(as_user: Api) -> None:
    assert (
        as_user(OFFICER).get("/kpis", jurisdiction="ON", fiscal_year="2026-27").status_code == 200
    )
    for jurisdiction in ("NS", None):
        params = {
            "fiscal_year": "2026-27",
            **({"jurisdiction": jurisdiction} if jurisdiction else {}),
        }
        answer = as_user(OFFICER).get("/kpis", **params)
        assert answer.status_code == 403
        assert answer.json()["code"] == "NOT_YOUR_JURISDICTION"
    answer = as_user(OTHER_JURISDICTION_OFFICER).get(
        "/kpis", jurisdiction="ON", fiscal_year="2026-27"
    )
    assert answer.status_code == 403


def test_employers_are_refused_and_the_refusal_audited(as_user: Api) -> None:
    answer = as_user(EMPLOYER).get("/kpis", jurisdiction="ON", fiscal_year="2026-27")
    assert answer.status_code == 403
    assert answer.json()["code"] == "ROLE_NOT_ALLOWED"
    entry = AuditEntry.objects.filter(action="refused.read_kpis").get()
    assert entry.actor == EMPLOYER.username
    assert as_user(None).get("/kpis", fiscal_year="2026-27").status_code == 401


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"jurisdiction": "ON"}, "fiscal_year"),
        ({"fiscal_year": "2026"}, "fiscal_year"),
        ({"fiscal_year": "2026-27", "jurisdiction": "XX"}, "jurisdiction"),
    ],
)
def test_bad_parameters_name_the_field(as_user: Api, params: dict[str, str], field: str) -> None:
    answer = as_user(ANALYST).get("/kpis", **params)
    assert answer.status_code == 422
    assert answer["Content-Type"] == "application/problem+json"
    body = answer.json()
    assert [error["field"] for error in body["errors"]] == [field]
    assert body["errors"][0]["message_fr"]


def test_the_answer_says_as_of_when_the_records_were_read(as_user: Api) -> None:
    """`as_of` is the stored cells' time, the same for a second reader (nothing recomputed)."""
    import datetime as dt

    from jobgrant.service.grants.models.kpi import KpiSnapshot

    nova_scotia()
    first = as_user(ANALYST).get("/kpis", jurisdiction="NS", fiscal_year=fx.FISCAL_YEAR).json()
    stored = KpiSnapshot.objects.get(jurisdiction="NS", fiscal_year=fx.FISCAL_YEAR)
    assert dt.datetime.fromisoformat(first["as_of"]) == stored.computed_at
    second = as_user(AUDITOR).get("/kpis", jurisdiction="NS", fiscal_year=fx.FISCAL_YEAR).json()
    assert second["as_of"] == first["as_of"]


MONEY = r"^-?\d+\.\d{2}$"


def figures_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for table in body["tables"]:
        for row in table["rows"]:
            for figure in row["figures"].values():
                found.append(figure)
                if figure["response"]:
                    found.append(figure["response"])
    return found


def test_every_figure_gives_its_value_beside_its_terms(as_user: Api) -> None:
    """A rate's value is its decimal, money a decimal string of dollars (as everywhere else in
    the API), an average its days; the numerator and denominator stay beside it. Suppressed
    figures keep no number at all."""
    import re
    from decimal import Decimal

    nova_scotia()
    audited = as_user(AUDITOR).get("/kpis", jurisdiction="NS", fiscal_year=fx.FISCAL_YEAR).json()
    top = headline(audited)
    assert top["cost_government"] == {**top["cost_government"], "unit": "money", "value": "1400.00"}
    three = top["employed_3_months"]
    assert (three["unit"], three["value"], three["numerator"], three["denominator"]) == (
        "rate",
        "0.6667",
        6,
        9,
    )
    assert three["response"]["value"] == "0.7500"
    units = {f["unit"] for f in figures_of(audited)}
    assert "cents" not in units and "cents-per" not in units
    for figure in figures_of(audited):
        unit, value = figure["unit"], figure["value"]
        if unit in ("rate", "money-per", "days-per") and figure["denominator"] == 0:
            assert value is None, figure
        elif unit == "rate":
            exact = Decimal(figure["numerator"]) / Decimal(figure["denominator"])
            assert value == str(exact.quantize(Decimal("0.0001"))), figure
        elif unit == "money":
            assert re.match(MONEY, value), figure
        elif unit == "money-per":
            assert re.match(MONEY, figure["numerator"]) and re.match(MONEY, value), figure
            exact = Decimal(figure["numerator"]) / figure["denominator"]
            assert abs(Decimal(value) - exact) <= Decimal("0.005"), figure
        elif unit == "days-per":
            exact = Decimal(figure["numerator"]) / figure["denominator"]
            assert value == str(exact.quantize(Decimal("0.1"))), figure
        elif unit == "points":  # percentage points, or none when the groups are too small
            assert value is None or re.match(r"-?\d+\.\d\d$", value), figure
        else:
            assert isinstance(value, int), figure
    seen = as_user(ANALYST).get("/kpis", jurisdiction="NS", fiscal_year=fx.FISCAL_YEAR).json()
    for figure in figures_of(seen):
        if figure["suppressed"]:
            assert (figure["value"], figure["numerator"], figure["denominator"]) == (None,) * 3


def test_the_openapi_document_declares_each_figure_s_value() -> None:
    from jobgrant.service.api.api import api

    schema = api.get_openapi_schema()["components"]["schemas"]["FigureOut"]
    assert set(schema["properties"]["unit"]["enum"]) == {
        "people",
        "files",
        "money",
        "days",
        "rate",
        "money-per",
        "days-per",
        "minutes",
        "count",
        "points",
    }
    value = schema["properties"]["value"]
    assert {"integer", "string"} <= {t.get("type") for t in value["anyOf"]}
    assert "decimal" in value["description"] and "dollars" in value["description"]
