"""The risk flags per intake and per provider: a page for officers, auditors and analysts.

A GET form chooses an intake and a provider; the page counts the flags of each kind (open and
in all) and lists the providers with the most. Officers also read the flags of their files,
auditors all of them, each with its sentence and a link to its file; an analyst reads the counts
only (grants/integrity/listing.py).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.grants.integrity import access
from jobgrant.service.grants.integrity.listing import listing
from jobgrant.service.grants.integrity.sentences import sentence
from jobgrant.service.grants.models.applications import Intake
from jobgrant.service.grants.models.integrity import FlagKind
from jobgrant.service.language import current_language, in_language, long_date
from jobgrant.service.web.pages import error_context, set_choices, user_required

ROLES = (Role.OFFICER, Role.AUDITOR, Role.ANALYST)
MAX_PROVIDER = 200


class FlagFilter(forms.Form):
    intake = forms.ChoiceField(label=gettext_lazy("Intake"), required=False)
    provider = forms.CharField(
        label=gettext_lazy("Training provider"),
        help_text=gettext_lazy("Its name, as applications give it (case and punctuation aside)."),
        required=False,
        max_length=MAX_PROVIDER,
    )

    def __init__(self, data: Any, intakes: list[Intake]) -> None:
        super().__init__(data)
        choices = [("", _("Every intake")), *((str(i.pk), intake_name(i)) for i in intakes)]
        set_choices(self, "intake", choices)


def intake_name(intake: Intake) -> str:
    own = in_language(en=intake.name_en, fr=intake.name_fr)
    name = own or in_language(en=intake.stream.name_en, fr=intake.stream.name_fr)
    return _("%(stream)s, %(place)s %(year)s: %(opens)s to %(closes)s") % {
        "stream": name,
        "place": intake.stream.program.jurisdiction,
        "year": intake.stream.program.fiscal_year,
        "opens": long_date(intake.opens_on, current_language()),
        "closes": long_date(intake.closes_on, current_language()),
    }


@require_GET
@user_required(*ROLES)
def flags(request: HttpRequest, user: User) -> HttpResponse:
    intakes = list(access.visible_intakes(user))
    form = FlagFilter(request.GET or None, intakes)
    context: dict[str, Any] = {"title": _("Risk flags"), "form": form, "user_role": user.role}
    if form.is_bound and not form.is_valid():
        context.update(error_context(form))
        return render(request, "web/reports/flags.html", context, status=422)
    data = form.cleaned_data if form.is_bound else {}
    chosen = next((i for i in intakes if str(i.pk) == data.get("intake")), None)
    found = listing(user, chosen, str(data.get("provider") or ""))
    labels = dict(FlagKind.choices)
    context.update(
        {
            "listing": found,
            "counts": [
                {**row, "label": labels.get(row["kind"], row["kind"])} for row in found.counts
            ],
            "rows": [
                {"flag": f, "kind": f.get_kind_display(), "why": sentence(f)} for f in found.flags
            ],
            "links_to_files": user.role == Role.OFFICER,
        }
    )
    return render(request, "web/reports/flags.html", context)
