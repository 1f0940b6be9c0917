"""Programs, streams and intakes; applications and their history."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy, pgettext_lazy

from jobgrant.service.choices import JURISDICTION_CHOICES, StreamCode


class Delivery(models.TextChoices):
    """Who delivers the grant in a jurisdiction and year (`funding` delivery modes)."""

    PROVINCIAL = "provincial", gettext_lazy("Delivered by the province or territory")
    FEDERAL_DIRECT = (
        "federal-direct",
        gettext_lazy("Delivered directly by the Government of Canada"),
    )
    SEPARATE_AGREEMENT = "separate-agreement", gettext_lazy("Separate agreement, no grant")


class Counterfactual(models.TextChoices):
    """The employer's answer to "Would this training have happened without the grant?", asked
    at application and again in the completion report (net outcomes: the share declared as
    would have happened anyway). Blank: not answered."""

    YES = "yes", pgettext_lazy("counterfactual", "Yes, as planned")
    YES_LATER = "yes-later", pgettext_lazy("counterfactual", "Yes, but later")
    YES_SMALLER = "yes-smaller", pgettext_lazy("counterfactual", "Yes, but smaller")
    NO = "no", pgettext_lazy("counterfactual", "No")


class WageBand(models.TextChoices):
    """A named trainee's usual hourly wage before the training, by band (the baseline asked at
    application: a band, not a figure, since the employer answers before the trainee does)."""

    UNDER_20 = "under-20", gettext_lazy("Less than $20 an hour")
    FROM_20 = "20-30", gettext_lazy("$20 to less than $30 an hour")
    FROM_30 = "30-40", gettext_lazy("$30 to less than $40 an hour")
    FROM_40 = "40-plus", gettext_lazy("$40 an hour or more")


class Program(models.Model):
    """The grant in one jurisdiction for one fiscal year, under one policy and delivery mode."""

    jurisdiction = models.CharField(max_length=2, choices=JURISDICTION_CHOICES)
    fiscal_year = models.CharField(max_length=7)
    policy = models.CharField(max_length=200)
    delivery = models.CharField(max_length=20, choices=Delivery.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["jurisdiction", "fiscal_year"], name="one_program_per_year"
            )
        ]


class Selection(models.TextChoices):
    """How a stream chooses among the applications an intake receives."""

    FIRST_COME = "first_come", gettext_lazy("First come, first served")
    RANKED = "ranked", gettext_lazy("Ranked when the intake closes")


class Stream(models.Model):
    program = models.ForeignKey(Program, on_delete=models.PROTECT, related_name="streams")
    code = models.CharField(max_length=32, choices=StreamCode.choices, default=StreamCode.CJG)
    name_en = models.CharField(max_length=200)
    name_fr = models.CharField(max_length=200)
    # A default in the database too: servers of the release before insert streams without them.
    selection = models.CharField(
        max_length=16,
        choices=Selection.choices,
        default=Selection.FIRST_COME,
        db_default=Selection.FIRST_COME,
    )
    scoring = models.CharField(
        max_length=100,
        blank=True,
        default="",
        db_default="",
        help_text="The rules kernel's scoring criteria for a ranked stream; blank for first come.",
    )


class IntakeState(models.TextChoices):
    """An intake's states: the worker opens and closes it at its dates; a ranked stream's
    intake is ranked once closed."""

    SCHEDULED = "scheduled", pgettext_lazy("intake state", "Scheduled")
    OPEN = "open", pgettext_lazy("intake state", "Open")
    CLOSED = "closed", pgettext_lazy("intake state", "Closed")
    RANKED = "ranked", pgettext_lazy("intake state", "Ranked")


class Intake(models.Model):
    """A window in which a stream receives applications, with its own budget per funder."""

    stream = models.ForeignKey(Stream, on_delete=models.PROTECT, related_name="intakes")
    name_en = models.CharField(max_length=200, blank=True, default="", db_default="")
    name_fr = models.CharField(max_length=200, blank=True, default="", db_default="")
    opens_on = models.DateField()
    closes_on = models.DateField()
    state = models.CharField(
        max_length=16,
        choices=IntakeState.choices,
        default=IntakeState.OPEN,
        db_default=IntakeState.OPEN,
    )
    # What the intake may commit, per funder; zero: the whole budget account (first come).
    federal_budget_cents = models.BigIntegerField(default=0, db_default=0)
    provincial_budget_cents = models.BigIntegerField(default=0, db_default=0)
    ranked_at = models.DateTimeField(null=True, blank=True)
    # When it closed, at its date or early (Ontario suspended its intake in April 2015), and
    # why when early: a program manager's reason.
    closed_on = models.DateField(null=True, blank=True)
    closing_reason = models.TextField(blank=True, default="", db_default="")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(closes_on__gte=F("opens_on")), name="intake_closes_after_it_opens"
            ),
            models.CheckConstraint(
                condition=Q(federal_budget_cents__gte=0) & Q(provincial_budget_cents__gte=0),
                name="intake_budget_not_negative",
            ),
        ]


class State(models.TextChoices):
    """An application's states (the transitions between them are in `workflow`)."""

    DRAFT = "draft", pgettext_lazy("application state", "Draft")
    SUBMITTED = "submitted", pgettext_lazy("application state", "Submitted")
    RECOMMENDED = "recommended", pgettext_lazy("application state", "Recommended")
    APPROVED = "approved", pgettext_lazy("application state", "Approved")
    DENIED = "denied", pgettext_lazy("application state", "Denied")
    WITHDRAWN = "withdrawn", pgettext_lazy("application state", "Withdrawn")


class Application(models.Model):
    stream = models.ForeignKey(Stream, on_delete=models.PROTECT, related_name="applications")
    # The intake whose window held the application date; null for files made before intakes.
    # Not indexed alone: `application_by_intake` starts with it.
    intake = models.ForeignKey(
        Intake,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="applications",
        db_index=False,
    )
    state = models.CharField(max_length=16, choices=State.choices, default=State.DRAFT)
    jurisdiction = models.CharField(max_length=2, choices=JURISDICTION_CHOICES)
    fiscal_year = models.CharField(max_length=7)
    delivery = models.CharField(max_length=20, choices=Delivery.choices)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    received_on = models.DateField(help_text="The application date: when the server received it.")
    request = models.JSONField(help_text="The quote input, as received (employers by reference).")
    policy = models.CharField(max_length=200)
    policy_version = models.CharField(max_length=64)
    quote = models.JSONField()
    explanation = models.JSONField()
    eligible = models.BooleanField()
    federal_cents = models.BigIntegerField()
    provincial_cents = models.BigIntegerField()
    employer_cents = models.BigIntegerField()
    recommended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decision_reason = models.TextField(blank=True)
    counterfactual = models.CharField(
        max_length=16,
        choices=Counterfactual.choices,
        blank=True,
        default="",
        db_default="",
        help_text="Would the training have happened without the grant (request's answer).",
    )
    # PROTECT, as for the recommender and the decider: officers are deactivated, not deleted,
    # and SET_NULL would drop an assignment without the audit entry every change has.
    assigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The officer handling the file, if one took it (grants.assignment_actions).",
    )
    decide_by = models.DateField(
        null=True,
        blank=True,
        help_text="The last day of the decision's service standard, set at submission"
        " (grants.applications.service_standards): what the officer's queue sorts by.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        # The KPIs (outcomes.kpi_sql) read a fiscal year's files, of a jurisdiction or all.
        indexes = [
            models.Index(fields=["fiscal_year", "jurisdiction"], name="application_by_year"),
            # An intake's files: its ranking, its flags, its report of decisions out of rank.
            models.Index(fields=["intake", "state"], name="application_by_intake"),
        ]
        constraints = [
            # Separation of duties, as a backstop to the check in actions: nobody approves
            # what they recommended.
            models.CheckConstraint(
                condition=~Q(state="approved") | ~Q(decided_by=F("recommended_by")),
                name="approver_is_not_recommender",
            ),
        ]


class ApplicationEmployer(models.Model):
    application = models.ForeignKey(Application, on_delete=models.CASCADE, related_name="employers")
    employer = models.ForeignKey("registry.Employer", on_delete=models.PROTECT, related_name="+")
    reference = models.CharField(max_length=100, help_text="The id trainees use as employer_id.")
    position = models.PositiveSmallIntegerField()
    government_cents = models.BigIntegerField(default=0, help_text="Federal + provincial share.")
    employees = models.PositiveIntegerField(
        null=True, help_text="The employer's employees when it applied: the KPIs' firm size."
    )

    class Meta:
        ordering = ["position"]
        # The KPIs' firm size reads a file's employers from this index alone.
        indexes = [
            models.Index(
                fields=["application", "reference", "employees"], name="application_employer_kpi"
            )
        ]


class StateChange(models.Model):
    application = models.ForeignKey(Application, on_delete=models.CASCADE, related_name="history")
    from_state = models.CharField(max_length=16, blank=True)
    to_state = models.CharField(max_length=16)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]


class IdempotencyKey(models.Model):
    """A POST's key, its request's hash and its first response, stored with the work it did."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200)
    request_hash = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField()
    body = models.TextField()
    content_type = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_response_per_key")]


class FormDraft(models.Model):
    """An application the employer is still filling in on the web form: what they typed, step by
    step, kept until they submit or delete it (sign-out keeps it). Not an application: it has no
    state, quote or audit entry, and every check runs again on it whenever it is used."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(
        "registry.Employer", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    data = models.JSONField(default=dict, help_text="What was typed, by step, as posted.")
    step = models.CharField(max_length=16, help_text="The last step saved.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
