"""The officer's request to decide against an application's rank: approve below the intake's
cut-off or deny above it, with a written reason (the rank and the form: officer_ranking.py).

Apart from officer_ranking.py because a refused request renders the review (officer.py), which
shows the rank: officer.py imports officer_ranking.py, and this module imports both.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.ranking import IntakeRank, OverrideDecision
from jobgrant.service.grants.ranking import actions as ranking_actions
from jobgrant.service.language import localized
from jobgrant.service.web.pages import (
    officer_required,
    set_notice,
    shown_as,
    switching_language,
    typed_back,
)
from jobgrant.service.web.views import officer
from jobgrant.service.web.views.officer_ranking import OverrideForm


@require_http_methods(["GET", "POST"])
@officer_required
def ask_override(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """Ask to approve below the cut-off or deny above it (the side decides which); then back to
    the review (PRG). A GET goes to the review."""
    application = officer._application(user, application_id)
    if request.method != "POST":
        return redirect(reverse("web:officer-review", args=[application.pk]))
    if switching_language(request):  # what was typed, shown back in this language (ADR 0039)
        shown_as(request, reverse("web:officer-review", args=[application.pk]))
        return officer.render_with_ranking(request, application, typed_back(OverrideForm, request))
    form = OverrideForm(request.POST)
    if not form.is_valid():
        return officer.render_with_ranking(request, application, form, status=422)
    rank = IntakeRank.objects.filter(application=application).first()
    decision = (
        OverrideDecision.APPROVE if rank and not rank.within_budget else OverrideDecision.DENY
    )
    try:
        ranking_actions.request_override(user, application, decision, form.cleaned_data["reason"])
    except ServiceError as error:
        for found in error.problems:
            form.add_error("reason", localized(found))
        refusal = None if error.problems else officer.refusal_of(error, "override")
        return officer.render_with_ranking(
            request, application, form, refusal=refusal, status=error.status
        )
    set_notice(request, "override", application=application.pk)
    return redirect(reverse("web:officer-review", args=[application.pk]))
