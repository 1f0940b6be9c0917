"""The policy analyst's simulator: ask for a run, watch it, read its bands, plots and CSV.

The form is a POST (it queues work for `jobgrant worker`, ADR 0021), answered by a redirect to
the run's page. While the worker runs it, the page shows the draws done in a <progress> that
htmx refreshes every two seconds (a link does the same without script); once done, the page
shows the chosen fiscal year's figures by jurisdiction with their 5-95% bands, the national
figures by year, take-up by firm size and the simulator's plots, with the tables as CSV.
"""

from __future__ import annotations

import datetime as dt
import io
from functools import lru_cache
from typing import Any

from babel.numbers import format_decimal, format_percent
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_GET, require_http_methods

from jobgrant.funding.years import FULL_IMPLEMENTATION
from jobgrant.service.accounts.models import User
from jobgrant.service.analysis import actions
from jobgrant.service.analysis.models import RunState, SimulationRun
from jobgrant.service.analysis.scenarios import simulation_scenarios
from jobgrant.service.language import current_language, current_locale, long_date
from jobgrant.service.web.forms.simulation import INITIAL, SimulationForm
from jobgrant.service.web.labels import jurisdiction_name
from jobgrant.service.web.pages import (
    analyst_required,
    error_context,
    shown_back,
    switching_language,
)
from jobgrant.simulation.derive import SIZE_CLASSES
from jobgrant.simulation.montecarlo import Results
from jobgrant.simulation.output import draws_table, exhaustion_date, summary_table
from jobgrant.simulation.year import NATIONAL, PLACES, measures

RECENT_RUNS = 20
POLL_SECONDS = 2


@require_http_methods(["GET", "POST"])
@analyst_required
def simulations(request: HttpRequest, user: User) -> HttpResponse:
    scenarios = simulation_scenarios()
    form = SimulationForm(request.POST if request.method == "POST" else None, scenarios)
    context: dict[str, Any] = {"title": _("Simulate take-up and budgets"), "form": form}
    if switching_language(request):  # what was typed, shown back in this language
        context["form"] = shown_back(form)
    elif request.method == "POST":
        if form.is_valid():
            try:
                run = actions.request_run(user, form.request())
            except actions.RunRequestError as error:  # the scenario file went away meanwhile
                for name, problem in error.problems.items():
                    form.add_error(name if name in form.fields else None, problem)
            else:
                return redirect("web:analyst-simulation", pk=run.pk)
        context.update(error_context(form))
    context["runs"] = [_run_row(r) for r in _recent_runs()]
    context["defaults"] = INITIAL
    return render(request, "web/analyst/simulations.html", context)


def _recent_runs() -> list[SimulationRun]:
    found = SimulationRun.objects.select_related("requested_by").order_by("-created_at", "-pk")
    return list(found[:RECENT_RUNS])


def scenario_name(code: str) -> str:
    """A scenario's title in the page's language (its code if its file has gone)."""
    found = simulation_scenarios().get(code)
    title = found.title.get(current_language()) if found is not None else None
    return str(title or code)


def _run_row(run: SimulationRun) -> dict[str, Any]:
    return {
        "pk": run.pk,
        "scenario": run.scenario,
        "scenario_name": scenario_name(run.scenario),
        "years": _years_text(run),
        "draws": run.draws,
        "seed": run.seed,
        "state": RunState(run.state).label,
        "by": run.requested_by.username,
        "created_at": run.created_at,
    }


def _years_text(run: SimulationRun) -> str:
    if run.first_year == run.last_year:
        return run.first_year
    return _("%(first)s to %(last)s") % {"first": run.first_year, "last": run.last_year}


def _run(pk: int) -> SimulationRun:
    run: SimulationRun = get_object_or_404(SimulationRun, pk=pk)
    return run


@require_GET
@analyst_required
def simulation(request: HttpRequest, user: User, pk: int) -> HttpResponse:
    run = _run(pk)
    context: dict[str, Any] = {
        "title": _("Simulation %(number)s") % {"number": run.pk},
        "run": _run_row(run),
        "progress": _progress(run),
    }
    if run.state == RunState.DONE:
        context.update(_results_context(request, run))
    elif run.state == RunState.FAILED:
        context["failed"] = run.error
    return render(request, "web/analyst/simulation.html", context)


def _progress(run: SimulationRun) -> dict[str, Any]:
    return {
        "done": run.draws_done,
        "total": run.draws,
        "state": run.state,
        "state_label": RunState(run.state).label,
        "finished": run.finished,
        "poll_seconds": POLL_SECONDS,
        "url": reverse("web:analyst-simulation-progress", kwargs={"pk": run.pk}),
    }


@require_GET
@analyst_required
def simulation_progress(request: HttpRequest, user: User, pk: int) -> HttpResponse:
    """The progress block (htmx): once the run is finished, the whole page is loaded again."""
    run = _run(pk)
    response = render(request, "web/analyst/simulation_progress.html", {"progress": _progress(run)})
    if run.finished:
        response["HX-Refresh"] = "true"
    return response


def _results(run: SimulationRun) -> Results:
    return _cached_results(run.pk, run.finished_at)


@lru_cache(maxsize=8)
def _cached_results(pk: int, _finished_at: Any) -> Results:
    return actions.results(SimulationRun.objects.get(pk=pk))


def _results_context(request: HttpRequest, run: SimulationRun) -> dict[str, Any]:
    result = _results(run)
    years = result.spec.years
    default = FULL_IMPLEMENTATION if FULL_IMPLEMENTATION in years else years[-1]
    year = request.GET.get("year") or default
    if year not in years:
        year = default
    mean, low, high = result.band()
    y = years.index(year)
    return {
        "years": years,
        "year": year,
        "jurisdictions": _jurisdiction_rows(year, mean[y], low[y], high[y]),
        "national": _national_rows(years, mean, low, high),
        "take_up": _take_up_rows(mean[y], low[y], high[y]),
        "plot_url": reverse("web:analyst-simulation-plot", kwargs={"pk": run.pk}),
        "csv_url": reverse("web:analyst-simulation-csv", kwargs={"pk": run.pk}),
        "draws_csv_url": reverse("web:analyst-simulation-csv", kwargs={"pk": run.pk})
        + "?table=draws",
    }


def _column(name: str) -> int:
    return measures().index(name)


def number(value: float, digits: int = 0) -> str:
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(round(float(value), digits), format=pattern, locale=current_locale())


def band(mean: Any, low: Any, high: Any, name: str, scale: float = 1.0, digits: int = 0) -> str:
    """ "mean [p05 to p95]" in the page's language."""
    i = _column(name)
    return _("%(mean)s [%(low)s to %(high)s]") % {
        "mean": number(mean[i] / scale, digits),
        "low": number(low[i] / scale, digits),
        "high": number(high[i] / scale, digits),
    }


def _jurisdiction_rows(year: str, mean: Any, low: Any, high: Any) -> list[dict[str, Any]]:
    rows = []
    for p, code in enumerate(PLACES):
        m, lo, hi = mean[p], low[p], high[p]
        left = (m[_column("left_federal")] + m[_column("left_provincial")]) / 1e6
        rows.append(
            {
                "code": code,
                "name": _("Canada") if code == NATIONAL else jurisdiction_name(code),
                "national": code == NATIONAL,
                "trainees": band(m, lo, hi, "trainees_approved"),
                "federal": band(m, lo, hi, "federal", 1e6, 1),
                "provincial": band(m, lo, hi, "provincial", 1e6, 1),
                "employer": band(m, lo, hi, "employer", 1e6, 1),
                "turned_away": number(m[_column("trainees_turned_away")]),
                "closed": _closed(year, code, m),
                "left": number(left, 1),
            }
        )
    return rows


def _closed(year: str, code: str, m: Any) -> str:
    share = float(m[_column("exhausted")])
    percent = format_percent(share, locale=current_locale())
    if code == NATIONAL:
        return _("%(share)s of the provinces and territories") % {"share": percent}
    if share == 0:
        return _("open all year")
    day = long_date(
        _date(exhaustion_date(year, float(m[_column("exhaustion_day")]))), current_language()
    )
    if share == 1:
        return day
    return _("%(date)s (in %(share)s of the draws)") % {"date": day, "share": percent}


def _date(iso: str) -> dt.date:
    return dt.date.fromisoformat(iso)


def _national_rows(years: tuple[str, ...], mean: Any, low: Any, high: Any) -> list[dict[str, Any]]:
    p = PLACES.index(NATIONAL)
    return [
        {
            "year": year,
            "trainees": band(mean[y, p], low[y, p], high[y, p], "trainees_approved"),
            "turned_away": number(mean[y, p, _column("trainees_turned_away")]),
            "federal": band(mean[y, p], low[y, p], high[y, p], "federal", 1e6, 1),
            "provincial": band(mean[y, p], low[y, p], high[y, p], "provincial", 1e6, 1),
            "employer": band(mean[y, p], low[y, p], high[y, p], "employer", 1e6, 1),
            "employers": number(mean[y, p, _column("employers_approved")]),
        }
        for y, year in enumerate(years)
    ]


def _take_up_rows(mean: Any, low: Any, high: Any) -> list[dict[str, str]]:
    p = PLACES.index(NATIONAL)
    return [
        {
            "size": size,
            "share": band(mean[p] * 100, low[p] * 100, high[p] * 100, f"take_up.size.{size}", 1, 2),
        }
        for size in SIZE_CLASSES
    ]


@require_GET
@analyst_required
def simulation_csv(request: HttpRequest, user: User, pk: int) -> HttpResponse:
    """The run's tables as `jobgrant simulate --out` writes them: summary.csv (mean, 5th and
    95th percentile of every measure) or, with ?table=draws, draws.csv (every draw)."""
    run = _run(pk)
    if run.state != RunState.DONE:
        raise Http404("the simulation has not finished")
    which = "draws" if request.GET.get("table") == "draws" else "summary"
    result = _results(run)
    frame = draws_table(result) if which == "draws" else summary_table(result)
    buffer = io.BytesIO()
    frame.write_csv(buffer)
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    filename = f"simulation-{run.pk}-{which}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
@analyst_required
def simulation_plot(request: HttpRequest, user: User, pk: int) -> HttpResponse:
    """The simulator's three plots as SVG (their text kept as text), in the page's language."""
    run = _run(pk)
    if run.state != RunState.DONE:
        raise Http404("the simulation has not finished")
    svg = _svg(run.pk, run.finished_at, current_language())
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Content-Language"] = current_language()
    return response


@lru_cache(maxsize=16)
def _svg(pk: int, finished_at: Any, lang: str) -> bytes:
    from matplotlib import pyplot, rc_context

    from jobgrant.simulation.plot import figure

    results = _cached_results(pk, finished_at)
    words = {**plot_words(), "scenario_names": {results.scenario: scenario_name(results.scenario)}}
    fig = figure([results], words)
    buffer = io.BytesIO()
    with rc_context({"svg.fonttype": "none"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    pyplot.close(fig)
    return buffer.getvalue()


def plot_words() -> dict[str, Any]:
    """The plots' words in the page's language (jobgrant.simulation.plot.WORDS)."""
    return {
        "federal": _("Federal"),
        "provincial": _("Provincial / territorial"),
        "employer": _("Employers"),
        "money_axis": _("Millions of dollars (mean, 5–95% band)"),
        "who_pays_title": _("Who pays what, Canada — {scenario}"),
        "employees": _("Employees"),
        "applying_axis": _("Businesses applying (%)"),
        "take_up_title": _("Take-up by firm size, {year}"),
        "committed_axis": _("Budget committed (%)"),
        "spent_title": _("Budget spent through {year}"),
        "months": (
            pgettext("month, short", "Apr"),
            pgettext("month, short", "May"),
            pgettext("month, short", "Jun"),
            pgettext("month, short", "Jul"),
            pgettext("month, short", "Aug"),
            pgettext("month, short", "Sep"),
            pgettext("month, short", "Oct"),
            pgettext("month, short", "Nov"),
            pgettext("month, short", "Dec"),
            pgettext("month, short", "Jan"),
            pgettext("month, short", "Feb"),
            pgettext("month, short", "Mar"),
        ),
    }
