"""The analyst's replay of a closed intake under another policy (outcomes/replay.py): the
comparison with what was decided, the mix by firm size, stream and region, the plot, the CSV.
A GET, bookmarkable; the replay runs in the request (seconds for an intake of 10,000 files:
docs/benchmarks.md)."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from jobgrant.rules.codes import economic_regions
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.language import current_language, in_language
from jobgrant.service.outcomes import replay_output
from jobgrant.service.outcomes.access import replay_intake
from jobgrant.service.outcomes.kpi_columns import FIRM_SIZES
from jobgrant.service.outcomes.replay import Replay
from jobgrant.service.refusals import shown
from jobgrant.service.web.forms.replay import ReplayChoice
from jobgrant.service.web.labels import stream_label
from jobgrant.service.web.pages import analyst_required, error_context, query_params

TEMPLATE = "web/analyst/replay.html"


@require_GET
@analyst_required
def replay_page(request: HttpRequest, user: User) -> HttpResponse:
    asked = query_params(request)
    form = ReplayChoice(asked or None)
    context: dict[str, Any] = {"title": _("Replay a closed intake"), "form": form}
    if not asked:
        return render(request, TEMPLATE, context)
    if not form.is_valid():
        return render(request, TEMPLATE, {**context, **error_context(form)}, status=422)
    intake, policy = form.choice()
    try:
        result = replay_intake(user, intake, policy.argument)
    except ServiceError as error:
        context["refusal"] = shown(error)
        return render(request, TEMPLATE, context, status=error.status)
    context.update(_figures(result, getattr(policy, f"title_{current_language()}")))
    context["csv_href"] = f"{reverse('web:analyst-replay-csv')}?{urlencode(asked)}"
    return render(request, TEMPLATE, context)


@require_GET
@analyst_required
def replay_csv(request: HttpRequest, user: User) -> HttpResponse:
    form = ReplayChoice(query_params(request))
    if not form.is_valid():
        return HttpResponse(status=422)
    intake, policy = form.choice()
    try:
        result = replay_intake(user, intake, policy.argument)
    except ServiceError as error:
        return HttpResponse(status=error.status)
    language = current_language()
    response = HttpResponse(
        replay_output.csv_text(result, language), content_type="text/csv; charset=utf-8"
    )
    name = f"replay-{intake}-{policy.key}-{language}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _figures(result: Replay, policy_title: str) -> dict[str, Any]:
    language = current_language()
    changes = replay_output.changes(result)
    plot = base64.b64encode(replay_output.svg(result, language)).decode("ascii")
    return {
        "policy_title": policy_title,
        "summary": replay_output.summary(result, language),
        "changes": {key: len(files) for key, files in changes.items()},
        "mixes": [
            (_("By firm size"), "firm-size", _labelled(result.mix("firm_size"), _firm_size)),
            (_("By stream"), "stream", _labelled(result.mix("stream"), stream_label)),
            (_("By economic region"), "region", _labelled(result.mix("region"), _region)),
        ],
        "plot": f"data:image/svg+xml;base64,{plot}",
        "files": len(result.files),
        "ranked": result.ranked,
        "moved": len(result.moved()),
        "rank_rows": _rank_rows(result) if result.ranked else [],
    }


def _rank_rows(result: Replay) -> list[dict[str, Any]]:
    """A ranked intake's files whose funding the other policy changes, in its new order, with
    their rank and score as decided and replayed."""
    return [
        {
            "application": file.application,
            "rank_then": file.rank_then,
            "score_then": file.score_then,
            "rank_now": file.rank_now,
            "score_now": file.score_now,
            "gains": file.change == "gains",
        }
        for file in result.in_order("now")
        if file.change != "same"
    ]


def _labelled(mix: dict[str, dict[str, int]], label: Any) -> list[tuple[str, dict[str, int]]]:
    return [(label(value), row) for value, row in mix.items()]


def _firm_size(band: str) -> str:
    names = {code: (en, fr) for code, en, fr in FIRM_SIZES}
    english, french = names.get(band, (band, band))
    return in_language(en=english, fr=french)


def _region(code: str) -> str:
    """The region's name as Statistics Canada writes it (in one language), with its code."""
    region = economic_regions().get(code)
    if region is None:
        return code or _("No region given")
    return f"{region.display_name} ({code})"
