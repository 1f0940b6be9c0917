"""KpiReports built by hand for the report's tests, in the shape of outcomes/tables.py: one for
Ontario (a headline table with survey figures, firm sizes with suppressed and complementary
cells, a rate over nobody) and one for Canada (the jurisdictions and the federal-direct files
apart). The values that suppressed figures still carry (SECRET_*) must never appear in any
output."""

from __future__ import annotations

from jobgrant.service.outcomes.tables import (
    Column,
    Figure,
    KpiReport,
    Row,
    Suppression,
    Table,
    Unit,
)

# A suppressed figure keeps its numbers here on purpose: the outputs must not show them.
SECRET_COUNT = 7
SECRET_NUMERATOR = 3
SECRET_CENTS = 123_456_789


def people(value: int) -> Figure:
    return Figure(Unit.PEOPLE, value=value, people=value)


def files(value: int) -> Figure:
    return Figure(Unit.FILES, value=value)


def rate(numerator: int, denominator: int, response: Figure | None = None) -> Figure:
    return Figure(
        Unit.RATE,
        numerator=numerator,
        denominator=denominator,
        people=denominator,
        response=response,
    )


def cost(cents: int, people_count: int) -> Figure:
    return Figure(Unit.CENTS_PER, numerator=cents, denominator=people_count, people=people_count)


def hidden(unit: Unit, why: Suppression = Suppression.SMALL) -> Figure:
    if unit in (Unit.RATE, Unit.CENTS_PER, Unit.DAYS_PER):
        return Figure(
            unit,
            numerator=SECRET_NUMERATOR,
            denominator=SECRET_COUNT,
            people=SECRET_COUNT,
            suppressed=why,
        )
    return Figure(unit, value=SECRET_COUNT, people=SECRET_COUNT, suppressed=why)


COLUMNS = {
    "applications": Column(
        "applications",
        "Applications",
        "Demandes",
        Unit.FILES,
        "Applications received in the fiscal year.",
        "Demandes reçues pendant l'exercice.",
    ),
    "approvals": Column(
        "approvals",
        "Approvals",
        "Approbations",
        Unit.FILES,
        "Applications approved in the fiscal year.",
        "Demandes approuvées pendant l'exercice.",
    ),
    "participants": Column(
        "participants",
        "Participants",
        "Participants",
        Unit.PEOPLE,
        "Trainees in approved files.",
        "Stagiaires des dossiers approuvés.",
    ),
    "completion_rate": Column(
        "completion_rate",
        "Completion rate",
        "Taux d'achèvement",
        Unit.RATE,
        "Trainees who completed their training, of those reported on.",
        "Stagiaires ayant terminé leur formation, parmi ceux visés par un rapport.",
    ),
    "employed_end": Column(
        "employed_end",
        "Employed at the end",
        "En emploi à la fin",
        Unit.RATE,
        "Trainees employed when the training ended.",
        "Stagiaires en emploi à la fin de la formation.",
    ),
    "employed_12m": Column(
        "employed_12m",
        "Employed at 12 months",
        "En emploi après 12 mois",
        Unit.RATE,
        "Trainees who answered the 12-month follow-up and were employed.",
        "Stagiaires ayant répondu au suivi de 12 mois et en emploi.",
    ),
    "cost_per_trainee": Column(
        "cost_per_trainee",
        "Government cost per trainee",
        "Coût public par stagiaire",
        Unit.CENTS_PER,
        "Federal and provincial money paid, per trainee.",
        "Sommes fédérales et provinciales versées, par stagiaire.",
    ),
    "cost_per_job": Column(
        "cost_per_job",
        "Government cost per job outcome",
        "Coût public par emploi obtenu",
        Unit.CENTS_PER,
        "Federal and provincial money paid, per trainee employed at the end.",
        "Sommes fédérales et provinciales versées, par stagiaire en emploi à la fin.",
    ),
    "slippage": Column(
        "slippage",
        "Slippage",
        "Sommes non réclamées",
        Unit.CENTS,
        "Money committed and never claimed.",
        "Sommes engagées et jamais réclamées.",
    ),
}


def _columns(*ids: str) -> tuple[Column, ...]:
    return tuple(COLUMNS[i] for i in ids)


HEADLINE = _columns(
    "applications",
    "approvals",
    "participants",
    "completion_rate",
    "employed_end",
    "employed_12m",
    "cost_per_trainee",
    "slippage",
)
SIZES = (
    ("1-49", "1 to 49", "1 à 49"),
    ("50-99", "50 to 99", "50 à 99"),
    ("100-499", "100 to 499", "100 à 499"),
    ("500+", "500 or more", "500 ou plus"),
)


def ontario() -> KpiReport:
    headline = Table(
        "headline",
        "Headline figures",
        "Chiffres clés",
        HEADLINE,
        (
            Row(
                "total",
                "Ontario",
                "Ontario",
                {
                    "applications": files(612),
                    "approvals": files(530),
                    "participants": people(1_204),
                    "completion_rate": rate(1_032, 1_204),
                    "employed_end": rate(845, 1_032),
                    "employed_12m": rate(402, 517, response=rate(517, 1_032)),
                    "cost_per_trainee": cost(1_403_112_345, 1_204),
                    "slippage": Figure(Unit.CENTS, value=98_765_432),
                },
            ),
        ),
        note_en="Files approved in the fiscal year.",
        note_fr="Dossiers approuvés pendant l'exercice.",
    )
    by_size = Table(
        "by-firm-size",
        "Outcomes by firm size",
        "Résultats selon la taille de l'entreprise",
        _columns("participants", "completion_rate", "employed_end", "employed_12m"),
        (
            Row(
                "1-49",
                "1 to 49",
                "1 à 49",
                {
                    "participants": people(640),
                    "completion_rate": rate(560, 640),
                    "employed_end": rate(450, 560),
                    "employed_12m": rate(210, 270, rate(270, 560)),
                },
            ),
            Row(
                "50-99",
                "50 to 99",
                "50 à 99",
                {
                    "participants": people(310),
                    "completion_rate": rate(262, 310),
                    "employed_end": rate(220, 262),
                    "employed_12m": rate(111, 140, rate(140, 262)),
                },
            ),
            Row(
                "100-499",
                "100 to 499",
                "100 à 499",
                {
                    "participants": people(247),
                    "completion_rate": rate(205, 247),
                    "employed_end": rate(172, 205),
                    "employed_12m": hidden(Unit.RATE, Suppression.COMPLEMENTARY),
                },
            ),
            Row(
                "500+",
                "500 or more",
                "500 ou plus",
                {
                    "participants": hidden(Unit.PEOPLE),
                    "completion_rate": hidden(Unit.RATE),
                    "employed_end": hidden(Unit.RATE),
                    "employed_12m": hidden(Unit.RATE),
                },
            ),
            Row(
                "total",
                "All sizes",
                "Toutes les tailles",
                {
                    "participants": people(1_204),
                    "completion_rate": rate(1_032, 1_204),
                    "employed_end": rate(845, 1_032),
                    "employed_12m": rate(402, 517, rate(517, 1_032)),
                },
            ),
        ),
    )
    by_gender = Table(
        "by-gender",
        "By gender, where answered",
        "Selon le genre, s'il a été déclaré",
        _columns("participants", "completion_rate"),
        (
            Row(
                "woman",
                "Women",
                "Femmes",
                {"participants": people(503), "completion_rate": rate(440, 503)},
            ),
            Row(
                "man",
                "Men",
                "Hommes",
                {"participants": people(689), "completion_rate": rate(587, 689)},
            ),
            Row(
                "another",
                "Another gender",
                "Autre genre",
                {"participants": hidden(Unit.PEOPLE), "completion_rate": hidden(Unit.RATE)},
            ),
            Row(
                "none",
                "Not answered",
                "Sans réponse",
                {
                    "participants": Figure(Unit.PEOPLE, value=0, people=0),
                    "completion_rate": rate(0, 0),
                },
            ),
        ),
    )
    return KpiReport("ON", "2015-16", (headline, by_size, by_gender))


def national() -> KpiReport:
    on = ontario()
    places = (
        ("NL", "Newfoundland and Labrador", "Terre-Neuve-et-Labrador", 41_000_000, 38),
        ("ON", "Ontario", "Ontario", 1_403_112_345, 845),
        ("BC", "British Columbia", "Colombie-Britannique", 512_000_000, 301),
        ("NU", "Nunavut", "Nunavut", 0, 0),
    )
    columns = _columns("participants", "employed_end", "cost_per_job")
    rows = [
        Row(
            code,
            en,
            fr,
            {
                "participants": people(jobs * 2) if jobs >= 10 else hidden(Unit.PEOPLE),
                "employed_end": rate(jobs, jobs * 2) if jobs >= 10 else hidden(Unit.RATE),
                "cost_per_job": cost(cents, jobs) if jobs >= 10 else hidden(Unit.CENTS_PER),
            },
        )
        for code, en, fr, cents, jobs in places
    ]
    rows.append(
        Row(
            "federal-direct",
            "Federal-direct files",
            "Dossiers fédéraux directs",
            {
                "participants": people(64),
                "employed_end": rate(40, 64),
                "cost_per_job": cost(30_000_000, 40),
            },
        )
    )
    by_place = Table(
        "by-jurisdiction",
        "By jurisdiction",
        "Selon la province ou le territoire",
        columns,
        tuple(rows),
        note_en="The federal-direct files are those Employment and Social "
        "Development Canada delivers itself; they are not in any province's total.",
        note_fr="Les dossiers fédéraux directs sont ceux qu'Emploi et Développement "
        "social Canada gère lui-même; ils ne figurent dans le total d'aucune province.",
    )
    federal = Table(
        "federal-direct",
        "Federal-direct files",
        "Dossiers fédéraux directs",
        _columns("participants", "completion_rate", "employed_end"),
        (
            Row(
                "total",
                "Federal-direct files",
                "Dossiers fédéraux directs",
                {
                    "participants": people(64),
                    "completion_rate": rate(58, 64),
                    "employed_end": rate(40, 58),
                },
            ),
        ),
    )
    return KpiReport(
        None,
        "2015-16",
        (on.tables[0], on.tables[1], by_place, federal),
        notes=("Quebec delivers its own program under a separate agreement.",),
    )


def _largest(column: Column) -> Figure:
    """A figure of `column` as wide as real ones get: hundreds of millions of dollars, tens of
    thousands of people, rates with their response rate."""
    if column.unit is Unit.RATE:
        return rate(41_234, 53_017, response=rate(53_017, 61_234))
    if column.unit is Unit.CENTS_PER:
        return cost(987_654_321_09, 41_234)
    if column.unit is Unit.DAYS_PER:
        return Figure(Unit.DAYS_PER, numerator=1_234_567, denominator=9_876, people=9_876)
    if column.unit is Unit.CENTS:
        return Figure(Unit.CENTS, value=987_654_321_09)
    return Figure(column.unit, value=1_234_567, people=1_234_567)


def widest(jurisdiction: str | None) -> KpiReport:
    """A report with the real KPI columns (outcomes.kpi_columns) and figures as wide as they
    get: Ontario's headline table, or Canada's with its row per jurisdiction."""
    from jobgrant.service.outcomes import kpi_columns as cols

    def row(key: str) -> Row:
        label = (
            ("Federal-direct files", "Dossiers en prestation fédérale directe")
            if key == "federal-direct"
            else cols.jurisdiction_label(key)
        )
        return Row(key, *label, {c.id: _largest(c) for c in cols.HEADLINE_COLUMNS})

    keys = ["ON"] if jurisdiction else [*cols.JURISDICTION_ORDER, "federal-direct"]
    headline = Table(
        "headline",
        "Key performance indicators",
        "Indicateurs clés de rendement",
        cols.HEADLINE_COLUMNS,
        (row(jurisdiction or "total"),),
    )
    by_place = Table(
        "by-jurisdiction",
        "By jurisdiction",
        "Selon la province ou le territoire",
        cols.HEADLINE_COLUMNS,
        tuple(row(key) for key in keys),
    )
    tables = (headline,) if jurisdiction else (headline, by_place)
    return KpiReport(jurisdiction, "2026-27", tables)
