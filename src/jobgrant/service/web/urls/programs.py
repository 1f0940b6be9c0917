"""A program manager's pages (under /programs/): programs, their streams' rules and intakes."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import programs, programs_intakes

urlpatterns = [
    path("", programs.program_list, name="program-list"),
    path(_("streams/<id:stream_id>/"), programs.stream_page, name="program-stream"),
    path(_("streams/<id:stream_id>/rules/"), programs.stream_rules, name="program-stream-rules"),
    path(
        _("streams/<id:stream_id>/intakes/new/"),
        programs_intakes.intake_new,
        name="program-intake-new",
    ),
    path(_("intakes/<id:intake_id>/"), programs_intakes.intake_page, name="program-intake"),
    path(
        _("intakes/<id:intake_id>/close/"),
        programs_intakes.intake_close,
        name="program-intake-close",
    ),
    path(
        _("intakes/<id:intake_id>/rank/"),
        programs_intakes.intake_rank,
        name="program-intake-rank",
    ),
]
