"""The employer's application wizard: organizations, training, trainees (with the live quote),
declarations (employer_declarations.py), review and submit (employer_review.py).

Each completed step is kept in a FormDraft (grants.actions writes it), so an application being
written survives sign-out and is listed on the dashboard; the session only remembers which draft
is open. Views stay thin: the forms check what was typed and build the payload; reads go through
grants.access and changes through grants.actions.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms as django_forms
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.burden import actions as burden
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import FormDraft
from jobgrant.service.grants.models.burden import WIZARD_STEPS
from jobgrant.service.registry.identifiers import normalize_business_number
from jobgrant.service.registry.models import Employer
from jobgrant.service.web.forms import employer as shared
from jobgrant.service.web.forms import employer_apply as forms
from jobgrant.service.web.forms import employer_trainees as trainee_forms
from jobgrant.service.web.forms import employer_training as training_forms
from jobgrant.service.web.forms.employer_draft import Checked, bind_draft
from jobgrant.service.web.pages import employer_required, error_context, switching_language
from jobgrant.service.web.views import employer_steps as steps

DRAFT_KEY = "jobgrant.employer.draft"
#: When the first step's page was first shown, while no draft holds the application yet.
FIRST_VIEW_KEY = "jobgrant.employer.first-view"
STEP_URLS = {
    "organizations": "web:employer-apply-organizations",
    "training": "web:employer-apply-training",
    "trainees": "web:employer-apply-trainees",
    "declarations": "web:employer-apply-declarations",
    "review": "web:employer-apply-review",
}


# --- The draft being written ------------------------------------------------------------------


def current_draft(request: HttpRequest, user: User) -> FormDraft | None:
    draft_id = request.session.get(DRAFT_KEY)
    if not isinstance(draft_id, int):
        return None
    try:
        return access.get_visible_form_draft(user, draft_id)
    except ServiceError:
        request.session.pop(DRAFT_KEY, None)
        return None


def typed_so_far(draft: FormDraft | None) -> dict[str, Any]:
    return draft.data if draft is not None and isinstance(draft.data, dict) else {}


def keep(
    request: HttpRequest, user: User, step: str, typed: Any, *, lead: Employer | None = None
) -> FormDraft:
    """Save what was typed at `step` in the open draft (a new one if none is open)."""
    saved = actions.save_form_draft(user, current_draft(request, user), step, typed, lead=lead)
    request.session[DRAFT_KEY] = saved.pk
    return saved


def step_shown(request: HttpRequest, user: User, step: str) -> None:
    """The burden meter: the step's page shown (its first view is what counts). Before the
    draft exists, the first step's first view waits in the session."""
    draft = current_draft(request, user)
    if draft is None:
        request.session.setdefault(FIRST_VIEW_KEY, timezone.now().isoformat())
        return
    burden.step_viewed(WIZARD_STEPS[step], draft=draft, at=_first_view(request, step, pop=False))


def step_done(request: HttpRequest, saved: FormDraft, step: str) -> None:
    """The burden meter: the step submitted (saved on the way to the next one)."""
    burden.wizard_step_saved(saved, step, first_viewed_at=_first_view(request, step, pop=True))


def _first_view(request: HttpRequest, step: str, *, pop: bool) -> dt.datetime | None:
    if step != "organizations":
        return None
    kept = request.session.pop(FIRST_VIEW_KEY, None) if pop else request.session.get(FIRST_VIEW_KEY)
    try:
        return dt.datetime.fromisoformat(kept) if isinstance(kept, str) else None
    except ValueError:
        return None


def checked(request: HttpRequest, user: User) -> Checked:
    draft = typed_so_far(current_draft(request, user))
    return bind_draft(draft, access.employers_acted_for(user), timezone.localdate())


def gate(found: Checked, step: str) -> HttpResponse | None:
    """Back to the first step still to complete, when `step` comes after it."""
    first = found.first_incomplete
    if first is not None and forms.STEPS.index(first) < forms.STEPS.index(step):
        return redirect(reverse(STEP_URLS[first]) + "?check=1")
    return None


def switched_language(
    request: HttpRequest, user: User, step: str, typed: Any
) -> HttpResponse | None:
    """The language button of a step (posted to the step in the other language): keep what was
    typed (checked or not: it is the person's draft) and open the step in this language."""
    if not switching_language(request):
        return None
    keep(request, user, step, typed)
    return redirect(request.path)


def edited_rows(
    request: HttpRequest, rows: list[Any], kind: str, blank: Any, most: int
) -> str | None:
    """Apply the "Add" or "Remove" button of `kind` rows; the id of the control to focus next,
    or None when neither was pressed."""
    removed = request.POST.get(f"remove-{kind}")
    if removed is not None:
        position = int(removed) if removed.isascii() and removed.isdigit() else None
        if position is not None and position < len(rows):
            rows.pop(position)
        return f"add-{kind}"
    if request.POST.get("action") == f"add-{kind}":
        if len(rows) < most:
            rows.append(blank)
        return f"{kind}-{len(rows) - 1}"
    return None


def page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    in_error: list[django_forms.BaseForm],
    **summary: Any,
) -> HttpResponse:
    errors = error_context(*in_error, **summary)
    return render(
        request, template, {**context, **errors}, status=422 if errors["error_links"] else 200
    )


# --- Step 1: organizations --------------------------------------------------------------------


@employer_required
def apply_start(request: HttpRequest, user: User) -> HttpResponse:
    """The open draft at its first step still to complete; `?new=1` starts another application
    (the open draft stays on the dashboard)."""
    if request.GET.get("new"):
        request.session.pop(DRAFT_KEY, None)
        request.session.pop(FIRST_VIEW_KEY, None)
    first = checked(request, user).first_incomplete or "review"
    return redirect(STEP_URLS[first])


@employer_required
@require_http_methods(["GET", "POST"])
def apply_organizations(request: HttpRequest, user: User) -> HttpResponse:
    acted_for = access.employers_acted_for(user)
    focus = ""
    if request.method == "POST":
        lead, partners = forms.organizations_forms(request.POST, acted_for, {})
        typed = forms.typed_organizations(lead, partners)
        if (switched := switched_language(request, user, "organizations", typed)) is not None:
            return switched
        edited = edited_rows(request, typed["partners"], "partner", "", forms.MAX_PARTNERS)
        if edited is not None:
            focus = edited
            lead, partners = forms.organizations_forms(None, acted_for, typed)
        elif (found := forms.checked_organizations(lead, partners)) is not None:
            saved = keep(
                request, user, "organizations", forms.cleaned_organizations(found), lead=found.lead
            )
            step_done(request, saved, "organizations")
            return redirect(STEP_URLS["training"])
    else:
        step_shown(request, user, "organizations")
        only = list(acted_for[:2])
        default = {"lead": str(only[0].pk) if len(only) == 1 else "", "partners": []}
        typed = typed_so_far(current_draft(request, user)).get("organizations") or default
        data = forms.organizations_data(typed) if request.GET.get("check") else None
        lead, partners = forms.organizations_forms(data, acted_for, typed)
    return page(
        request,
        "web/employer/apply_organizations.html",
        {
            "title": _("Organizations"),
            "step_number": 1,
            "form": lead,
            "partners": [(form, _registered(form, acted_for)) for form in partners],
            "management_form": partners.management_form,
            "max_partners": forms.MAX_PARTNERS,
            "focus": focus,
        },
        [lead, *partners],
    )


def _registered(form: forms.PartnerForm, acted_for: QuerySet[Employer]) -> dict[str, Any] | None:
    """What the page says under a partner row once its number checks: the name of an
    organization the user acts for; of any other, only that it is registered and will be asked
    to accept (its name is not the user's to learn from its number)."""
    if form.is_bound and form.errors:
        return None
    bn = normalize_business_number(str(form["business_number"].value() or ""))
    found = Employer.objects.filter(business_number=bn).first() if bn else None
    if found is None:
        return None
    own = acted_for.filter(pk=found.pk).exists()
    return {"name": found.name if own else "", "own": own}


# --- Step 2: training and provider ------------------------------------------------------------


@employer_required
@require_http_methods(["GET", "POST"])
def apply_training(request: HttpRequest, user: User) -> HttpResponse:
    found = checked(request, user)
    if (back := gate(found, "training")) is not None:
        return back
    assert found.organizations is not None
    jurisdiction, today = found.organizations.lead.jurisdiction, timezone.localdate()
    if request.method == "POST":
        form = training_forms.TrainingForm(request.POST, jurisdiction=jurisdiction, today=today)
        typed = training_forms.typed_training(form)
        if (switched := switched_language(request, user, "training", typed)) is not None:
            return switched
        if request.POST.get("action") == "back":
            keep(request, user, "training", typed)
            return redirect(STEP_URLS["organizations"])
        if form.is_valid():
            step_done(request, keep(request, user, "training", typed), "training")
            return redirect(STEP_URLS["trainees"])
    else:
        step_shown(request, user, "training")
        typed = typed_so_far(current_draft(request, user)).get("training") or {}
        bound = typed if request.GET.get("check") else None
        form = training_forms.TrainingForm(
            bound, initial=typed, jurisdiction=jurisdiction, today=today
        )
    # The reasons are those of the training on file: beside what was just typed (a POST shown
    # again with its errors) they would speak of other dates, so they are left to step 3.
    quote = steps.try_quote(found, found.trainees)[0] if request.method == "GET" else None
    return page(
        request,
        "web/employer/apply_training.html",
        {
            "title": _("Training and provider"),
            "step_number": 2,
            "form": form,
            "reasons": shared.place_reasons(quote["reasons"]) if quote else {},
        },
        [form],
    )


# --- Step 3: trainees and costs, with the live quote ------------------------------------------


@employer_required
@require_http_methods(["GET", "POST"])
def apply_trainees(request: HttpRequest, user: User) -> HttpResponse:
    found = checked(request, user)
    if (back := gate(found, "trainees")) is not None:
        return back
    assert found.organizations is not None
    blank = trainee_forms.blank_trainee(found.organizations.lead.business_number)
    focus, calculate = "", False
    if request.method == "POST":
        formset = trainee_forms.trainees_formset(request.POST, found.employer_choices)
        typed = trainee_forms.typed_trainees(formset)
        if (switched := switched_language(request, user, "trainees", typed)) is not None:
            return switched
        action = request.POST.get("action")
        edited = edited_rows(request, typed, "trainee", blank, forms.MAX_TRAINEES)
        if edited is not None:
            focus = edited if edited == "add-trainee" else f"{edited}-employer"
            formset = trainee_forms.trainees_formset(None, found.employer_choices, typed or [blank])
        elif action == "back":
            keep(request, user, "trainees", typed)
            return redirect(STEP_URLS["training"])
        elif trainee_forms.checked_trainees(formset) is not None:
            saved = keep(request, user, "trainees", typed)
            if action != "calculate":
                step_done(request, saved, "trainees")
                return redirect(STEP_URLS["declarations"])
            calculate = True
    else:
        step_shown(request, user, "trainees")
        typed = typed_so_far(current_draft(request, user)).get("trainees") or [blank]
        formset = steps.draft_trainees(found, typed, bound=bool(request.GET.get("check")))
        calculate = found.trainees is not None
    quote_context = steps.live_quote(found, formset) if calculate else {}
    return page(
        request,
        "web/employer/apply_trainees.html",
        {
            "title": _("Trainees and costs"),
            "step_number": 3,
            "training": found.training,
            "formset": formset,
            "rows": steps.trainee_rows(formset, quote_context.get("reasons") or {}),
            "max_trainees": forms.MAX_TRAINEES,
            "focus": focus,
            "asks_under_represented": found.asks_under_represented,
            **steps.training_summary(found),
            **quote_context,
        },
        list(formset) if formset.is_bound else [],
    )


@employer_required
@require_POST
def apply_quote(request: HttpRequest, user: User) -> HttpResponse:
    """The live quote (htmx): the costs form in, the grant's split out, nothing written."""
    found = checked(request, user)
    if found.organizations is None or found.training is None:
        return render(request, "web/employer/_quote_live.html", {"incomplete": True})
    formset = trainee_forms.trainees_formset(request.POST, found.employer_choices)
    context = steps.live_quote(found, formset)
    reasons = context.get("reasons") or {}
    slots = [*training_forms.REASON_SLOTS, *(f"trainee-{i}" for i in range(len(formset.forms)))]
    context["oob_slots"] = [(slot, reasons.get(slot, [])) for slot in slots]
    return render(request, "web/employer/_quote_live.html", context)
