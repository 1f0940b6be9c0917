"""The reports for analysts and officers: the annual accountability report, its PDF and CSV."""

from django.urls import path

from jobgrant.service.web.views import reports

urlpatterns = [
    path("annual/", reports.annual, name="reports-annual"),
    path("annual/pdf/", reports.annual_pdf, name="reports-annual-pdf"),
    path("annual/csv/<slug:table>/", reports.annual_csv, name="reports-annual-csv"),
]
