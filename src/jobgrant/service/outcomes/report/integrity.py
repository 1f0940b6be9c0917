"""The annual report's count of decisions taken against an intake's ranking.

Read from the files on the page (not from the KPI cells the PDF and the open data are made
from): a count of decisions, each with its reason and two signatories in the report of
decisions out of rank, never a figure about people, so never suppressed.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from jobgrant.service.grants.models.ranking import OverrideState, RankOverride
from jobgrant.service.outcomes.report import cells
from jobgrant.service.outcomes.tables import KpiReport


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
