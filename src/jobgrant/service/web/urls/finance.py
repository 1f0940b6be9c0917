"""The finance officer's pages: budgets and their export."""

from django.urls import path

from jobgrant.service.web.views import finance

urlpatterns = [
    path("budgets/", finance.budget_page, name="finance-budgets"),
    path("budgets.csv", finance.budget_csv, name="finance-budgets-csv"),
]
