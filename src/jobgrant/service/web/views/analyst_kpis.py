"""The KPIs page for analysts and officers: choose a jurisdiction (or Canada) and a fiscal year,
read the tables added up from the stored KPI cells (`outcomes.snapshots`), suppressed cells marked
and explained, each survey figure with its response rate beside it, and when the figures are as
of. A GET (it stores a scope's cells the first time they are read), bookmarkable. An analyst's
"Refresh now" is a POST that hands the scope to the worker, answered by a redirect to the page,
which then says how far the refresh has got."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from babel.numbers import format_decimal, format_percent
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from jobgrant.rules.money import format_money
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.errors import ServiceError
from jobgrant.service.language import current_language, current_locale
from jobgrant.service.outcomes.access import (
    default_jurisdiction,
    export_evaluation,
    read_kpis,
    refresh_kpis,
)
from jobgrant.service.outcomes.report.cells import points_text
from jobgrant.service.outcomes.snapshots import freshness
from jobgrant.service.outcomes.tables import Figure, Table, Unit
from jobgrant.service.refusals import shown
from jobgrant.service.web.forms.kpis import KpiChoice
from jobgrant.service.web.labels import jurisdiction_name
from jobgrant.service.web.pages import analyst_required, error_context, query_params, user_required

#: The footnote mark of a suppressed cell (Statistics Canada's symbol for confidential data).
MARK = "x"


@dataclass(frozen=True)
class Cell:
    text: str
    response: str = ""
    suppressed: str = ""


@require_GET
@user_required(Role.ANALYST, Role.OFFICER)
def kpis_page(request: HttpRequest, user: User) -> HttpResponse:
    data = {"jurisdiction": default_jurisdiction(user) or ""}
    data.update(query_params(request))
    form = KpiChoice(data, user)
    context: dict[str, Any] = {"title": _("Did the training lead to jobs?"), "form": form}
    if not form.is_valid():
        return render(
            request, "web/analyst/kpis.html", {**context, **error_context(form)}, status=422
        )
    jurisdiction, year = form.choice()
    try:
        report = read_kpis(user, jurisdiction, year)
    except ServiceError as error:
        context["refusal"] = shown(error)
        return render(request, "web/analyst/kpis.html", context, status=error.status)
    place = jurisdiction_name(jurisdiction) if jurisdiction else _("Canada")
    context.update(
        {
            "place": place,
            "year": year,
            "tables": [table_context(table) for table in report.tables],
            "suppressed": report.suppressed,
            "threshold": report.threshold,
            "as_of": report.as_of,
            "freshness": freshness(jurisdiction, year),
            "refresh_minutes": int(settings.JOBGRANT_KPI_REFRESH_MINUTES),
            "choice": {"jurisdiction": jurisdiction or "", "fiscal_year": year},
        }
    )
    return render(request, "web/analyst/kpis.html", context)


@require_POST
@analyst_required
def kpis_refresh(request: HttpRequest, user: User) -> HttpResponse:
    """ "Refresh now": the chosen scope's stored cells computed again by the worker."""
    form = KpiChoice(request.POST, user)
    if not form.is_valid():
        context = {"title": _("Did the training lead to jobs?"), "form": form}
        return render(
            request, "web/analyst/kpis.html", {**context, **error_context(form)}, status=422
        )
    jurisdiction, year = form.choice()
    refresh_kpis(user, jurisdiction, year)
    query = f"?jurisdiction={jurisdiction or ''}&fiscal_year={year}"
    return redirect(reverse("web:analyst-kpis") + query + "#kpi-as-of")


@require_GET
@analyst_required
def kpis_evaluation_csv(request: HttpRequest, user: User) -> HttpResponse:
    """The evaluator's de-identified, linkable file of the chosen fiscal year (every
    jurisdiction): a keyed pseudonym per person, never a name or a SIN. Audited."""
    form = KpiChoice({"jurisdiction": "", **query_params(request)}, user)
    if not form.is_valid():
        context = {"title": _("Did the training lead to jobs?"), "form": form}
        return render(
            request, "web/analyst/kpis.html", {**context, **error_context(form)}, status=422
        )
    year = form.choice()[1]
    text = export_evaluation(user, year)
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="evaluation-{year}.csv"'
    response["Cache-Control"] = "no-store"
    return response


#: The most figure columns one table of the page holds: a wider table (the headline's fifteen)
#: is shown in parts, each with the row labels again, so that it fits a 1280 px window whole.
PAGE_COLUMNS = 5


def table_context(table: Table) -> dict[str, Any]:
    """A table as the page shows it: in the page's language, wide ones in parts."""
    lang = current_language()
    columns = [getattr(column, f"title_{lang}") for column in table.columns]
    rows = [
        {
            "label": getattr(row, f"label_{lang}"),
            "total": row.key == "total",
            "cells": [cell(row.figures[column.id]) for column in table.columns],
        }
        for row in table.rows
    ]
    hidden = {
        "small": _("suppressed: fewer than 10 people"),
        "complementary": _("suppressed: would reveal a small cell"),
    }
    count = max(1, -(-len(columns) // PAGE_COLUMNS))
    size = max(1, -(-len(columns) // count))
    parts = [
        {
            "id": table.id if count == 1 else f"{table.id}-part-{n + 1}",
            "number": n + 1,
            "of": count,
            "columns": columns[n * size : (n + 1) * size],
            "rows": [
                {**row, "cells_html": cells_html(row["cells"][n * size : (n + 1) * size], hidden)}
                for row in rows
            ],
        }
        for n in range(count)
    ]
    return {
        "id": table.id,
        "title": getattr(table, f"title_{lang}"),
        "note": getattr(table, f"note_{lang}"),
        "columns": columns,
        "rows": rows,
        "parts": parts,
    }


def cells_html(cells: list[Cell], hidden: dict[str, str]) -> SafeString:
    """A row's figure cells, as web/analyst/_tables.html writes them: made here rather than by
    the template, which took about 20 µs a cell, hundreds of cells a page (docs/benchmarks.md,
    "The crowd"). A suppressed cell shows its mark to the eye and says why to a screen reader
    (`hidden`: the words for a "small" cell, and for a "complementary" one)."""
    written = []
    for one in cells:
        if one.suppressed:
            why = hidden["small"] if one.suppressed == "small" else hidden["complementary"]
            td = format_html(
                '<td class="jg-num" data-suppressed="{}"><span aria-hidden="true">{}</span>'
                '<span class="jg-visually-hidden">{}</span></td>',
                one.suppressed,
                one.text,
                why,
            )
        elif one.response:
            td = format_html(
                '<td class="jg-num">{}<br><small>{}</small></td>', one.text, one.response
            )
        else:
            td = format_html('<td class="jg-num">{}</td>', one.text)
        written.append(f"\n      {td}\n      ")
    return mark_safe("".join(written))  # each cell escaped by format_html


def cell(figure: Figure) -> Cell:
    """A figure as the page shows it, in the page's language."""
    if not figure.shown:
        return Cell(MARK, suppressed=str(figure.suppressed))
    response = ""
    if figure.response is not None and figure.response.shown:
        response = _("response %(rate)s") % {"rate": _ratio_text(figure.response)}
    return Cell(_figure_text(figure), response)


def _figure_text(figure: Figure) -> str:
    lang = current_language()
    if figure.unit in (Unit.PEOPLE, Unit.FILES, Unit.DAYS, Unit.COUNT):
        return format_decimal(figure.value or 0, locale=current_locale())
    if figure.unit is Unit.MINUTES:
        return duration_text(figure.value)
    if figure.unit is Unit.CENTS:
        return format_money(figure.value or 0, lang)
    if figure.unit is Unit.POINTS:
        return "—" if figure.value is None else points_text(figure.value)
    if not figure.denominator:
        return "—"
    if figure.unit is Unit.RATE:
        return _ratio_text(figure)
    quotient = Decimal(figure.numerator or 0) / Decimal(figure.denominator)
    if figure.unit is Unit.CENTS_PER:
        return format_money(int(quotient.quantize(Decimal(1), ROUND_HALF_EVEN)), lang)
    return format_decimal(quotient.quantize(Decimal("0.1")), "#,##0.0", locale=current_locale())


def duration_text(minutes: int | None) -> str:
    """A time in whole minutes as people read it: minutes, then hours, then days and hours."""
    if minutes is None:
        return "—"
    if minutes < 60:
        return _("%(minutes)s min") % {"minutes": minutes}
    hours, rest = divmod(minutes, 60)
    if hours < 48:
        return _("%(hours)s h %(minutes)02d min") % {"hours": hours, "minutes": rest}
    days, hours = divmod(hours, 24)
    return ngettext("%(days)s day %(hours)s h", "%(days)s days %(hours)s h", days) % {
        "days": days,
        "hours": hours,
    }


def _ratio_text(figure: Figure) -> str:
    """A rate as a percentage with one decimal, and its numerator / denominator."""
    if not figure.denominator:
        return "—"
    rate = Decimal(figure.numerator or 0) / Decimal(figure.denominator)
    pattern = {"fr": "#,##0.0\u00a0%"}.get(current_language(), "#,##0.0%")
    percent = format_percent(rate, pattern, locale=current_locale())
    counts = f"{format_decimal(figure.numerator or 0, locale=current_locale())}"
    counts += f"/{format_decimal(figure.denominator, locale=current_locale())}"
    return f"{percent} ({counts})"
