"""The program manager's pages: the decisions against a ranking awaiting their sign-off, one of
them with the file's rank and the officer's reason, and the sign-off or the refusal.

Thin views: overrides are read through grants.ranking.access and changed only through
grants.ranking.actions. Signing off cannot be undone, so the form asks for a confirmation box;
a refusal of the action (another person must sign, a settled override, another jurisdiction) is
explained on the override's page and nothing is written.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.models.ranking import IntakeRank, OverrideState, RankOverride
from jobgrant.service.grants.ranking import access
from jobgrant.service.grants.ranking import actions as ranking_actions
from jobgrant.service.language import localized
from jobgrant.service.refusals import shown
from jobgrant.service.web.forms.officer import MAX_TEXT
from jobgrant.service.web.pages import (
    error_context,
    not_found_is_404,
    program_manager_required,
    set_notice,
    shown_as,
    switching_language,
    take_notice,
    typed_back,
    visible_or_404,
)
from jobgrant.service.web.ranking_words import cut_off_sentence, point_rows

CHOICES = ("sign_off", "refuse")


class SignOffForm(forms.Form):
    choice = forms.ChoiceField(
        label=gettext_lazy("Your answer"),
        choices=[
            ("", gettext_lazy("Choose")),
            ("sign_off", gettext_lazy("Sign off: the decision may go against the ranking")),
            ("refuse", gettext_lazy("Refuse: the decision must follow the ranking")),
        ],
        error_messages={"required": gettext_lazy("Choose to sign off or to refuse.")},
    )
    note = forms.CharField(
        label=gettext_lazy("Your reason"),
        help_text=gettext_lazy(
            "Required to refuse, optional to sign off. Kept in the audit trail and in the report "
            "of decisions out of rank."
        ),
        max_length=MAX_TEXT,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    confirm = forms.BooleanField(
        label=gettext_lazy("I have read the officer's reason; my answer cannot be undone."),
        error_messages={"required": gettext_lazy("Tick the box to confirm your answer.")},
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("choice") == "refuse" and not str(data.get("note") or "").strip():
            self.add_error("note", _("Enter the reason for the refusal."))
        return data


@require_GET
@program_manager_required
def overrides(request: HttpRequest, user: User) -> HttpResponse:
    found = access.visible_overrides(user).order_by("-requested_at")
    context = {
        "title": _("Decisions against a ranking"),
        "awaiting": list(found.filter(state=OverrideState.REQUESTED)),
        "settled": list(found.exclude(state=OverrideState.REQUESTED)[:50]),
        "notice": _notice(take_notice(request)),
    }
    return render(request, "web/manager/overrides.html", context)


@require_GET
@program_manager_required
def override_page(request: HttpRequest, user: User, override_id: int) -> HttpResponse:
    override = visible_or_404(access.get_visible_override, user, override_id)
    return _render(request, override, SignOffForm())


def _render(
    request: HttpRequest,
    override: RankOverride,
    form: SignOffForm,
    *,
    refusal: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    rank = IntakeRank.objects.get(application_id=override.application_id)
    context = {
        "title": _("Override %(id)s") % {"id": override.pk},
        "override": override,
        "application": override.application,
        "rank": rank,
        "point_rows": point_rows(rank),
        "cut_off": cut_off_sentence(rank),
        "form": form,
        "awaiting": override.state == OverrideState.REQUESTED,
        "refusal": refusal,
        **error_context(form),
    }
    return render(request, "web/manager/override.html", context, status=status)


@require_http_methods(["GET", "POST"])
@program_manager_required
def answer(request: HttpRequest, user: User, override_id: int) -> HttpResponse:
    """Sign off or refuse, through the actions; then back to the list (PRG). A GET goes to the
    override's page."""
    override = visible_or_404(access.get_visible_override, user, override_id)
    if request.method != "POST":
        return redirect(reverse("web:manager-override", args=[override.pk]))
    if switching_language(request):  # what was typed, shown back in this language (ADR 0039)
        shown_as(request, reverse("web:manager-override", args=[override.pk]))
        return _render(request, override, typed_back(SignOffForm, request))
    form = SignOffForm(request.POST)
    if not form.is_valid():
        return _render(request, override, form, status=422)
    choice, note = form.cleaned_data["choice"], form.cleaned_data["note"]
    try:
        if choice == "sign_off":
            ranking_actions.sign_off_override(user, override, note)
        else:
            ranking_actions.refuse_override(user, override, note)
    except ServiceError as error:
        not_found_is_404(error)
        for found in error.problems:
            form.add_error("note", localized(found))
        override.refresh_from_db()
        refusal = None if error.problems else shown(error)
        return _render(request, override, form, refusal=refusal, status=error.status)
    set_notice(request, choice, override=override.pk)
    return redirect(reverse("web:manager-overrides"))


def _notice(notice: dict[str, Any] | None) -> str:
    if not notice:
        return ""
    return {
        "sign_off": _("You signed off override %(id)s: the officer may now take the decision."),
        "refuse": _("You refused override %(id)s: the decision must follow the ranking."),
    }.get(str(notice.get("kind")), "") % {"id": notice.get("override")}
