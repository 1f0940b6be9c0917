"""The annual accountability report as a page, for analysts and officers: the same ReportView
the PDF prints (outcomes/report/content.py), the plots inline as SVG with their title,
description and figures beside them, and the downloads (the PDF in either language, a CSV of
each table). The form is a GET: reading a report changes nothing, and a report can be
bookmarked or opened in the other language.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.errors import ServiceError
from jobgrant.service.language import current_language, in_language
from jobgrant.service.outcomes.access import default_jurisdiction, read_annual_report
from jobgrant.service.outcomes.report import csvfiles, source
from jobgrant.service.outcomes.report.content import place_name, view
from jobgrant.service.outcomes.report.integrity import out_of_rank_sentence
from jobgrant.service.outcomes.report.pdf import report_pdf
from jobgrant.service.outcomes.report.plots import plots
from jobgrant.service.outcomes.tables import KpiReport
from jobgrant.service.refusals import shown
from jobgrant.service.web.pages import error_context, set_choices, user_required

ROLES = (Role.ANALYST, Role.OFFICER)


class AnnualReportForm(forms.Form):
    jurisdiction = forms.ChoiceField(label=gettext_lazy("Province or territory"), required=False)
    fiscal_year = forms.CharField(
        label=gettext_lazy("Fiscal year"),
        help_text=gettext_lazy("For example 2015-16 (April 1, 2015 to March 31, 2016)."),
        required=False,
    )

    def __init__(self, data: Any) -> None:
        super().__init__(data)
        places = [(code, place_name(code)) for code in source.CODES]
        set_choices(
            self, "jurisdiction", [(source.NATIONAL, _("Canada (national report)")), *places]
        )

    def clean_jurisdiction(self) -> str:
        return str(self.cleaned_data["jurisdiction"] or source.NATIONAL)

    def clean_fiscal_year(self) -> str:
        year = str(self.cleaned_data["fiscal_year"] or source.last_fiscal_year())
        problem = source.fiscal_year_problem(year)
        if problem is not None:
            raise forms.ValidationError(in_language(en=problem.en, fr=problem.fr))
        return year


def _choice(request: HttpRequest, user: User) -> AnnualReportForm:
    own = default_jurisdiction(user) or ""  # an officer starts on their own
    return AnnualReportForm({"jurisdiction": own, **request.GET.dict()})


def _query(form: AnnualReportForm, **extra: str) -> str:
    return urlencode(
        {
            "jurisdiction": form.cleaned_data["jurisdiction"],
            "fiscal_year": form.cleaned_data["fiscal_year"],
            **extra,
        }
    )


def _report(form: AnnualReportForm, user: User) -> KpiReport:
    """The report chosen, if `user` may read its jurisdiction's KPIs (an officer: their own);
    ServiceError 403, audited, else."""
    jurisdiction = source.jurisdiction_of(form.cleaned_data["jurisdiction"])
    return read_annual_report(user, jurisdiction, form.cleaned_data["fiscal_year"])


def _readable(form: AnnualReportForm, user: User) -> KpiReport:
    """_report for a download: a refusal is the 403 page."""
    try:
        return _report(form, user)
    except ServiceError as error:
        raise PermissionDenied(error.message_en) from error


@require_GET
@user_required(*ROLES)
def annual(request: HttpRequest, user: User) -> HttpResponse:
    form = _choice(request, user)
    context: dict[str, Any] = {"title": _("Annual accountability report"), "form": form}
    if not form.is_valid():
        context.update(error_context(form))
        return render(request, "web/reports/annual.html", context)
    try:
        kpis = _report(form, user)
    except ServiceError as error:
        context["refusal"] = shown(error)
        return render(request, "web/reports/annual.html", context, status=error.status)
    query = _query(form)
    context.update(
        {
            "report": view(kpis, dt.datetime.now(dt.UTC)),
            "out_of_rank": out_of_rank_sentence(kpis),
            "plots": [(p, mark_safe(p.svg)) for p in plots(kpis)],
            "with_plot_tables": True,
            "in_page": True,
            "downloads": {
                "query": query,
                "table_csv": reverse("web:reports-annual-csv", kwargs={"table": "x"})[:-2],
                "pdf_en": reverse("web:reports-annual-pdf") + "?" + _query(form, language="en"),
                "pdf_fr": reverse("web:reports-annual-pdf") + "?" + _query(form, language="fr"),
            },
        }
    )
    return render(request, "web/reports/annual.html", context)


def _valid(request: HttpRequest, user: User) -> AnnualReportForm:
    form = _choice(request, user)
    if not form.is_valid():
        raise Http404("no such report")
    return form


@require_GET
@user_required(*ROLES)
def annual_pdf(request: HttpRequest, user: User) -> HttpResponse:
    """The report as a PDF, in ?language= (the page's language by default)."""
    form = _valid(request, user)
    language = request.GET.get("language") or current_language()
    if language not in ("en", "fr"):
        raise Http404("no such language")
    kpis = _readable(form, user)
    response = HttpResponse(
        report_pdf(kpis, language, dt.datetime.now(dt.UTC)), content_type="application/pdf"
    )
    name = csvfiles.file_name(kpis, language, "pdf")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_GET
@user_required(*ROLES)
def annual_csv(request: HttpRequest, user: User, table: str) -> HttpResponse:
    """One table of the report as CSV (the file `jobgrant report annual` writes)."""
    form = _valid(request, user)
    kpis = _readable(form, user)
    found = next((t for t in kpis.tables if t.id == table), None)
    if found is None:
        raise Http404("no such table")
    response = HttpResponse(csvfiles.table_csv(kpis, found), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{csvfiles.file_name(kpis, found.id)}"'
    return response
