"""The reports for analysts and officers: the annual accountability report, its PDF and CSV;
the risk flags per intake and per provider (auditors read them too)."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import reports, reports_flags

urlpatterns = [
    path(_("annual/"), reports.annual, name="reports-annual"),
    path(_("annual/pdf/"), reports.annual_pdf, name="reports-annual-pdf"),
    path(_("annual/csv/<slug:table>/"), reports.annual_csv, name="reports-annual-csv"),
    path(_("risk-flags/"), reports_flags.flags, name="reports-flags"),
]
