"""The rows of the employer's dashboard: one for each application the employer made or is a
partner in, with its stage, next step and figures (the lead's totals, or a partner's own share).

Each row's `<tr>` is written here rather than by the template's dozen tags on each of the
employer's files (ADR 0055): the same HTML, escaped as the template escaped it
(tests/web/test_employer_pages.py holds it to the template it replaced).
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from jobgrant.service.web import labels
from jobgrant.service.web.employer_stage import next_step_text, stage_of
from jobgrant.service.web.forms import employer as forms
from jobgrant.service.web.templatetags.jobgrant import longdate, money

#: The application's columns a dashboard row reads (with its agreement's and report's state).
COLUMNS = (
    "id",
    "state",
    "jurisdiction",
    "received_on",
    "federal_cents",
    "provincial_cents",
    "employer_cents",
    "agreement__state",
    "agreement__version",
    "completion_report__state",
)


def row(
    application: Any, links: list[Any], own: set[str] | None, states: dict[str, str]
) -> dict[str, Any]:
    """A dashboard row: the application's totals, or (for a partner) its own share only.
    `application` comes with `start_date` (its training's) and `quote_employers` (the quote's
    shares) read by the dashboard's query."""
    figures: dict[str, Any] = {
        "federal": application.federal_cents,
        "provincial": application.provincial_cents,
        "employer": application.employer_cents,
    }
    if own is not None:
        employers = application.quote_employers
        shares = [e for e in employers or [] if isinstance(e, dict) and e.get("id") in own]
        figures = {k: sum(forms.parse_money(str(e.get(k, "0"))) for e in shares) for k in figures}
    start_date = application.start_date
    stage = stage_of(application)
    return {
        "application": application,
        "label": _("Application %(number)s") % {"number": application.pk},
        "next_step": next_step_text(stage),
        "lead": links[0].employer if links else None,
        "partners": len(links) - 1,
        "state": states.get(application.state, application.state),
        "stage": stage,
        "jurisdiction": labels.jurisdiction_name(application.jurisdiction),
        "start_date": start_date if isinstance(start_date, str) else "",
        **figures,
    }


def row_html(fields: dict[str, Any]) -> SafeString:
    """A dashboard row's `<tr>`, written here rather than by the template's dozen tags on each
    of the employer's files: the same HTML, escaped as the template escaped it."""
    pk = fields["application"].pk
    partners = fields["partners"]
    applicant = format_html(
        "{}{}",
        fields["lead"].name if fields["lead"] else "",
        format_html(
            '<br><span class="jg-hint">{}</span>',
            # The translation as written, as {% blocktranslate %} gives it (a number, unescaped).
            mark_safe(
                ngettext("and %(partners)s partner", "and %(partners)s partners", partners)
                % {"partners": partners}
            ),
        )
        if partners
        else "",
    )
    return format_html(
        '\n    <tr>\n      <th scope="row"><a href="{}" id="application-{}">{}</a></th>'
        "\n      <td>{}</td>"
        '\n      <td id="stage-{}">{}</td>'
        '\n      <td id="next-step-{}">{}</td>'
        "\n      <td>{}</td>\n      <td>{}</td>\n      <td>{}</td>"
        '\n      <td class="jg-num">{}</td>\n      <td class="jg-num">{}</td>'
        '\n      <td class="jg-num">{}</td>\n    </tr>',
        reverse("web:employer-application", args=[pk]),
        pk,
        fields["label"],
        applicant,
        pk,
        fields["stage"].label,
        pk,
        fields["next_step"],
        fields["jurisdiction"],
        longdate(fields["start_date"]),
        longdate(fields["application"].received_on),
        money(fields["federal"]),
        money(fields["provincial"]),
        money(fields["employer"]),
    )
