"""The back-office pages' routes, included by web/urls.py (names in the "web" namespace)."""

from django.urls import path

from jobgrant.service.web import analyst_views, auditor_views, finance_views, officer_views

urlpatterns = [
    path("officer/", officer_views.queue, name="officer-queue"),
    path(
        "officer/applications/<int:application_id>/",
        officer_views.review,
        name="officer-review",
    ),
    path(
        "officer/applications/<int:application_id>/decision/",
        officer_views.decide,
        name="officer-decide",
    ),
    path("finance/budgets/", finance_views.budget_page, name="finance-budgets"),
    path("finance/budgets.csv", finance_views.budget_csv, name="finance-budgets-csv"),
    path("analyst/scenarios/", analyst_views.scenario_page, name="analyst-scenarios"),
    path("analyst/scenarios/chart.svg", analyst_views.scenario_chart, name="analyst-chart"),
    path("auditor/trail/", auditor_views.trail, name="auditor-trail"),
    path("auditor/trail/verify/", auditor_views.verify_chain, name="auditor-verify"),
]
