"""The wizard's declarations step: the provider's details, who prepared the application, ties to
the provider, other government funding and the conflict-of-interest attestations. Kept in the
draft like every step; checked by the service's rules (web/forms/employer_declarations.py); timed
by the burden meter from its page's first view to its first submission, as every step is."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.web.forms.employer_declarations import (
    DeclarationsForm,
    declarations_data,
    typed_declarations,
)
from jobgrant.service.web.pages import employer_required
from jobgrant.service.web.views.employer_apply import (
    STEP_URLS,
    checked,
    current_draft,
    gate,
    keep,
    page,
    step_done,
    step_shown,
    switched_language,
    typed_so_far,
)


@employer_required
@require_http_methods(["GET", "POST"])
def apply_declarations(request: HttpRequest, user: User) -> HttpResponse:
    found = checked(request, user)
    if (back := gate(found, "declarations")) is not None:
        return back
    if request.method == "POST":
        form = DeclarationsForm(request.POST)
        typed = typed_declarations(form)
        if (switched := switched_language(request, user, "declarations", typed)) is not None:
            return switched
        if request.POST.get("action") == "back":
            keep(request, user, "declarations", typed)
            return redirect(STEP_URLS["trainees"])
        if form.is_valid() and form.declared is not None:
            step_done(request, keep(request, user, "declarations", typed), "declarations")
            return redirect(STEP_URLS["review"])
    else:
        step_shown(request, user, "declarations")
        typed = typed_so_far(current_draft(request, user)).get("declarations") or {}
        bound = declarations_data(typed) if request.GET.get("check") else None
        form = DeclarationsForm(bound, initial=typed)
    assert found.training is not None
    return page(
        request,
        "web/employer/apply_declarations.html",
        {"title": _("Declarations"), "step_number": 4, "form": form, "training": found.training},
        [form],
    )
