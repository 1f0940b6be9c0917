"""The messages an application's own transitions send to its applicant (through the outbox).

Called by grants/actions.py inside the transition's transaction, so the message commits or rolls
back with it. The recipient is the user who created the application, in their preferred
language; a user with no email address on file is told nothing (there is nowhere to send it).
"""

from __future__ import annotations

from django.utils import timezone

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.agreements.actions import Recipient
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.language import language_of, long_date
from jobgrant.service.links import page_link
from jobgrant.service.notifications.outbox import enqueue


def application_received(application: Application, to: Recipient | None = None) -> None:
    """`to`: the applicant's address and language, when the caller read them already (the
    submission's row lock does)."""
    person = to or application.created_by
    day = long_date(timezone.localdate(), language_of(person))
    _tell_applicant(application, "application_received", person, submitted_on=day)


def application_denied(application: Application) -> None:
    """The denial, with its reason (checked by the action: it holds no SIN)."""
    person = application.created_by
    day = long_date(timezone.localdate(), language_of(person))
    _tell_applicant(
        application,
        "application_denied",
        person,
        decided_on=day,
        reason=application.decision_reason,
    )


def _tell_applicant(
    application: Application, kind: str, person: Recipient | User, **context: str
) -> None:
    if not person.email:
        return
    language = language_of(person)
    link = page_link("web:employer-application", language, application_id=application.pk)
    lead = application.employers.select_related("employer").order_by("position").first()
    enqueue(
        kind,
        subject=application,
        to=person.email,
        language=language,
        context={
            "reference": str(application.pk),
            "employer": lead.employer.name if lead else "",
            "link": link,
            **context,
        },
    )
