"""The report of decisions taken against an intake's ranking, in the manager's area: per intake,
each decision with the file's rank, the officer's reason and the two signatories; as a page and
as a CSV.

For the program managers, officers, administrators and auditors who read the intake (the
policy analysts count them in the annual report). A GET form: reading changes nothing.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.models.applications import IntakeState
from jobgrant.service.grants.ranking import access
from jobgrant.service.grants.ranking.report import as_csv, decisions_out_of_rank
from jobgrant.service.language import in_language
from jobgrant.service.web.pages import out_of_rank_readers_required, visible_or_404


def _intake_name(intake: object) -> str:
    named = in_language(en=getattr(intake, "name_en", ""), fr=getattr(intake, "name_fr", ""))
    return named or _("Intake %(id)s") % {"id": getattr(intake, "pk", "")}


@require_GET
@out_of_rank_readers_required
def out_of_rank(request: HttpRequest, user: User) -> HttpResponse:
    intakes = list(
        access.visible_intakes(user).filter(state=IntakeState.RANKED).order_by("-closes_on")
    )
    chosen_id = request.GET.get("intake", "")
    chosen = next((i for i in intakes if str(i.pk) == chosen_id), intakes[0] if intakes else None)
    rows = decisions_out_of_rank(access.visible_overrides(user), chosen.pk) if chosen else []
    context = {
        "title": _("Decisions taken against an intake's ranking"),
        "intakes": [(i.pk, _intake_name(i)) for i in intakes],
        "chosen": chosen,
        "chosen_name": _intake_name(chosen) if chosen else "",
        "rows": rows,
    }
    return render(request, "web/manager/out_of_rank.html", context)


@require_GET
@out_of_rank_readers_required
def out_of_rank_csv(request: HttpRequest, user: User, intake_id: int) -> HttpResponse:
    intake = visible_or_404(access.get_visible_intake, user, intake_id)
    rows = decisions_out_of_rank(access.visible_overrides(user), intake.pk)
    response = HttpResponse(as_csv(rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="out-of-rank-intake-{intake.pk}.csv"'
    return response
