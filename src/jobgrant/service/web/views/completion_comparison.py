"""The comparison group's page, opened by the e-mailed link (public: the link's token is the
key): the employer of a file the grant could not fund is asked for its consent, then whether
each person its application named is employed now (grants/completion/comparison.py)."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.completion import comparison
from jobgrant.service.language import labelled
from jobgrant.service.web.pages import switching_language
from jobgrant.service.web.views import completion_forms as forms
from jobgrant.service.web.views.participants import _link_refused, _private

ANSWERED_KEY = "jobgrant.comparison.answered"


@require_http_methods(["GET", "POST"])
def comparison_follow_up(request: HttpRequest, token: str) -> HttpResponse:
    """Consent, then the follow-up's four questions per person; once."""
    try:
        link = comparison.open_comparison_link(token)
    except ServiceError as error:
        if error.code == "FOLLOW_UP_LINK_USED" and request.session.pop(ANSWERED_KEY, None):
            return _thanks(request)
        return _link_refused(request, error)
    rows = comparison.waiting_rows(link)
    problems: dict[str, str] = {}
    if request.method == "POST" and not switching_language(request):
        answers = {row.position: forms.posted_answers(request, f"t{row.position}-") for row in rows}
        try:
            comparison.answer_comparison(token, request.POST.get("consent", ""), answers)
        except ServiceError as error:
            if error.status != 422:
                return _link_refused(request, error)
            prefixes = {f"trainees[{row.position}].": f"t{row.position}-" for row in rows}
            problems = forms.follow_up_problems(error, prefixes)
        else:
            request.session[ANSWERED_KEY] = True
            return _private(redirect(request.path))
    return _private(_page(request, link, rows, problems))


def _page(
    request: HttpRequest, link: Any, rows: list[Any], problems: dict[str, str]
) -> HttpResponse:
    questions = forms.follow_up_questions()
    people = [
        {
            "number": row.position + 1,
            "prefix": f"t{row.position}-",
            "values": {
                name: request.POST.get(f"t{row.position}-{name}", "")
                for name in forms.FOLLOW_UP_INPUTS
            },
            "errors": {
                name: problems.get(f"t{row.position}-{name}", "") for name in forms.FOLLOW_UP_INPUTS
            },
        }
        for row in rows
    ]
    consent = _("May we use your answers about these people to evaluate the program?")
    links = [
        (_anchor(name), labelled(questions.get(name.split("-", 1)[-1], consent), message))
        for name, message in problems.items()
    ]
    context = {
        "title": _("%(months)s months later: the people your application named")
        % {"months": link.milestone},
        "reference": link.application_id,
        "milestone": link.milestone,
        "q": questions,
        "people": people,
        "consent": request.POST.get("consent", ""),
        "consent_error": problems.get("consent", ""),
        "closes_on": link.expires_at,
        "error_links": links,
        "error_links_json": json.dumps(dict(links), ensure_ascii=False),
    }
    status = 422 if problems else 200
    return render(request, "web/completion/comparison_follow_up.html", context, status=status)


def _anchor(name: str) -> str:
    return "#consent-yes" if name == "consent" else f"#{forms.anchor(name)}"


def _thanks(request: HttpRequest) -> HttpResponse:
    context = {"title": _("Thank you: your answers were received")}
    return _private(render(request, "web/completion/trainee_thanks.html", context))
