"""Where an employer's file stands, and what comes next, with its date: the dashboard's and the
file's "Stage" and "Next step".

The application's state says only "Approved" from the approval to the last payment; the stage
reads on: the agreement offered (accept by), accepted (the trainees to confirm, by), the claims,
the completion report (due on), completed and paid. Nothing here writes to the database.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch
from django.utils import timezone
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from jobgrant.service.grants.models.agreements import Agreement, AgreementState, AgreementVersion
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.grants.models.claims import Claim, ClaimState
from jobgrant.service.grants.models.completion import ReportState
from jobgrant.service.grants.models.participants import Participant, ParticipantState
from jobgrant.service.grants.models.payments import PaymentRequest, RequestState
from jobgrant.service.web import labels

#: An agreement under which the employer may still act: invite, claim, report.
IN_FORCE = frozenset({AgreementState.ACCEPTED, AgreementState.ACTIVE})
#: An agreement whose file is over: nothing is withdrawn any more.
OVER = frozenset({AgreementState.COMPLETED, AgreementState.CLOSED})
WAITING_TRAINEES = frozenset({ParticipantState.INVITED, ParticipantState.FORM_SUBMITTED})
CLAIM_IN_PROGRESS = frozenset(
    {ClaimState.SUBMITTED, ClaimState.UNDER_REVIEW, ClaimState.RETURNED, ClaimState.DRAFT}
)


@dataclass(frozen=True)
class Stage:
    label: str
    next_step: str  # "" when there is none
    due: dt.date | None  # the next step's date, if it has one


def _agreement(application: Application) -> Agreement | None:
    try:
        return application.agreement
    except Agreement.DoesNotExist:
        return None


def _listed(instance: object, prefetched: str, related: str) -> list[Any]:
    """The rows a list prefetched into `prefetched` (STAGE_PREFETCH), else read through the
    `related` manager (a single file's page)."""
    found = getattr(instance, prefetched, None)
    if found is None:
        return list(getattr(instance, related).all())
    return list(found)


def _version(agreement: Agreement) -> AgreementVersion | None:
    """The agreement's current version: from what a list prefetched (STAGE_PREFETCH), else read."""
    versions = _listed(agreement, "stage_versions", "versions")
    return next((v for v in versions if v.number == agreement.version), None)


#: What a list of files prefetches so that each row's stage costs no query of its own: only the
#: columns read here (a version's rendered documents are large). Into lists of their own
#: (`to_attr`): Django then sets each file's rows as they are, instead of building a filtered
#: queryset per file and prefetch (a tenth of the dashboard's CPU with 90 files).
STAGE_PREFETCH = (
    Prefetch(
        "agreement__versions",
        queryset=AgreementVersion.objects.only(
            "agreement_id",
            "number",
            "accept_by",
            "participants_by",
            "first_claim_by",
            "completion_report_by",
        ),
        to_attr="stage_versions",
    ),
    Prefetch(
        "participants",
        queryset=Participant.objects.only("application_id", "state"),
        to_attr="stage_participants",
    ),
    Prefetch(
        "claims",
        queryset=Claim.objects.only("application_id", "state", "is_final"),
        to_attr="stage_claims",
    ),
    Prefetch(
        "payments",
        queryset=PaymentRequest.objects.only("application_id", "state"),
        to_attr="stage_payments",
    ),
)


def next_step_text(stage: Stage) -> str:
    """The next step as web/employer/_next_step.html writes it ("… by <date>", or "—"), made
    once in Python for a list's rows rather than by an include per row."""
    from jobgrant.service.web.templatetags.jobgrant import longdate

    if not stage.next_step:
        return "—"
    if stage.due is None:
        return stage.next_step
    # As {% blocktranslate %} does: the sentence as translated, the values escaped.
    return mark_safe(
        _("%(step)s by %(date)s")
        % {
            "step": conditional_escape(stage.next_step),
            "date": conditional_escape(longdate(stage.due)),
        }
    )


def stage_of(application: Application) -> Stage:
    """The file's stage in words, its next step and that step's date."""
    state = application.state
    if state == State.DRAFT:
        return Stage(pgettext("file stage", "Draft"), _("Submit the application"), None)
    if state == State.SUBMITTED:
        return Stage(
            pgettext("file stage", "Submitted"), _("An officer reviews the application"), None
        )
    if state == State.RECOMMENDED:
        return Stage(
            pgettext("file stage", "Recommended"), _("A second officer approves or denies it"), None
        )
    if state != State.APPROVED:
        return Stage(labels.state_labels().get(state, state), "", None)
    agreement = _agreement(application)
    if agreement is None:
        return Stage(pgettext("file stage", "Approved"), _("The agreement is being prepared"), None)
    version = _version(agreement)
    if agreement.state == AgreementState.ISSUED:
        due = timezone.localtime(version.accept_by).date() if version else None
        return Stage(pgettext("file stage", "Agreement offered"), _("Accept the agreement"), due)
    if agreement.state in OVER:
        return _over(application)
    if agreement.state not in IN_FORCE:
        return Stage(str(AgreementState(agreement.state).label), "", None)
    return _in_force(application, version)


def _in_force(application: Application, version: AgreementVersion | None) -> Stage:
    accepted = pgettext("file stage", "Agreement accepted")
    slots = [slot.state for slot in _listed(application, "stage_participants", "participants")]
    if not slots or any(slot in WAITING_TRAINEES for slot in slots):
        due = version.participants_by if version else None
        return Stage(accepted, _("Invite the trainees and have them confirm"), due)
    claims = [
        (claim.state, claim.is_final) for claim in _listed(application, "stage_claims", "claims")
    ]
    if any(claim_state in CLAIM_IN_PROGRESS for claim_state, _final in claims):
        return Stage(
            pgettext("file stage", "Claim being assessed or written"), _("Finish the claim"), None
        )
    report = getattr(application, "completion_report", None)
    report_due = version.completion_report_by if version else None
    if report is None or report.state != ReportState.SUBMITTED:
        if not any(final for claim_state, final in claims if claim_state == ClaimState.APPROVED):
            first = version.first_claim_by if version else None
            return Stage(
                pgettext("file stage", "In training"),
                _("Claim the actual costs"),
                None if claims else first,
            )
        return Stage(
            pgettext("file stage", "Final claim approved"),
            _("Send the completion report"),
            report_due,
        )
    return Stage(
        pgettext("file stage", "Completion report sent"), _("Claim the actual costs"), None
    )


def _over(application: Application) -> Stage:
    payments = [p.state for p in _listed(application, "stage_payments", "payments")]
    if payments and all(p in (RequestState.PAID, RequestState.CANCELLED) for p in payments):
        return Stage(pgettext("file stage", "Completed and paid"), "", None)
    return Stage(pgettext("file stage", "Completed"), _("The last payment is on its way"), None)


def may_withdraw(application: Application) -> bool:
    """The applicant may withdraw before the agreement is accepted; once the training is under
    way or over, the file ends with its completion report and its claims."""
    if application.state in (State.DRAFT, State.SUBMITTED, State.RECOMMENDED):
        return True
    if application.state != State.APPROVED:
        return False
    agreement = _agreement(application)
    return agreement is None or agreement.state == AgreementState.ISSUED


def has_claims_page(application: Application) -> bool:
    """The claims stay reachable once the file is over: what was claimed and paid."""
    agreement = _agreement(application)
    return agreement is not None and agreement.state in IN_FORCE | OVER
