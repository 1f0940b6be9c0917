"""The auditor's pages: the audit trail and the chain's verification."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import auditor

urlpatterns = [
    path(_("trail/"), auditor.trail, name="auditor-trail"),
    path(_("trail.csv"), auditor.trail_csv, name="auditor-trail-csv"),
    path(_("trail/verify/"), auditor.verify_chain, name="auditor-verify"),
]
