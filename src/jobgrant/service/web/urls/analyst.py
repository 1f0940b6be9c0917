"""The policy analyst's pages: funding scenarios and their chart; the simulator's runs."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import (
    analyst,
    analyst_burden,
    analyst_kpis,
    analyst_replay,
    analyst_simulation,
)

urlpatterns = [
    path(_("scenarios/"), analyst.scenario_page, name="analyst-scenarios"),
    path(_("kpis/"), analyst_kpis.kpis_page, name="analyst-kpis"),
    path(_("kpis/refresh/"), analyst_kpis.kpis_refresh, name="analyst-kpis-refresh"),
    path(_("burden/"), analyst_burden.burden_page, name="analyst-burden"),
    path(
        _("kpis/evaluation.csv"),
        analyst_kpis.kpis_evaluation_csv,
        name="analyst-kpis-evaluation-csv",
    ),
    path(_("scenarios/chart.svg"), analyst.scenario_chart, name="analyst-chart"),
    path(_("replay/"), analyst_replay.replay_page, name="analyst-replay"),
    path(_("replay/replay.csv"), analyst_replay.replay_csv, name="analyst-replay-csv"),
    path(_("simulations/"), analyst_simulation.simulations, name="analyst-simulations"),
    path(_("simulations/<id:pk>/"), analyst_simulation.simulation, name="analyst-simulation"),
    path(
        _("simulations/<id:pk>/progress/"),
        analyst_simulation.simulation_progress,
        name="analyst-simulation-progress",
    ),
    path(
        _("simulations/<id:pk>/simulation.csv"),
        analyst_simulation.simulation_csv,
        name="analyst-simulation-csv",
    ),
    path(
        _("simulations/<id:pk>/plots.svg"),
        analyst_simulation.simulation_plot,
        name="analyst-simulation-plot",
    ),
]
