"""The trainees' pages: the participant form (public: the link's token is the key), the
employer's trainees of an application, and the officer's participant flags."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import participants

urlpatterns = [
    path(_("participate/<str:token>/"), participants.participate, name="participate"),
    path(
        _("employer/applications/<id:application_id>/trainees/"),
        participants.trainees,
        name="employer-trainees",
    ),
    path(
        _("employer/participants/<id:participant_id>/resend/"),
        participants.resend,
        name="employer-participant-resend",
    ),
    path(
        _("employer/participants/<id:participant_id>/revoke/"),
        participants.revoke,
        name="employer-participant-revoke",
    ),
    path(_("officer/participant-flags/"), participants.flags, name="officer-participant-flags"),
    path(
        _("officer/participants/<id:participant_id>/sin/"),
        participants.flag_sin,
        name="officer-participant-sin",
    ),
]
