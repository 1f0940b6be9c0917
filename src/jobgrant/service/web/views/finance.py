"""The finance officer's budgets per jurisdiction, fiscal year, funder and stream, and the
drill-down from a budget to its applications, their claims and payments.

Each budget shows what was allocated, committed to date, claimed and awaiting a decision,
certified and still to pay, disbursed, recovered and what is still available (the ledger's
`claimed` and `payable` are running totals: the pages show what still waits at each step), with
a bar (HTML and CSS) of committed and available money in the same table row as its figures, the
employer's share of the same files beside it (not government money: it is read from the
applications and claims, not the ledger), and a CSV export of exactly what the filters show.
"""

from __future__ import annotations

import csv
import functools
import io
from typing import Any

from babel.numbers import NumberPattern, format_percent, parse_pattern
from django.db.models import QuerySet, Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from jobgrant.rules.codes import fiscal_year
from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import User
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.grants.models.claims import Claim, ClaimShare, ClaimState
from jobgrant.service.grants.models.payments import (
    PaymentRequest,
    Receivable,
    ReceivableState,
    RequestState,
)
from jobgrant.service.language import current_locale, in_language
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Posting
from jobgrant.service.ledger.operations import Balances
from jobgrant.service.web.forms.finance import ALL, BudgetFilter
from jobgrant.service.web.labels import (
    FUNDER_LABELS,
    jurisdiction_name,
    label,
    stream_label,
)
from jobgrant.service.web.pages import error_context, finance_required

SHOWN = 500  # applications on a budget's page
#: The budget row's balances summed for the totals (claimed and payable, to work out what waits).
SUMMED = ("allocated", "committed", "claimed", "payable", "disbursed", "recovered")


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
    pattern = _percent_pattern(in_language(en="#,##0.0%", fr="#,##0.0\u00a0%"))
    return format_percent(value / 100, format=pattern, locale=current_locale())


@functools.cache
def _percent_pattern(pattern: str) -> NumberPattern:
    """The pattern parsed once, not once a row."""
    return parse_pattern(pattern)


def _row(account: BudgetAccount) -> dict[str, Any]:
    allocated = account.allocated_cents
    committed_share = account.committed_cents * 100 / allocated if allocated else 0
    committed_text = percent(committed_share)
    available_text = percent(100 - committed_share if allocated else 0)
    return {
        "id": account.pk,
        # Written here, not by a {% url %} and a {% blocktranslate %} on each row
        # (docs/benchmarks.md, "The crowd").
        "href": reverse("web:finance-budget", args=[account.pk]),
        # As {% blocktranslate %} does: the words as translated, the figures escaped.
        "bar_text": mark_safe(
            _("%(committed)s committed, %(available)s available")
            % {"committed": escape(committed_text), "available": escape(available_text)}
        ),
        "fiscal_year": account.fiscal_year,
        "jurisdiction": account.jurisdiction,
        "jurisdiction_name": jurisdiction_name(account.jurisdiction),
        "funder": account.funder,
        "funder_label": label(FUNDER_LABELS, account.funder),
        "stream": account.stream,
        "allocated": account.allocated_cents,
        "committed": account.committed_cents,
        "awaiting": account.awaiting_decision_cents,
        "to_pay": account.to_pay_cents,
        "disbursed": account.disbursed_cents,
        "recovered": account.recovered_cents,
        "available": account.available_cents,
        # the bar: widths in percent of the allocation (SVG), and the same in words
        "committed_percent": f"{committed_share:.2f}",
        "available_percent": f"{100 - committed_share:.2f}",
        "has_allocation": allocated > 0,
    }


def _totals(found: QuerySet[BudgetAccount]) -> dict[str, int]:
    sums = found.aggregate(**{name: Sum(f"{name}_cents") for name in SUMMED})
    totals = {k: int(v or 0) for k, v in sums.items()}
    totals["available"] = totals["allocated"] - totals["committed"]
    totals["awaiting"] = totals.pop("claimed") - totals["payable"]
    totals["to_pay"] = totals.pop("payable") - totals["disbursed"]
    return totals


@require_GET
@finance_required
def budget_page(request: HttpRequest, user: User) -> HttpResponse:
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
            "employer_shares": _employer_shares(chosen),
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
@finance_required
def budget_csv(request: HttpRequest, user: User) -> HttpResponse:
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
            _("Committed to date"),
            _("Claimed, awaiting a decision"),
            _("Certified, still to pay"),
            _("Disbursed"),
            _("Recovered"),
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
                format_amount(account.awaiting_decision_cents),
                format_amount(account.to_pay_cents),
                format_amount(account.disbursed_cents),
                format_amount(account.recovered_cents),
                format_amount(account.available_cents),
            ]
        )
    response = HttpResponse(
        ("\ufeff" + buffer.getvalue()).encode("utf-8"), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{csv_filename(chosen)}"'
    return response


# --- The employer's share, and the drill-down ---------------------------------------------------


def _pool_files(jurisdiction: str | None, year: str | None, stream: str | None) -> Any:
    found = Application.objects.filter(state=State.APPROVED)
    if jurisdiction:
        found = found.filter(jurisdiction=jurisdiction)
    if year:
        found = found.filter(fiscal_year=year)
    if stream:
        found = found.filter(stream__code=stream)
    return found


def _employer_figures(applications: Any) -> dict[str, int]:
    """The employer's share of approved files: agreed (at approval) and approved in claims."""
    agreed = applications.aggregate(total=Sum("employer_cents"))["total"]
    approved = Claim.objects.filter(
        application__in=applications, state=ClaimState.APPROVED
    ).aggregate(total=Sum("employer_approved_cents"))["total"]
    return {"agreed": int(agreed or 0), "approved": int(approved or 0)}


def _employer_shares(chosen: dict[str, str]) -> dict[str, int]:
    if chosen.get("funder"):  # the share is the employer's, whichever funder is shown
        chosen = {k: v for k, v in chosen.items() if k != "funder"}
    files = _pool_files(chosen.get("jurisdiction"), chosen.get("fiscal_year"), chosen.get("stream"))
    return _employer_figures(files)


def _account_or_404(account_id: int) -> BudgetAccount:
    found = BudgetAccount.objects.filter(pk=account_id).first()
    if found is None:
        raise Http404
    return found


def _per_application(account: BudgetAccount) -> dict[int, Balances]:
    sums = (
        Posting.objects.filter(account=account, transaction__application__isnull=False)
        .values_list("transaction__application", "bucket")
        .annotate(total=Sum("amount_cents"))
    )
    buckets: dict[int, dict[str, int]] = {}
    for application_id, bucket, total in sums:
        buckets.setdefault(application_id, {})[bucket] = int(total)
    return {key: Balances.from_buckets(value) for key, value in buckets.items()}


@require_GET
@finance_required
def budget_detail(request: HttpRequest, user: User, account_id: int) -> HttpResponse:
    """One budget: each application's money from this funder (committed to date, awaiting a
    decision, still to pay, disbursed, owed back and recovered), with the employer's share of
    the file beside it."""
    account = _account_or_404(account_id)
    balances = _per_application(account)
    files = Application.objects.filter(pk__in=balances).order_by("id")
    employer = dict(files.values_list("id", "employer_cents"))
    rows = [
        {"application": a, "balances": balances[a.pk], "employer": employer.get(a.pk, 0)}
        for a in files[:SHOWN]
    ]
    context = {
        "title": _("Budget: %(funder)s, %(jurisdiction)s %(year)s")
        % {
            "funder": label(FUNDER_LABELS, account.funder),
            "jurisdiction": jurisdiction_name(account.jurisdiction),
            "year": account.fiscal_year,
        },
        "account": _row(account),
        "rows": rows,
        "more": max(0, len(balances) - SHOWN),
    }
    return render(request, "web/finance/budget.html", context)


@require_GET
@finance_required
def budget_application(
    request: HttpRequest, user: User, account_id: int, application_id: int
) -> HttpResponse:
    """One application seen from one budget: its claims, its payments and what it owes back."""
    account = _account_or_404(account_id)
    application = Application.objects.filter(pk=application_id).first()
    if application is None:
        raise Http404
    shares = ClaimShare.objects.filter(claim__application=application, funder=account.funder)
    by_claim = dict(shares.values_list("claim_id", "approved_cents"))
    claims = [
        {
            "claim": claim,
            "state_label": ClaimState(claim.state).label,
            "funder_approved": by_claim.get(claim.pk),
        }
        for claim in application.claims.order_by("number", "version")
    ]
    payments = [
        {"payment": p, "state_label": RequestState(p.state).label}
        for p in PaymentRequest.objects.filter(application=application, funder=account.funder)
        .select_related("batch")
        .order_by("id")
    ]
    receivables = Receivable.objects.filter(application=application, funder=account.funder)
    context = {
        "title": _("Application %(number)s: %(funder)s money")
        % {"number": application.pk, "funder": label(FUNDER_LABELS, account.funder)},
        "account": _row(account),
        "application": application,
        "balances": operations.application_balances(application).get(
            str(account.funder), Balances()
        ),
        "claims": claims,
        "payments": payments,
        "receivables": [
            {"receivable": r, "state_label": ReceivableState(r.state).label} for r in receivables
        ],
        "employer": _employer_figures(Application.objects.filter(pk=application.pk)),
    }
    return render(request, "web/finance/budget_application.html", context)
