"""The outcome pages: the employer's completion report and follow-ups, the trainee's follow-up
by link (public: the link's token is the key), the officer's view of a file's completion."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import completion, completion_comparison, officer_completion

urlpatterns = [
    path(
        _("comparison/<str:token>/"),
        completion_comparison.comparison_follow_up,
        name="comparison-follow-up",
    ),
    path(_("follow-up/<str:token>/"), completion.trainee_follow_up, name="trainee-follow-up"),
    path(
        _("employer/applications/<id:application_id>/completion-report/"),
        completion.completion_report,
        name="employer-completion-report",
    ),
    path(
        _("employer/applications/<id:application_id>/follow-ups/<id:milestone>/"),
        completion.employer_follow_up,
        name="employer-follow-up",
    ),
    path(
        _("officer/applications/<id:application_id>/outcomes/"),
        officer_completion.outcomes,
        name="officer-outcomes",
    ),
    path(
        _("officer/applications/<id:application_id>/outcomes/receivable/"),
        officer_completion.raise_not_completed,
        name="officer-outcomes-receivable",
    ),
]
