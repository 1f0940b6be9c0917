"""Change requests: what an employer asks to change in an agreement, and the decision on it.

One row per request. `diff` holds exactly what changes, field by field, before and after (as
the agreement's request has it: `training.start_date`, `trainees[1]`, `trainees[0].costs.tuition`);
`figures` the government and employer money before and after, as the rules kernel computed them
when the request was made and again when it was decided. The states and their transitions are in
`change_workflow`; every change of state is in `change_actions`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy, pgettext_lazy

__all__ = ["ChangeKind", "ChangeRequest", "ChangeState"]


class ChangeKind(models.TextChoices):
    DATES = "dates", gettext_lazy("Training dates")
    PROVIDER = "provider", gettext_lazy("Training provider")
    TRAINEES = "trainees", gettext_lazy("Trainees")
    COST_REALLOCATION = "cost_reallocation", gettext_lazy("Moving money between cost lines")


class ChangeState(models.TextChoices):
    SUBMITTED = "submitted", pgettext_lazy("change request state", "Submitted")
    APPROVED = "approved", pgettext_lazy("change request state", "Approved")
    DENIED = "denied", pgettext_lazy("change request state", "Denied")


class ChangeRequest(models.Model):
    agreement = models.ForeignKey(
        "grants.Agreement", on_delete=models.PROTECT, related_name="change_requests"
    )
    kind = models.CharField(max_length=20, choices=ChangeKind.choices)
    state = models.CharField(
        max_length=16, choices=ChangeState.choices, default=ChangeState.SUBMITTED
    )
    body = models.JSONField(help_text="The change as asked for (the API's body, without kind).")
    diff = models.JSONField(help_text="[{field, before, after}] of exactly what changes.")
    figures = models.JSONField(help_text="The money before and after, in cents, per funder.")
    request = models.JSONField(
        help_text="The agreement's request (the quote input) as the change makes it."
    )
    note = models.TextField(blank=True, help_text="Why the employer asks for the change.")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    # Null for a date change the service approved by itself (self-service).
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(blank=True, help_text="The decision's reason, read by the employer.")
    self_service = models.BooleanField(default=False)
    needs_acceptance = models.BooleanField(
        default=False, help_text="Whether approving it put the agreement back to acceptance."
    )
    version = models.ForeignKey(
        "grants.AgreementVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The agreement version the approval made.",
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            # One open change request per agreement at a time, also under concurrent requests.
            models.UniqueConstraint(
                fields=["agreement"],
                condition=Q(state="submitted"),
                name="one_open_change_per_agreement",
            ),
            # Separation of duties, as a backstop to the check in change_actions.
            models.CheckConstraint(
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=F("requested_by")),
                name="change_decider_is_not_requester",
            ),
            models.CheckConstraint(
                condition=Q(state="submitted") | Q(decided_at__isnull=False),
                name="decided_change_has_a_date",
            ),
        ]
