"""The policy analyst's pages: funding scenarios and their chart."""

from django.urls import path

from jobgrant.service.web.views import analyst

urlpatterns = [
    path("scenarios/", analyst.scenario_page, name="analyst-scenarios"),
    path("scenarios/chart.svg", analyst.scenario_chart, name="analyst-chart"),
]
