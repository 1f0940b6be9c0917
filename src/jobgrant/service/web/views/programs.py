"""A program manager's pages: the programs by jurisdiction and fiscal year, a stream's rules
(read from the rules kernel) and its selection, and its intakes. The administrator has them
too; the actions (grants/intakes) decide who may change what."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.intakes import access
from jobgrant.service.grants.intakes import actions as intake_actions
from jobgrant.service.grants.intakes.kernel_rules import Rule, program_rules
from jobgrant.service.grants.intakes.scoring import scoring_sets
from jobgrant.service.grants.models.applications import Intake, IntakeState, Stream
from jobgrant.service.grants.models.ranking import OverrideState
from jobgrant.service.grants.ranking import access as ranking_access
from jobgrant.service.language import in_language
from jobgrant.service.ledger.models import Earmark
from jobgrant.service.web import labels
from jobgrant.service.web.forms import programs as forms
from jobgrant.service.web.forms.organizations import show_problems
from jobgrant.service.web.pages import (
    form_page,
    program_manager_required,
    set_notice,
    switching_language,
    take_notice,
    visible_or_404,
)
from jobgrant.service.web.templatetags.jobgrant import money

RULE_LABELS = {
    "cjg.federal.rate": gettext_lazy("Federal share of eligible costs"),
    "cjg.federal.max_per_trainee": gettext_lazy("Most federal money per trainee"),
    "cjg.provincial.rate": gettext_lazy("Provincial or territorial share of eligible costs"),
    "cjg.provincial.max_per_trainee": gettext_lazy(
        "Most provincial or territorial money per trainee"
    ),
    "cjg.training.setting.on_site": gettext_lazy("Training at the workplace"),
    "cjg.training.setting.off_site": gettext_lazy("Training in a classroom, off site"),
    "cjg.training.setting.online": gettext_lazy("Training online"),
}
NOTICES = {
    "created": gettext_lazy("The intake was created."),
    "changed": gettext_lazy("The intake was changed."),
    "closed": gettext_lazy("The intake was closed: it receives no more applications."),
    "ranked": gettext_lazy(
        "The intake was ranked: the officers' queue opens its applications in rank order."
    ),
    "rules": gettext_lazy("The stream's rules were saved."),
}


def notice_text(request: HttpRequest) -> str:
    notice = take_notice(request)
    return str(NOTICES.get(str(notice.get("kind")), "")) if notice else ""


def intake_name(intake: Intake) -> str:
    return in_language(en=intake.name_en, fr=intake.name_fr) or _("Intake %(id)s") % {
        "id": intake.pk
    }


def stream_name(stream: Stream) -> str:
    return str(in_language(en=stream.name_en, fr=stream.name_fr))


@program_manager_required
def program_list(request: HttpRequest, user: User) -> HttpResponse:
    programs = access.visible_programs(user).prefetch_related("streams__intakes")
    rows = [
        {
            "program": program,
            "jurisdiction": labels.jurisdiction_name(program.jurisdiction),
            "manages": access.manages(user, program.jurisdiction),
            "streams": [
                {"stream": s, "name": stream_name(s), "intakes": len(s.intakes.all())}
                for s in program.streams.all()
            ],
        }
        for program in programs
    ]
    awaiting = ranking_access.visible_overrides(user).filter(state=OverrideState.REQUESTED)
    context = {
        "title": _("Programs"),
        "rows": rows,
        "notice": notice_text(request),
        "overrides_awaiting": awaiting.count(),
    }
    return render(request, "web/programs/list.html", context)


def _rule_rows(rules: list[Rule]) -> list[dict[str, Any]]:
    return [
        {
            "label": RULE_LABELS.get(rule.name, rule.name),
            "value": _rule_value(rule),
            "effective": rule.effective,
            "references": rule.references,
        }
        for rule in rules
    ]


def _rule_value(rule: Rule) -> str:
    if rule.unit == "boolean":
        return _("Eligible") if rule.value else _("Not eligible")
    if rule.unit == "CAD":
        return money(int(rule.value or 0))
    ratio = Fraction(rule.value or 0)
    return str(ratio.numerator) if ratio.denominator == 1 else f"{ratio}"


def intake_rows(stream: Stream) -> list[dict[str, Any]]:
    earmarks: dict[int, int] = {}
    for earmark in Earmark.objects.filter(intake__stream=stream):
        earmarks[earmark.intake_id] = earmarks.get(earmark.intake_id, 0) + earmark.committed_cents
    return [
        {
            "intake": intake,
            "name": intake_name(intake),
            "state": labels.label(labels.INTAKE_STATE_LABELS, intake.state),
            "committed": earmarks.get(intake.pk, 0),
            "may_change": intake.state == IntakeState.SCHEDULED,
            "may_close": intake.state in (IntakeState.SCHEDULED, IntakeState.OPEN),
        }
        for intake in stream.intakes.order_by("opens_on", "id")
    ]


def _stream(user: User, stream_id: int) -> Stream:
    return visible_or_404(access.get_visible_stream, user, stream_id)


@program_manager_required
def stream_page(request: HttpRequest, user: User, stream_id: int) -> HttpResponse:
    stream = _stream(user, stream_id)
    program = stream.program
    rules = program_rules(program, dt.date(int(program.fiscal_year[:4]), 4, 1))
    context = {
        "title": stream_name(stream),
        "stream": stream,
        "program": program,
        "jurisdiction": labels.jurisdiction_name(program.jurisdiction),
        "selection": labels.label(labels.SELECTION_LABELS, stream.selection),
        "rates": _rule_rows(rules["rates"]),
        "settings": _rule_rows(rules["settings"]),
        "intakes": intake_rows(stream),
        "manages": access.manages(user, program.jurisdiction),
        "notice": notice_text(request),
    }
    return render(request, "web/programs/stream.html", context)


@program_manager_required
@require_http_methods(["GET", "POST"])
def stream_rules(request: HttpRequest, user: User, stream_id: int) -> HttpResponse:
    stream = _stream(user, stream_id)
    initial = {
        "selection": stream.selection,
        "scoring": stream.scoring,
        "policy": stream.program.policy,
    }
    choices = {"sets": scoring_sets(), "policies": intake_actions.policy_names()}
    posted = request.POST if request.method == "POST" else None
    form = forms.StreamRulesForm(posted, initial=initial, **choices)
    first: list[tuple[str, str]] = []
    if request.method == "POST" and not switching_language(request):
        try:
            intake_actions.change_stream(user, stream, form.typed())
        except ServiceError as error:
            first = show_problems(form, error)
        else:
            set_notice(request, "rules")
            return redirect("web:program-stream", stream_id=stream.pk)
    context = {
        "title": _("The rules of %(stream)s") % {"stream": stream_name(stream)},
        "stream": stream,
        "form": form,
        "no_sets": not choices["sets"],
    }
    return form_page(request, "web/programs/rules.html", context, [form], first)
