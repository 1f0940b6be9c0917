"""A simulation run an analyst asked for, and its draws' figures as the worker stores them.

A run is queued when asked for, running once the worker has stored its first draws, and done
when every draw is stored (or failed, with the reason). The figures are stored a slice of draws
at a time (SimulationSlice: the draws' array as numpy writes it), so that the page can show how
far a run has gone and the worker never holds a run longer than a slice (ADR 0021).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import pgettext_lazy


class RunState(models.TextChoices):
    QUEUED = "queued", pgettext_lazy("simulation state", "Waiting for the worker")
    RUNNING = "running", pgettext_lazy("simulation state", "Running")
    DONE = "done", pgettext_lazy("simulation state", "Finished")
    FAILED = "failed", pgettext_lazy("simulation state", "Failed")


class SimulationRun(models.Model):
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="simulation_runs"
    )
    scenario = models.CharField(max_length=100)  # a file of scenarios/, without .yaml
    first_year = models.CharField(max_length=7)
    last_year = models.CharField(max_length=7)
    draws = models.PositiveIntegerField()
    seed = models.PositiveIntegerField()
    state = models.CharField(max_length=8, choices=RunState.choices, default=RunState.QUEUED)
    draws_done = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=[state.value for state in RunState]),
                name="simulation_run_state_known",
            ),
            models.CheckConstraint(
                condition=Q(draws__gte=1) & Q(draws_done__lte=models.F("draws")),
                name="simulation_run_draws_counted",
            ),
        ]
        indexes = [models.Index(fields=["requested_by", "-created_at"], name="simulation_runs_of")]

    @property
    def finished(self) -> bool:
        return self.state in (RunState.DONE, RunState.FAILED)


class SimulationSlice(models.Model):
    run = models.ForeignKey(SimulationRun, on_delete=models.CASCADE, related_name="slices")
    first_draw = models.PositiveIntegerField()
    count = models.PositiveIntegerField()
    figures = models.BinaryField()  # numpy .npy: float64 (count, years, places, measures)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "first_draw"], name="one_slice_per_first_draw")
        ]
