"""A program manager's intake pages: a new intake of a stream, an intake's page (its form
while it has not opened), closing it early, after a confirmation with a reason, and ranking a
closed intake the worker has not ranked, after a confirmation."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.intakes import access
from jobgrant.service.grants.intakes import actions as intake_actions
from jobgrant.service.grants.intakes.input import checked_closing_reason, checked_intake
from jobgrant.service.grants.intakes.ranking_handoff import rank_by_hand, waiting
from jobgrant.service.grants.models.applications import (
    ApplicationEmployer,
    Intake,
    IntakeState,
    Selection,
)
from jobgrant.service.grants.models.ranking import IntakeRank
from jobgrant.service.language import in_language
from jobgrant.service.ledger.models import Earmark
from jobgrant.service.refusals import shown
from jobgrant.service.web import labels
from jobgrant.service.web.forms import programs as forms
from jobgrant.service.web.forms.organizations import show_problems
from jobgrant.service.web.pages import (
    form_page,
    program_manager_required,
    set_notice,
    switching_language,
    visible_or_404,
)
from jobgrant.service.web.views.programs import intake_name, notice_text, stream_name


def _initial(intake: Intake) -> dict[str, str]:
    return {
        "name_en": intake.name_en,
        "name_fr": intake.name_fr,
        "opens_on": intake.opens_on.isoformat(),
        "closes_on": intake.closes_on.isoformat(),
        "federal_budget": format_amount(intake.federal_budget_cents),
        "provincial_budget": format_amount(intake.provincial_budget_cents),
    }


@program_manager_required
@require_http_methods(["GET", "POST"])
def intake_new(request: HttpRequest, user: User, stream_id: int) -> HttpResponse:
    stream = visible_or_404(access.get_visible_stream, user, stream_id)
    form = forms.IntakeForm(request.POST if request.method == "POST" else None)
    first: list[tuple[str, str]] = []
    if request.method == "POST" and not switching_language(request):
        typed = form.typed()
        try:
            checked_intake(typed, stream.program.fiscal_year)  # the form's own checks first
            intake = intake_actions.create_intake(user, stream, typed)
        except ServiceError as error:
            first = show_problems(form, error)
        else:
            set_notice(request, "created")
            return redirect("web:program-intake", intake_id=intake.pk)
    context = {
        "title": _("New intake of %(stream)s") % {"stream": stream_name(stream)},
        "stream": stream,
        "form": form,
        "intake": None,
    }
    return form_page(request, "web/programs/intake_form.html", context, [form], first)


@program_manager_required
@require_http_methods(["GET", "POST"])
def intake_page(request: HttpRequest, user: User, intake_id: int) -> HttpResponse:
    """The intake: its form while it has not opened (and the user manages it), else its
    figures."""
    intake = visible_or_404(access.get_visible_intake, user, intake_id)
    manages = access.manages(user, intake.stream.program.jurisdiction)
    editable = intake.state == IntakeState.SCHEDULED and manages
    posted = request.POST if request.method == "POST" else None
    form = forms.IntakeForm(posted, initial=_initial(intake)) if editable else None
    first: list[tuple[str, str]] = []
    if form is not None and request.method == "POST" and not switching_language(request):
        typed = form.typed()
        try:
            checked_intake(typed, intake.stream.program.fiscal_year)
            intake_actions.change_intake(user, intake, typed)
        except ServiceError as error:
            first = show_problems(form, error)
        else:
            set_notice(request, "changed")
            return redirect("web:program-intake", intake_id=intake.pk)
    context = {
        "title": intake_name(intake),
        "stream": intake.stream,
        "stream_name": stream_name(intake.stream),
        "intake": intake,
        "form": form,
        "state": labels.label(labels.INTAKE_STATE_LABELS, intake.state),
        "earmarks": _earmarks(intake),
        "may_close": intake.state in (IntakeState.SCHEDULED, IntakeState.OPEN) and manages,
        "may_rank": intake.state == IntakeState.CLOSED
        and intake.stream.selection == Selection.RANKED
        and manages,
        "received": intake.applications.count(),
        "ranks": _ranks(intake),
        "notice": notice_text(request),
    }
    template = "web/programs/intake_form.html" if form else "web/programs/intake.html"
    return form_page(request, template, context, [form] if form else [], first)


def _ranks(intake: Intake) -> list[dict[str, Any]]:
    """The intake's ranking as the officers' queue opens it: each file's place, score, the
    government money of it and the files above it, and where the budget runs out."""
    ranks = IntakeRank.objects.filter(intake=intake).select_related("application")
    leads: dict[int, str] = {}
    links = ApplicationEmployer.objects.filter(application__intake_rank__intake=intake)
    for link in links.select_related("employer").order_by("position"):
        leads.setdefault(link.application_id, link.employer.name)
    return [
        {
            "rank": rank.rank,
            "application": rank.application_id,
            "employer": leads.get(rank.application_id, ""),
            "score": rank.score,
            "federal": rank.federal_running_cents,
            "provincial": rank.provincial_running_cents,
            "within_budget": rank.within_budget,
            "state": labels.label(labels.STATE_LABELS, rank.application.state),
        }
        for rank in ranks.order_by("rank")
    ]


def _earmarks(intake: Intake) -> list[dict[str, Any]]:
    return [
        {
            "funder": labels.label(labels.FUNDER_LABELS, earmark.account.funder),
            "budget": earmark.budget_cents,
            "committed": earmark.committed_cents,
            "available": earmark.available_cents,
        }
        for earmark in Earmark.objects.filter(intake=intake, budget_cents__gt=0)
        .select_related("account")
        .order_by("account__funder")
    ]


@program_manager_required
@require_http_methods(["GET", "POST"])
def intake_close(request: HttpRequest, user: User, intake_id: int) -> HttpResponse:
    """Close early, after confirmation: the GET page asks why, the POST closes."""
    intake = visible_or_404(access.get_visible_intake, user, intake_id)
    form = forms.CloseIntakeForm(request.POST if request.method == "POST" else None)
    first: list[tuple[str, str]] = []
    if request.method == "POST" and not switching_language(request):
        reason = form.typed()["reason"]
        try:
            checked_closing_reason(reason)  # the form's own checks first
            intake_actions.close_intake(user, intake, reason)
        except ServiceError as error:
            first = show_problems(form, error)
        else:
            set_notice(request, "closed")
            return redirect("web:program-intake", intake_id=intake.pk)
    context = {
        "title": _("Close %(intake)s now?") % {"intake": intake_name(intake)},
        "intake": intake,
        "form": form,
        "ranked": intake.stream.selection == "ranked",
    }
    return form_page(request, "web/programs/close.html", context, [form], first)


@program_manager_required
@require_http_methods(["GET", "POST"])
def intake_rank(request: HttpRequest, user: User, intake_id: int) -> HttpResponse:
    """Rank now, after confirmation: the GET page says what the ranking will do (or why the
    intake cannot be ranked), the POST ranks (or shows the refusal, audited)."""
    intake = visible_or_404(access.get_visible_intake, user, intake_id)
    context: dict[str, Any] = {
        "title": _("Rank %(intake)s now?") % {"intake": intake_name(intake)},
        "intake": intake,
    }
    try:
        if request.method == "POST":
            rank_by_hand(user, intake, confirmed=True)  # the POST of the confirmation page
            set_notice(request, "ranked")
            return redirect("web:program-intake", intake_id=intake.pk)
        found = waiting(user, intake)
    except ServiceError as error:
        context["refusal"] = shown(error)
        return render(request, "web/programs/rank.html", context, status=error.status)
    context["waiting"] = found
    context["scoring"] = in_language(en=found.scoring_en, fr=found.scoring_fr)
    return render(request, "web/programs/rank.html", context)
