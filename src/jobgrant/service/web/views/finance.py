"""The finance officer's page: budgets per jurisdiction, fiscal year, funder and stream.

Each budget shows what was allocated, committed, disbursed and what is still available, with a
bar (HTML and CSS) of committed and available money in the same table row as its figures, and a
CSV export of exactly what the filters show.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from babel.numbers import format_percent
from django.db.models import QuerySet, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from jobgrant.rules.codes import fiscal_year
from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import Role
from jobgrant.service.language import current_language as language
from jobgrant.service.language import in_language
from jobgrant.service.ledger.models import BudgetAccount
from jobgrant.service.web.forms.finance import ALL, BudgetFilter
from jobgrant.service.web.labels import (
    FUNDER_LABELS,
    jurisdiction_name,
    label,
    stream_label,
)
from jobgrant.service.web.pages import error_context, role_required
from jobgrant.service.web.templatetags.jobgrant import LOCALES

MONEY = ("allocated", "committed", "disbursed", "available")


def _chosen(form: BudgetFilter) -> dict[str, str]:
    """The filters in force: the fiscal year defaults to the current one."""
    chosen = {k: str(v) for k, v in form.cleaned_data.items() if v}
    if "fiscal_year" not in chosen:
        chosen["fiscal_year"] = fiscal_year(timezone.localdate())
    if chosen["fiscal_year"] == ALL:
        del chosen["fiscal_year"]
    return chosen


def budgets(chosen: dict[str, str]) -> QuerySet[BudgetAccount]:
    order = ("fiscal_year", "jurisdiction", "funder", "stream")
    return BudgetAccount.objects.filter(**chosen).order_by(*order)


def percent(value: float) -> str:
    """12.5 as "12.5%" / "12,5 %"."""
    pattern = in_language(en="#,##0.0%", fr="#,##0.0\u00a0%")
    return format_percent(value / 100, format=pattern, locale=LOCALES[language()])


def _row(account: BudgetAccount) -> dict[str, Any]:
    allocated = account.allocated_cents
    committed_share = account.committed_cents * 100 / allocated if allocated else 0
    return {
        "id": account.pk,
        "fiscal_year": account.fiscal_year,
        "jurisdiction": account.jurisdiction,
        "jurisdiction_name": jurisdiction_name(account.jurisdiction),
        "funder": account.funder,
        "funder_label": label(FUNDER_LABELS, account.funder),
        "stream": account.stream,
        "allocated": account.allocated_cents,
        "committed": account.committed_cents,
        "disbursed": account.disbursed_cents,
        "available": account.available_cents,
        # the bar: widths in percent of the allocation (SVG), and the same in words
        "committed_percent": f"{committed_share:.2f}",
        "available_percent": f"{100 - committed_share:.2f}",
        "committed_text": percent(committed_share),
        "available_text": percent(100 - committed_share if allocated else 0),
        "has_allocation": allocated > 0,
    }


def _totals(found: QuerySet[BudgetAccount]) -> dict[str, int]:
    sums = found.aggregate(
        allocated=Sum("allocated_cents"),
        committed=Sum("committed_cents"),
        disbursed=Sum("disbursed_cents"),
    )
    totals = {k: int(v or 0) for k, v in sums.items()}
    totals["available"] = totals["allocated"] - totals["committed"]
    return totals


@require_GET
@role_required(Role.FINANCE)
def budget_page(request: HttpRequest) -> HttpResponse:
    form = BudgetFilter(request.GET)
    context: dict[str, Any] = {"title": _("Budgets"), "form": form}
    if not form.is_valid():
        return render(request, "web/finance/budgets.html", {**context, **error_context(form)})
    chosen = _chosen(form)
    found = budgets(chosen)
    context.update(
        {
            "rows": [_row(account) for account in found],
            "totals": _totals(found),
            "chosen": chosen,
            "csv_query": request.META.get("QUERY_STRING", ""),
            "year_label": chosen.get("fiscal_year", _("all fiscal years")),
        }
    )
    return render(request, "web/finance/budgets.html", context)


def csv_filename(chosen: dict[str, str]) -> str:
    """budgets_2026-27_ON_federal_CJG.csv: the filters, in a fixed order."""
    parts = [chosen[k] for k in ("fiscal_year", "jurisdiction", "funder", "stream") if k in chosen]
    return "_".join(["budgets", *(parts or ["all"])]) + ".csv"


@require_GET
@role_required(Role.FINANCE)
def budget_csv(request: HttpRequest) -> HttpResponse:
    """The budgets the page shows, as CSV: decimal strings, UTF-8 with a BOM (for Excel), and
    the jurisdictions and funders named in the page's language."""
    form = BudgetFilter(request.GET)
    if not form.is_valid():
        return render(
            request,
            "web/finance/budgets.html",
            {"title": _("Budgets"), "form": form, **error_context(form)},
            status=400,
        )
    chosen = _chosen(form)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(
        [
            _("Fiscal year"),
            _("Jurisdiction"),
            _("Funder"),
            _("Stream"),
            _("Allocated"),
            _("Committed"),
            _("Disbursed"),
            _("Available"),
        ]
    )
    for account in budgets(chosen):
        writer.writerow(
            [
                account.fiscal_year,
                jurisdiction_name(account.jurisdiction),
                label(FUNDER_LABELS, account.funder),
                stream_label(account.stream),
                format_amount(account.allocated_cents),
                format_amount(account.committed_cents),
                format_amount(account.disbursed_cents),
                format_amount(account.available_cents),
            ]
        )
    response = HttpResponse(
        ("\ufeff" + buffer.getvalue()).encode("utf-8"), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{csv_filename(chosen)}"'
    return response
