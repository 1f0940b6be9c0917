"""The KPIs' stored cells: per jurisdiction and fiscal year, what the KPI statements return
(`outcomes.kpis.Cells`), unsuppressed, with when they were computed and under which definitions.

The pages, the API and the reports add these cells up and suppress at read time, so a page reads
one row where the statements read every participant and follow-up of the year. The worker keeps
them fresh (`outcomes.snapshots`); a snapshot of other definitions than the code's is never read.
ADR 0032.
"""

from __future__ import annotations

from django.db import models

from jobgrant.service.choices import JURISDICTION_CHOICES

__all__ = ["KpiSnapshot"]


class KpiSnapshot(models.Model):
    jurisdiction = models.CharField(max_length=2, choices=JURISDICTION_CHOICES)
    fiscal_year = models.CharField(max_length=7)
    #: The definitions' version (a digest of the statements and the cells' dimensions).
    definitions = models.CharField(max_length=64)
    computed_at = models.DateTimeField()
    #: How long the statements took (wall seconds), shown beside a pending refresh.
    seconds = models.FloatField(default=0.0)
    #: {"people": [[key..., sums...], ...], "files": [[jurisdiction, delivery, {sums}], ...]}
    cells = models.JSONField()
    #: When a refresh was last handed to the worker (by the schedule or an analyst); pending
    #: while later than computed_at.
    refresh_requested_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["jurisdiction", "fiscal_year"], name="kpi_snapshot_per_scope"
            )
        ]

    @property
    def refresh_pending(self) -> bool:
        requested = self.refresh_requested_at
        return requested is not None and requested > self.computed_at
