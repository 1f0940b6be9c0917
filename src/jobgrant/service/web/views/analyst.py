"""The policy analyst's page: run the funding model on a scenario and see its table and chart.

The form (policy, funding scenario, fiscal year) is a GET: running the model changes nothing,
and the result can be bookmarked or opened in the other language. The table has the columns of
`jobgrant funding --format text`; the chart is jobgrant.funding.plot's, drawn as SVG by its own
view (with its words in the page's language) and shown with a text alternative.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from babel.numbers import format_decimal
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from jobgrant.funding.errors import FundingError
from jobgrant.funding.model import FundingModel, YearImpact
from jobgrant.funding.scenario import FundingScenario, load_scenario
from jobgrant.funding.years import FULL_IMPLEMENTATION
from jobgrant.service.accounts.models import User
from jobgrant.service.language import current_language as language
from jobgrant.service.language import current_locale
from jobgrant.service.web.forms.analyst import DEFAULT_SCENARIO, ScenarioForm
from jobgrant.service.web.labels import jurisdiction_name
from jobgrant.service.web.pages import analyst_required, error_context, query_params

if TYPE_CHECKING:
    from matplotlib.figure import Figure

MONEY_COLUMNS = (
    "transfer",
    "grant",
    "retained",
    "matching",
    "backfill",
    "provincial_cost",
    "employer",
)
COLUMN_LABELS = {
    "code": gettext_lazy("Code"),
    "delivery": gettext_lazy("Delivery"),
    "population": gettext_lazy("Population"),
    "transfer": gettext_lazy("Transfer"),
    "grant": gettext_lazy("Grant"),
    "retained": gettext_lazy("Retained"),
    "matching": gettext_lazy("Matching"),
    "backfill": gettext_lazy("Backfill"),
    "provincial_cost": gettext_lazy("Provincial cost"),
    "employer": gettext_lazy("Employer"),
    "trainees": gettext_lazy("Trainees"),
}
DELIVERY_SHORT = {
    "provincial": gettext_lazy("provincial"),
    "federal-direct": gettext_lazy("federal direct"),
    "separate-agreement": gettext_lazy("separate agreement"),
}


def scenarios_dir() -> Path:
    return Path(settings.BASE_DIR) / "scenarios"


def funding_scenarios() -> dict[str, FundingScenario]:
    """The scenarios/ files that are funding scenarios (rules overlays are left out)."""
    files = tuple(sorted(scenarios_dir().glob("*.yaml")))
    return _scenarios(tuple((f, f.stat().st_mtime_ns) for f in files))


@lru_cache(maxsize=8)
def _scenarios(files: tuple[tuple[Path, int], ...]) -> dict[str, FundingScenario]:
    found = {}
    for path, _mtime in files:
        try:
            found[path.stem] = load_scenario(path)
        except FundingError:
            continue
    return found


@dataclass(frozen=True)
class Run:
    impact: YearImpact
    scenario: FundingScenario


@lru_cache(maxsize=64)
def _impact(policy: str, scenario_file: Path, mtime: int, year: str) -> YearImpact:
    return FundingModel(policy=policy or None, scenario=scenario_file).year(year)


def run(policy: str, scenario_name: str, year: str) -> Run:
    scenario = funding_scenarios()[scenario_name]
    path = Path(scenario.source)
    return Run(_impact(policy, path, path.stat().st_mtime_ns, year), scenario)


def _form(request: HttpRequest) -> ScenarioForm:
    """The form bound to the query, the defaults filled in (so the page shows what it ran)."""
    data = {"scenario": DEFAULT_SCENARIO, "fiscal_year": FULL_IMPLEMENTATION}
    data.update(query_params(request))
    data["policy"] = request.GET.get("policy") or ""
    return ScenarioForm(data, funding_scenarios())


def table(impact: YearImpact) -> dict[str, Any]:
    rows = [
        {
            "code": f.code,
            "name": jurisdiction_name(f.code),
            "delivery": DELIVERY_SHORT.get(f.delivery, f.delivery),
            "population": f.population,
            "trainees": f.trainees,
            "money": [getattr(f, name) for name in MONEY_COLUMNS],
        }
        for f in impact.jurisdictions
    ]
    totals = impact.totals()
    return {
        "headings": [COLUMN_LABELS[c] for c in ("code", "delivery", "population")],
        "money_headings": [COLUMN_LABELS[c] for c in MONEY_COLUMNS],
        "trainees_heading": COLUMN_LABELS["trainees"],
        "rows": rows,
        "totals": {
            "population": sum(f.population for f in impact.jurisdictions),
            "money": [totals[name] for name in MONEY_COLUMNS],
            "trainees": totals["trainees"],
        },
    }


@require_GET
@analyst_required
def scenario_page(request: HttpRequest, user: User) -> HttpResponse:
    form = _form(request)
    context: dict[str, Any] = {"title": _("Funding scenarios"), "form": form}
    if not form.is_valid():
        return render(request, "web/analyst/scenarios.html", {**context, **error_context(form)})
    policy, scenario_name, year = form.choice()
    try:
        result = run(policy, scenario_name, year)
    except (FundingError, KeyError):
        context["failed"] = True
        return render(request, "web/analyst/scenarios.html", context, status=422)
    impact = result.impact
    query = {"policy": policy, "scenario": scenario_name, "fiscal_year": year}
    context.update(
        {
            "impact": impact,
            "scenario": result.scenario,
            "scenario_title": getattr(result.scenario, f"title_{language()}"),
            "table": table(impact),
            "totals": impact.totals(),
            "chart_url": reverse("web:analyst-chart")
            + "?"
            + "&".join(f"{k}={v}" for k, v in query.items() if v),
        }
    )
    return render(request, "web/analyst/scenarios.html", context)


@require_GET
@analyst_required
def scenario_chart(request: HttpRequest, user: User) -> HttpResponse:
    """The chart of who pays what, as SVG, in the page's language."""
    form = _form(request)
    if not form.is_valid():
        return HttpResponse(status=400)
    policy, scenario_name, year = form.choice()
    try:
        result = run(policy, scenario_name, year)
    except (FundingError, KeyError):
        return HttpResponse(status=422)
    path = Path(result.scenario.source)
    svg = _svg(policy, path, path.stat().st_mtime_ns, year, language())
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Content-Language"] = language()
    return response


@lru_cache(maxsize=32)
def _svg(policy: str, scenario_file: Path, mtime: int, year: str, lang: str) -> bytes:
    """The plot as SVG (its text kept as text); words in the page's language."""
    # matplotlib takes a second to import: only the chart pays for it.
    from matplotlib import rc_context

    from jobgrant.funding.plot import year_figure

    impact = _impact(policy, scenario_file, mtime, year)
    figure = year_figure(impact)
    if lang != "en":
        _translate(figure, impact)
    buffer = io.BytesIO()
    with rc_context({"svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def millions_text(cents: int) -> str:
    """Millions of dollars with one decimal, as the page's language writes numbers."""
    return format_decimal(Decimal(cents) / 100_000_000, format="#,##0.0", locale=current_locale())


def _translate(figure: Figure, impact: YearImpact) -> None:
    """The plot's words (written in English by jobgrant.funding.plot) in the page's language."""
    totals = impact.totals()
    values = {
        "year": impact.fiscal_year,
        "policy": impact.policy,
        "scenario": impact.scenario or _("none"),
        **{
            key: _("$%(amount)sM") % {"amount": millions_text(totals[key])}
            for key in ("grant", "provincial_cost", "matching", "backfill", "employer")
        },
    }
    figure.suptitle(
        _("Who pays for the Canada Job Grant in %(year)s, by province and territory") % values
        + "\n"
        + _("Policy %(policy)s, scenario %(scenario)s.") % values
        + "\n"
        + _(
            "Nationally: federal %(grant)s, provinces and territories %(provincial_cost)s "
            "(matching %(matching)s + backfill %(backfill)s), employers %(employer)s"
        )
        % values,
        fontsize=10,
    )
    axes = figure.axes[0]
    axes.set_xlabel(
        _(
            "Millions of dollars in fiscal year %(year)s (the number after each bar is the sum of "
            "the four parts)"
        )
        % values
    )
    axes.set_ylabel(_("Province or territory (delivery mode)"))
    bars = list(reversed(impact.jurisdictions))  # the plot puts the first one at the top
    axes.set_yticks(
        range(len(bars)),
        [
            f"{jurisdiction_name(f.code)} ({f.code}, {DELIVERY_SHORT.get(f.delivery, f.delivery)})"
            for f in bars
        ],
    )
    legend = axes.get_legend()
    words = (
        _("Federal: grant money (diverted from the transfer)"),
        _("Province or territory: matching the grant"),
        _("Province or territory: backfill to keep current programs"),
        _("Employers: their contribution (cash and in kind)"),
    )
    if legend is not None:
        for text, translated in zip(legend.get_texts(), words, strict=False):
            text.set_text(translated)
    for text, f in zip(axes.texts, bars, strict=False):
        text.set_text(" " + millions_text(f.grant + f.matching + f.backfill + f.employer))
