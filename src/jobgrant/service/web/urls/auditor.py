"""The auditor's pages: the audit trail and the chain's verification."""

from django.urls import path

from jobgrant.service.web.views import auditor

urlpatterns = [
    path("trail/", auditor.trail, name="auditor-trail"),
    path("trail.csv", auditor.trail_csv, name="auditor-trail-csv"),
    path("trail/verify/", auditor.verify_chain, name="auditor-verify"),
]
