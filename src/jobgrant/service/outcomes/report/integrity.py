"""The annual report's count of decisions taken against an intake's ranking.

Read from the files (not from the KPI cells the other tables are made from): the sentence on
the page, and the table `out-of-rank` the PDF, the CSV files and the open data carry, one row
per intake of the year that was ranked, the decisions against its ranking counted by what they
did (approved below the cut-off, denied above it). Counts of files, never a figure about
people, a name or a reason: the reasons and the two signatories are in the report of decisions
out of rank, for those who may read it. So never suppressed.
"""

from __future__ import annotations

from dataclasses import replace

from django.db.models import Count, Q
from django.utils.translation import gettext as _

from jobgrant.service.grants.models.applications import Intake
from jobgrant.service.grants.models.ranking import OverrideDecision, OverrideState, RankOverride
from jobgrant.service.outcomes.report import cells
from jobgrant.service.outcomes.tables import Column, Figure, KpiReport, Row, Table, Unit

TABLE = "out-of-rank"
RANKED = Column(
    "ranked_files",
    "Files ranked",
    "Dossiers classés",
    Unit.FILES,
    "Applications the intake ranked when it closed.",
    "Demandes que l'appel de demandes a classées à sa fermeture.",
)
APPROVED = Column(
    "approved_below_cut_off",
    "Approved below the cut-off",
    "Approuvées sous le seuil",
    Unit.FILES,
    "Applications approved although ranked below the point where the intake's budget runs out,"
    " each with an officer's written reason and a program manager's sign-off.",
    "Demandes approuvées bien que classées sous le point où le budget de l'appel de demandes est"
    " épuisé, chacune motivée par écrit par un agent et approuvée par un gestionnaire de"
    " programme.",
)
DENIED = Column(
    "denied_above_cut_off",
    "Denied above the cut-off",
    "Refusées au-dessus du seuil",
    Unit.FILES,
    "Applications denied although ranked within the intake's budget, each with an officer's"
    " written reason and a program manager's sign-off.",
    "Demandes refusées bien que classées dans les limites du budget de l'appel de demandes,"
    " chacune motivée par écrit par un agent et approuvée par un gestionnaire de programme.",
)
AGAINST = Column(
    "decisions_out_of_rank",
    "Decisions against the ranking",
    "Décisions contraires au classement",
    Unit.FILES,
    "Approved below the cut-off plus denied above it.",
    "Approuvées sous le seuil plus refusées au-dessus du seuil.",
)
COLUMNS = (RANKED, APPROVED, DENIED, AGAINST)


def out_of_rank_sentence(report: KpiReport) -> str:
    """How many decisions of the report's year and place went against an intake's ranking."""
    taken = RankOverride.objects.filter(
        state=OverrideState.APPLIED, application__fiscal_year=report.fiscal_year
    )
    if report.jurisdiction is not None:
        taken = taken.filter(application__jurisdiction=report.jurisdiction)
    count = taken.count()
    if count == 0:
        return _("No decision of the year went against an intake's ranking.")
    return _(
        "Decisions of the year taken against an intake's ranking, each with a written reason "
        "and a second person's sign-off: %(count)s."
    ) % {"count": cells.whole(count)}


def out_of_rank_table(jurisdiction: str | None, fiscal_year: str) -> Table:
    """The intakes of the year (and place) that were ranked, each with its files ranked and the
    decisions taken against its ranking, then the total."""
    intakes = Intake.objects.filter(
        ranked_at__isnull=False, stream__program__fiscal_year=fiscal_year
    )
    if jurisdiction is not None:
        intakes = intakes.filter(stream__program__jurisdiction=jurisdiction)
    applied = Q(applications__rank_overrides__state=OverrideState.APPLIED)
    counted = intakes.annotate(
        approved=Count(
            "applications__rank_overrides",
            filter=applied & Q(applications__rank_overrides__decision=OverrideDecision.APPROVE),
        ),
        denied=Count(
            "applications__rank_overrides",
            filter=applied & Q(applications__rank_overrides__decision=OverrideDecision.DENY),
        ),
    ).select_related("stream__program")
    ranked = dict(intakes.annotate(files=Count("ranks", distinct=True)).values_list("pk", "files"))
    rows = [
        _row(f"intake-{i.pk}", *_labels(i), ranked.get(i.pk, 0), i.approved, i.denied)
        for i in counted.order_by("stream__program__jurisdiction", "opens_on", "pk")
    ]
    rows.append(
        _row(
            "total",
            "Total",
            "Total",
            sum(ranked.values()),
            sum(i.approved for i in counted),
            sum(i.denied for i in counted),
        )
    )
    return Table(
        TABLE,
        "Decisions against an intake's ranking",
        "Décisions contraires au classement d'un appel de demandes",
        COLUMNS,
        tuple(rows),
        note_en="Counts of files, counted from the records when the report is made. The reason"
        " of each decision and its two signatories are in the report of decisions out of rank.",
        note_fr="Nombres de dossiers, comptés dans les dossiers au moment où le rapport est"
        " produit. Le motif de chaque décision et ses deux signataires figurent dans le rapport"
        " des décisions contraires au classement.",
    )


def _labels(intake: Intake) -> tuple[str, str]:
    place = intake.stream.program.jurisdiction
    english = intake.name_en or f"Intake {intake.pk}"
    french = intake.name_fr or f"Appel de demandes {intake.pk}"
    return f"{place}: {english}", f"{place}\u00a0: {french}"


def _row(key: str, english: str, french: str, ranked: int, approved: int, denied: int) -> Row:
    counts = (ranked, approved, denied, approved + denied)
    figures = {c.id: Figure(Unit.FILES, value=n) for c, n in zip(COLUMNS, counts, strict=True)}
    return Row(key, english, french, figures)


def with_out_of_rank(report: KpiReport) -> KpiReport:
    """`report` with the `out-of-rank` table of its place and year after its own tables."""
    table = out_of_rank_table(report.jurisdiction, report.fiscal_year)
    return replace(report, tables=(*report.tables, table))
