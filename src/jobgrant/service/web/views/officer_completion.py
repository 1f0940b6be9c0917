"""The officer's view of a file's outcomes: the completion report (each trainee's outcome, the
employer's ratings), the follow-ups by milestone and state, and, for a trainee reported as not
completed, the offer to raise a receivable (cause "not completed") with the recovery mechanism
(`grants.recovery_actions.raise_by_hand`). Nothing is raised unless the officer asks."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.completion import report as completion_actions
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.completion import (
    CompletionReport,
    FollowUp,
    FollowUpState,
    Milestone,
    NotCompletedReason,
    Respondent,
)
from jobgrant.service.grants.models.payments import Receivable, ReceivableCause
from jobgrant.service.grants.participants.access import government_shares
from jobgrant.service.grants.payments import recovery as recovery_actions
from jobgrant.service.grants.payments.paid import paid_by_funder
from jobgrant.service.language import in_language, labelled
from jobgrant.service.ledger.models import Funder
from jobgrant.service.web import labels
from jobgrant.service.web.pages import (
    officer_required,
    set_notice,
    shown_as,
    switching_language,
    take_notice,
    visible_or_404,
)
from jobgrant.service.web.views.completion_forms import rating_texts


def _officer_application(user: User, application_id: int) -> Application:
    application = visible_or_404(
        access.get_visible_application, user, application_id, without=("explanation",)
    )
    visible_or_404(access.check_officer, user, application)
    return application


def _follow_up_rows(application: Application) -> list[dict[str, Any]]:
    counts = Counter(
        FollowUp.objects.filter(application=application).values_list(
            "milestone", "respondent", "state"
        )
    )
    states = dict(FollowUpState.choices)
    rows = []
    for milestone in Milestone.values:
        for respondent, label in Respondent.choices:
            by_state = {
                str(states[state]): counts.get((milestone, respondent, state), 0)
                for state in FollowUpState.values
            }
            rows.append({"milestone": milestone, "respondent": label, "states": by_state})
    return rows


def _offers(application: Application, report: CompletionReport | None) -> list[dict[str, Any]]:
    """One offer per trainee who did not complete, with one form per funder that paid something
    on the file: its amount starts at the trainee's share of that funder's money, at most what
    that funder paid and not yet raised back. A file where nothing was paid offers no form."""
    if report is None or report.state != "submitted":
        return []
    receivables = Receivable.objects.filter(application=application)
    raised = receivables.filter(cause=ReceivableCause.NOT_COMPLETED).count()
    left = paid_by_funder(application)
    for funder, cents in receivables.values_list("funder", "amount_cents"):
        left[funder] = left.get(funder, 0) - cents
    offers: list[dict[str, Any]] = []
    for outcome in completion_actions.non_completers(report):
        position = outcome.participant.position
        reason = NotCompletedReason(outcome.not_completed_reason).label
        shares = government_shares(application, position)
        offers.append(
            {
                "number": position + 1,
                "reason": reason,
                "raised": raised,
                "forms": [
                    {
                        "funder": funder,
                        "label": Funder(funder).label,
                        "share": shares[funder],
                        "left": left[funder],
                        "amount": format_amount(min(shares[funder], left[funder])),
                    }
                    for funder in shares
                    if shares[funder] > 0 and left.get(funder, 0) > 0
                ],
                "text": _("Trainee %(n)s did not complete the training: %(reason)s.")
                % {"n": position + 1, "reason": reason},
            }
        )
        for form in offers[-1]["forms"]:
            form["reason"] = offers[-1]["text"]  # what the reason starts with
    return offers


@require_GET
@officer_required
def outcomes(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    return _render_outcomes(request, _officer_application(user, application_id))


def _render_outcomes(
    request: HttpRequest, application: Application, typed: dict[str, str] | None = None
) -> HttpResponse:
    """The outcomes page; `typed`: what a receivable's form had typed (its trainee, funder,
    amount and reason), shown back in that form after the language button."""
    report = CompletionReport.objects.filter(application=application).first()
    offers = _offers(application, report)
    for offer in offers:
        for form in offer["forms"]:
            chosen = (str(offer["number"]), form["funder"])
            if typed and chosen == (typed.get("trainee"), typed.get("funder")):
                form["amount"], form["reason"] = typed["amount"], typed["reason"]
    notice = take_notice(request)
    context = {
        "title": _("Outcomes of application %(n)s") % {"n": application.pk},
        "application": application,
        "report": report,
        "outcomes": list(report.trainees.select_related("participant")) if report else [],
        "ratings": rating_texts(report) if report else [],
        "follow_ups": _follow_up_rows(application),
        "states": [str(label) for label in FollowUpState.labels],
        "offers": offers,
        "notice": str(notice.get("text", "")) if notice else "",
        "error_links": [],
        "error_links_json": "{}",
    }
    return render(request, "web/completion/officer_outcomes.html", context)


@require_POST
@officer_required
def raise_not_completed(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """The offer taken: a receivable for a trainee who did not complete (the officer's amount,
    funder and reason, checked by the recovery action)."""
    application = _officer_application(user, application_id)
    if switching_language(request):  # what was typed, shown back in this language
        shown_as(request, reverse("web:officer-outcomes", args=[application.pk]))
        keys = ("trainee", "funder", "amount", "reason")
        return _render_outcomes(request, application, {k: request.POST.get(k, "") for k in keys})
    fields = {
        "application": application.pk,
        "cause": ReceivableCause.NOT_COMPLETED,
        "funder": request.POST.get("funder", ""),
        "amount": request.POST.get("amount", ""),
        "reason": request.POST.get("reason", ""),
    }
    try:
        receivable = recovery_actions.raise_by_hand(user, fields)
    except ServiceError as error:
        problems = [
            labelled(p["field"], in_language(en=p["message_en"], fr=p["message_fr"]))
            for p in error.problems
        ]
        text = "; ".join(problems) if problems else labels.service_message(error)
        set_notice(request, "refused", text=text)
    else:
        text = _("Receivable %(n)s was raised; the employer was told.") % {"n": receivable.pk}
        set_notice(request, "raised", text=text)
    return redirect("web:officer-outcomes", application_id=application.pk)
