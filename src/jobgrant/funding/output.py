"""The `jobgrant funding` contract: JSON objects, an aligned text table, CSV rows.

Amounts leave as decimal strings with two decimals ("300000000.00"); the text table groups
digits for reading, in English or French.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from jobgrant.funding.model import MONEY_FIELDS, JurisdictionFigures, YearImpact
from jobgrant.rules.money import format_amount

COLUMNS = ("code", "delivery", "population", *MONEY_FIELDS, "trainees")
HEADINGS = {
    "en": {
        "code": "Code",
        "delivery": "Delivery",
        "population": "Population",
        "transfer": "Transfer",
        "grant": "Grant",
        "retained": "Retained",
        "matching": "Matching",
        "backfill": "Backfill",
        "provincial_cost": "Prov. cost",
        "employer": "Employer",
        "trainees": "Trainees",
        "total": "Total",
    },
    "fr": {
        "code": "Code",
        "delivery": "Prestation",
        "population": "Population",
        "transfer": "Transfert",
        "grant": "Subvention",
        "retained": "Conservé",
        "matching": "Contrepartie",
        "backfill": "Remplacement",
        "provincial_cost": "Coût prov.",
        "employer": "Employeur",
        "trainees": "Stagiaires",
        "total": "Total",
    },
}
DELIVERY_LABELS = {
    "en": {m: m for m in ("provincial", "federal-direct", "separate-agreement")},
    "fr": {
        "provincial": "provinciale",
        "federal-direct": "fédérale directe",
        "separate-agreement": "entente distincte",
    },
}
TITLE = {
    "en": "Canada Job Grant funding, {year}, policy {policy}, scenario {scenario}",
    "fr": "Financement de la Subvention canadienne pour l'emploi, {year}, politique {policy}, "
    "scénario {scenario}",
}
NOTE = {
    "en": "Dollars. Grant: federal money for the grant, diverted from the transfer. "
    "Prov. cost = matching + backfill.",
    "fr": "En dollars. Subvention : argent fédéral de la subvention, réaffecté à partir du "
    "transfert. Coût prov. = contrepartie + remplacement.",
}


def _figures_json(f: JurisdictionFigures) -> dict[str, Any]:
    result: dict[str, Any] = {"code": f.code, "delivery": f.delivery, "population": f.population}
    result.update({name: format_amount(getattr(f, name)) for name in MONEY_FIELDS})
    result["trainees"] = f.trainees
    return result


def year_json(impact: YearImpact) -> dict[str, Any]:
    """One fiscal year as the contract's JSON object."""
    totals = impact.totals()
    return {
        "policy": impact.policy,
        "scenario": impact.scenario,
        "fiscal_year": impact.fiscal_year,
        "jurisdictions": [_figures_json(f) for f in impact.jurisdictions],
        "totals": {
            **{name: format_amount(totals[name]) for name in MONEY_FIELDS},
            "trainees": totals["trainees"],
        },
    }


def grouped(cents: int, lang: str) -> str:
    """191951523.29 as "191,951,523.29" (en) or "191 951 523,29" (fr)."""
    dollars, remainder = divmod(cents, 100)
    if lang == "fr":
        return f"{dollars:,}".replace(",", "\u00a0") + f",{remainder:02d}"
    return f"{dollars:,}.{remainder:02d}"


def _count(value: int, lang: str) -> str:
    text = f"{value:,}"
    return text.replace(",", "\u00a0") if lang == "fr" else text


def _row(f: JurisdictionFigures, lang: str) -> list[str]:
    cells = [f.code, DELIVERY_LABELS[lang][f.delivery], _count(f.population, lang)]
    cells += [grouped(getattr(f, name), lang) for name in MONEY_FIELDS]
    return [*cells, _count(f.trainees, lang)]


def _totals_row(impact: YearImpact, lang: str) -> list[str]:
    totals = impact.totals()
    population = sum(f.population for f in impact.jurisdictions)
    cells = [HEADINGS[lang]["total"], "", _count(population, lang)]
    cells += [grouped(totals[name], lang) for name in MONEY_FIELDS]
    return [*cells, _count(totals["trainees"], lang)]


def year_text(impact: YearImpact, lang: str = "en") -> str:
    """An aligned table, one row per jurisdiction and a totals row, under a title line."""
    header = [HEADINGS[lang][name] for name in COLUMNS]
    body = [_row(f, lang) for f in impact.jurisdictions]
    rows = [header, *body, _totals_row(impact, lang)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]

    def line(row: list[str]) -> str:
        left = [row[i].ljust(widths[i]) for i in range(2)]
        right = [row[i].rjust(widths[i]) for i in range(2, len(row))]
        return "  ".join(left + right).rstrip()

    rule = "  ".join("-" * w for w in widths)
    title = TITLE[lang].format(
        year=impact.fiscal_year, policy=impact.policy, scenario=impact.scenario or "-"
    )
    table = [line(header), rule, *(line(r) for r in body), rule, line(rows[-1])]
    return "\n".join([title, NOTE[lang], "", *table])


CSV_COLUMNS = ("fiscal_year", "policy", "scenario", *COLUMNS)


def years_csv(impacts: list[YearImpact]) -> str:
    """One row per jurisdiction and fiscal year, then that year's totals row (code "total")."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for impact in impacts:
        data = year_json(impact)
        lead = [impact.fiscal_year, impact.policy, impact.scenario or ""]
        for row in data["jurisdictions"]:
            writer.writerow([*lead, *(row[name] for name in COLUMNS)])
        population = sum(f.population for f in impact.jurisdictions)
        totals = {"code": "total", "delivery": "", "population": population, **data["totals"]}
        writer.writerow([*lead, *(totals[name] for name in COLUMNS)])
    return buffer.getvalue()
