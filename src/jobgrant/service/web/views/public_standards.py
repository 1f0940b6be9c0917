"""The service standards and how often they are met, for anyone (no sign-in): each standard
with its number of business days, its target share and its sources; then, for a fiscal year,
each standard's results per quarter and jurisdiction (outcomes.standards_results), and every
quarter's results as CSV. The choice is a GET: a result can be bookmarked, or opened in the
other language."""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from typing import Any

from babel.numbers import format_percent
from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.policies import DEFAULT_POLICY
from jobgrant.service.grants.applications.service_standards import (
    STANDARD_LABELS,
    Place,
    Standard,
    terms_of,
)
from jobgrant.service.language import current_locale
from jobgrant.service.outcomes.report.cells import rate_text
from jobgrant.service.outcomes.standards_results import CANADA, Result, results
from jobgrant.service.web.labels import jurisdiction_name
from jobgrant.service.web.pages import error_context, set_choices

QUARTERS = {
    1: gettext_lazy("April to June"),
    2: gettext_lazy("July to September"),
    3: gettext_lazy("October to December"),
    4: gettext_lazy("January to March"),
}
COUNTED = {
    Standard.ACKNOWLEDGE: gettext_lazy(
        "From the day the application is received to the day its receipt is confirmed in writing."
    ),
    Standard.DECIDE: gettext_lazy(
        "From the day the application is received to the day it is approved or denied."
    ),
    Standard.PAY: gettext_lazy(
        "From the day a claim is approved to the day its payment is confirmed paid."
    ),
}


class ResultsChoice(forms.Form):
    fiscal_year = forms.ChoiceField(label=gettext_lazy("Fiscal year"), required=False)
    jurisdiction = forms.ChoiceField(label=gettext_lazy("Province or territory"), required=False)

    def __init__(self, data: Any, years: list[str]) -> None:
        super().__init__(data)
        set_choices(self, "fiscal_year", [(y, y) for y in reversed(years)] or [("", "—")])
        places = [(code, jurisdiction_name(code)) for code in JURISDICTION_CODES]
        set_choices(self, "jurisdiction", [("", _("Every province and territory")), *places])


def _place_name(code: str) -> str:
    return _("Canada: every file") if code == CANADA else jurisdiction_name(code)


def _percent(share: Fraction) -> str:
    return format_percent(Decimal(share.numerator) / share.denominator, locale=current_locale())


def _standards(today: dt.date) -> list[dict[str, Any]]:
    """Each standard as it stands today: the figure most provinces use, and every province
    that sets its own."""
    rows = []
    for standard in Standard:
        terms = {
            code: terms_of(standard, Place((DEFAULT_POLICY,), code, None), today)
            for code in JURISDICTION_CODES
        }
        usual = Counter(t.business_days for t in terms.values()).most_common(1)[0][0]
        default = next(t for t in terms.values() if t.business_days == usual)
        own = [
            {"place": jurisdiction_name(code), "days": t.business_days}
            for code, t in terms.items()
            if t.business_days != usual
        ]
        rows.append(
            {
                "key": standard.value,
                "label": STANDARD_LABELS[standard],
                "days": usual,
                "target": _percent(default.target),
                "counted": COUNTED[standard],
                "own": own,
                "reference": default.reference,
            }
        )
    return rows


def _row(result: Result) -> dict[str, Any]:
    return {
        "quarter": result.quarter,
        "quarter_label": QUARTERS[result.quarter],
        "place": _place_name(result.jurisdiction),
        "canada": result.jurisdiction == CANADA,
        "due": result.due,
        "met": rate_text(result.met, result.due),
        "target": _percent(result.target),
        "target_met": result.target_met,
    }


def _tables(found: list[Result], year: str, place: str) -> list[dict[str, Any]]:
    """The year's results: of one jurisdiction when one is chosen, else of each and Canada."""
    chosen = [r for r in found if r.fiscal_year == year and place in ("", r.jurisdiction)]
    return [
        {
            "key": standard.value,
            "label": STANDARD_LABELS[standard],
            "rows": [_row(r) for r in chosen if r.standard is standard],
        }
        for standard in Standard
    ]


@require_GET
def service_standards(request: HttpRequest) -> HttpResponse:
    today = timezone.localdate()
    found = results(today)
    years = sorted({r.fiscal_year for r in found})
    form = ResultsChoice({"fiscal_year": years[-1] if years else "", **request.GET.dict()}, years)
    context: dict[str, Any] = {
        "title": _("Service standards and how often we meet them"),
        "form": form,
        "standards": _standards(today),
        "has_results": bool(found),
    }
    if not form.is_valid():
        context.update(error_context(form))
        return render(request, "web/standards/results.html", context)
    year, place = form.cleaned_data["fiscal_year"], form.cleaned_data["jurisdiction"]
    context.update({"year": year, "place": place, "tables": _tables(found, year, place or "")})
    return render(request, "web/standards/results.html", context)


CSV_COLUMNS = (
    "fiscal_year",
    "quarter",
    "jurisdiction",
    "standard",
    "files_due",
    "files_met",
    "share_met",
    "target_share",
    "target_met",
)


@require_GET
def service_standards_csv(request: HttpRequest) -> HttpResponse:
    """Every quarter's results, for every jurisdiction and Canada (`CA`), shares as decimals."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in results(timezone.localdate()):
        share = Decimal(r.met) / r.due
        target = Decimal(r.target.numerator) / r.target.denominator
        writer.writerow(
            [
                r.fiscal_year,
                r.quarter,
                r.jurisdiction,
                r.standard.value,
                r.due,
                r.met,
                f"{share:.4f}",
                f"{target:.4f}",
                "yes" if r.target_met else "no",
            ]
        )
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="service-standards.csv"'
    return response
