"""The program manager's pages: the decisions against a ranking, to sign off or refuse, and the
report of those taken (which officers and auditors read too)."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import manager, manager_report

urlpatterns = [
    path(_("overrides/"), manager.overrides, name="manager-overrides"),
    path(_("overrides/<id:override_id>/"), manager.override_page, name="manager-override"),
    path(_("overrides/<id:override_id>/answer/"), manager.answer, name="manager-override-answer"),
    path(_("out-of-rank/"), manager_report.out_of_rank, name="manager-out-of-rank"),
    path(
        _("out-of-rank/<id:intake_id>/csv/"),
        manager_report.out_of_rank_csv,
        name="manager-out-of-rank-csv",
    ),
]
