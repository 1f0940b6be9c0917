"""The outcome pages: the employer's completion report and follow-ups, the trainee's follow-up
by link (public: the link's token is the key), the officer's view of a file's outcomes."""

from django.urls import path

from jobgrant.service.web.views import officer_outcomes, outcomes

urlpatterns = [
    path("follow-up/<str:token>/", outcomes.trainee_follow_up, name="trainee-follow-up"),
    path(
        "employer/applications/<id:application_id>/completion-report/",
        outcomes.completion_report,
        name="employer-completion-report",
    ),
    path(
        "employer/applications/<id:application_id>/follow-ups/<id:milestone>/",
        outcomes.employer_follow_up,
        name="employer-follow-up",
    ),
    path(
        "officer/applications/<id:application_id>/outcomes/",
        officer_outcomes.outcomes,
        name="officer-outcomes",
    ),
    path(
        "officer/applications/<id:application_id>/outcomes/receivable/",
        officer_outcomes.raise_not_completed,
        name="officer-outcomes-receivable",
    ),
]
