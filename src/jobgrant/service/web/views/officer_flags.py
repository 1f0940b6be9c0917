"""The risk flags on an application, as the officer reads them, and clearing one.

The review page shows each flag with the sentence that says why and the figures it compared
(`flag_rows`); an open flag has a form to clear it with what the officer checked. Clearing goes
through the action (grants/integrity/actions.py), which checks the officer may decide the file,
audits the clearing and refuses a flag no longer open; a refusal is shown on the flag's own page
with what was typed.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.integrity import access as flag_access
from jobgrant.service.grants.integrity.actions import clear_flag
from jobgrant.service.grants.integrity.sentences import sentence, threshold_source
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.integrity import FlagState, RiskFlag
from jobgrant.service.language import localized
from jobgrant.service.refusals import shown
from jobgrant.service.web.forms.officer import ClearFlagForm
from jobgrant.service.web.pages import (
    error_context,
    not_found_is_404,
    officer_required,
    set_notice,
    switching_language,
    typed_back,
    visible_or_404,
)


def prefix_of(flag: RiskFlag) -> str:
    """Each flag's form has its own field names and ids: the review page shows several."""
    return f"flag-{flag.pk}"


def flag_row(flag: RiskFlag, form: ClearFlagForm | None = None) -> dict[str, Any]:
    is_open = flag.state == FlagState.OPEN
    return {
        "flag": flag,
        "kind": flag.get_kind_display(),
        "state": flag.get_state_display(),
        "is_open": is_open,
        "sentence": sentence(flag),
        "source": threshold_source(flag),
        "form": (form or ClearFlagForm(prefix=prefix_of(flag))) if is_open else None,
    }


def flag_rows(application: Application) -> list[dict[str, Any]]:
    """The application's flags, open first, each with its sentence in the page's language."""
    flags = RiskFlag.objects.filter(application_id=application.pk).select_related("cleared_by")
    order: dict[str, int] = {FlagState.OPEN: 0, FlagState.CLEARED: 1, FlagState.LAPSED: 2}
    return [flag_row(f) for f in sorted(flags, key=lambda f: (order[f.state], f.pk))]


@officer_required
@require_http_methods(["GET", "POST"])
def clear(request: HttpRequest, user: User, flag_id: int) -> HttpResponse:
    """The flag with its form (GET); clearing it (POST), then back to the application (PRG)."""
    flag = visible_or_404(flag_access.get_visible_risk_flag, user, flag_id)
    prefix = prefix_of(flag)
    if request.method != "POST" or switching_language(request):
        posted = request.method == "POST"
        typed = typed_back(ClearFlagForm, request, prefix=prefix) if posted else None
        return _page(request, flag, typed or ClearFlagForm(prefix=prefix))
    form = ClearFlagForm(request.POST, prefix=prefix)
    form.is_valid()
    try:
        clear_flag(user, flag, str(form.cleaned_data.get("reason", "")))
    except ServiceError as error:
        not_found_is_404(error)
        return _refused(request, flag, form, error)
    set_notice(request, "flag-cleared", application=flag.application_id)
    return redirect(reverse("web:officer-review", args=[flag.application_id]) + "#risk-flags")


def _refused(
    request: HttpRequest, flag: RiskFlag, form: ClearFlagForm, error: ServiceError
) -> HttpResponse:
    for found in error.problems:
        name = found.get("field", "")
        form.add_error(name if name in form.fields else None, localized(found))
    refusal = None if error.problems else shown(error)
    flag.refresh_from_db()
    return _page(request, flag, form, refusal=refusal, status=error.status)


def _page(
    request: HttpRequest,
    flag: RiskFlag,
    form: ClearFlagForm,
    *,
    refusal: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "title": _("Risk flag on application %(id)s") % {"id": flag.application_id},
        "row": flag_row(flag, form),
        "form": form,
        **error_context(form),
        "refusal": refusal,
    }
    return render(request, "web/officer/flag.html", context, status=status)
