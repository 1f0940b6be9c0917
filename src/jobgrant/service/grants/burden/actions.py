"""The burden meter's writes: a step's page shown, the step submitted, sent back; the field errors
a form showed. Called by the pages (the API has no pages to time) after they fetched what they
show through its stage's access, so these trust their caller for the permission.

A timing is a measurement, not a decision on a file: like the request metrics it writes no audit
entry (ADR 0046). Each write is one small statement; a step already viewed or submitted is left
as it was, so the first view and the first submission are what count.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.db.models import F, Min
from django.utils import timezone

from jobgrant.service.grants.models.applications import Application, ApplicationEmployer, FormDraft
from jobgrant.service.grants.models.burden import (
    WIZARD_STEPS,
    BurdenStep,
    FieldErrorShown,
    StepTiming,
)

#: The longest form, field or code name kept (the columns' size): longer ones are cut.
NAME_MAX = 64


def lead_employees(application: Application) -> int | None:
    """The firm size of a file: the lead employer's employees as it applied."""
    lead = ApplicationEmployer.objects.filter(application=application).order_by("position").first()
    return None if lead is None else lead.employees


def step_viewed(
    step: BurdenStep,
    *,
    application: Application | None = None,
    draft: FormDraft | None = None,
    subject: int = 0,
    at: dt.datetime | None = None,
) -> None:
    """The step's page was shown: its first view is kept (a later one changes nothing). A step
    repeated within a file (a change request) has its open timing at subject 0 until submitted."""
    if application is None and draft is None:
        return
    where = _where(step, application, draft, subject)
    if StepTiming.objects.filter(**where).exists():
        return
    employees = lead_employees(application) if application is not None else None
    try:
        with transaction.atomic():
            StepTiming.objects.create(
                **where, first_viewed_at=at or timezone.now(), employees=employees
            )
    except IntegrityError:  # the same page shown twice at once: the other request kept it
        pass


def step_submitted(
    step: BurdenStep,
    *,
    application: Application | None = None,
    draft: FormDraft | None = None,
    subject: int = 0,
    opened: int | None = None,
) -> None:
    """The step was submitted: its first submission ends its timing. `opened` moves an open
    timing (subject 0) to the subject it became (the change request just made). A step whose
    page was never shown (started elsewhere) is not timed."""
    now = timezone.now()
    found = StepTiming.objects.filter(
        **_where(step, application, draft, subject if opened is None else 0),
        submitted_at__isnull=True,
    ).first()
    if found is None:
        return
    found.submitted_at = now
    found.seconds = max(0, int((now - found.first_viewed_at).total_seconds()))
    if opened is not None:
        found.subject = opened
    found.save(update_fields=["submitted_at", "seconds", "subject"])


def wizard_step_saved(draft: FormDraft, step: str, *, first_viewed_at: dt.datetime | None) -> None:
    """A wizard step saved: timed from its first view (`first_viewed_at` when the page was shown
    before the draft existed) to now."""
    burden_step = WIZARD_STEPS.get(step)
    if burden_step is None:
        return
    if first_viewed_at is not None:
        step_viewed(burden_step, draft=draft, at=first_viewed_at)
    step_submitted(burden_step, draft=draft)


def draft_became_file(draft: FormDraft, application: Application) -> None:
    """The application written in `draft` is now a file: the review step is submitted, the
    draft's timings move to the file with its firm size, and the whole application is timed
    from the first view of its first step."""
    step_submitted(BurdenStep.APPLY_REVIEW, draft=draft)
    timings = StepTiming.objects.filter(draft=draft)
    started = timings.aggregate(first=Min("first_viewed_at"))["first"]
    employees = lead_employees(application)
    timings.update(application=application, draft=None, employees=employees)
    if started is None:
        return
    now = timezone.now()
    StepTiming.objects.get_or_create(
        application=application,
        step=BurdenStep.APPLICATION,
        subject=0,
        defaults={
            "first_viewed_at": started,
            "submitted_at": now,
            "seconds": max(0, int((now - started).total_seconds())),
            "employees": employees,
        },
    )


def record_timing(
    step: BurdenStep,
    application: Application,
    *,
    first_viewed_at: dt.datetime,
    submitted_at: dt.datetime,
    subject: int = 0,
) -> None:
    """A step timed as a whole, both times known (the demonstration's history, whose people act
    through the actions without pages); a step already timed is left as it was."""
    StepTiming.objects.get_or_create(
        application=application,
        step=step,
        subject=subject,
        defaults={
            "first_viewed_at": first_viewed_at,
            "submitted_at": submitted_at,
            "seconds": max(0, int((submitted_at - first_viewed_at).total_seconds())),
            "employees": lead_employees(application),
        },
    )


def sent_back(step: BurdenStep, application_id: int, subject: int) -> None:
    """The submitted step was sent back to the employer (a claim returned, a change request
    refused because information was missing): counted on its timing, if it was timed."""
    StepTiming.objects.filter(
        application_id=application_id, step=step, subject=subject, submitted_at__isnull=False
    ).update(sent_back=F("sent_back") + 1)


def field_errors_shown(errors: Iterable[tuple[str, str, str]]) -> int:
    """Each (form, field, code) error a page showed, counted; nothing of what was typed."""
    now = timezone.now()
    rows = [
        FieldErrorShown(
            form=form[:NAME_MAX], field=field[:NAME_MAX], code=code[:NAME_MAX], shown_at=now
        )
        for form, field, code in errors
    ]
    FieldErrorShown.objects.bulk_create(rows)
    return len(rows)


def _where(
    step: BurdenStep, application: Application | None, draft: FormDraft | None, subject: int
) -> dict[str, object]:
    if application is not None:
        return {"application": application, "step": step, "subject": subject}
    return {"draft": draft, "step": step, "subject": 0}
