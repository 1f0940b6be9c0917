"""Web pages, under /en/ and /fr/ (i18n_patterns in the project's urls): one module per area.

Every route's name is in the "web" namespace, e.g. "web:officer-queue".
"""

from django.urls import include, path

from jobgrant.service.web import converters  # noqa: F401  (<id:...>, before the routes)
from jobgrant.service.web.urls import (
    account,
    analyst,
    auditor,
    completion,
    employer,
    finance,
    officer,
    organizations,
    participants,
    partners,
    public,
    reports,
    staff,
)

app_name = "web"
urlpatterns = [
    path("", include(public.urlpatterns)),
    path("", include(participants.urlpatterns)),
    path("", include(completion.urlpatterns)),
    path("", include(organizations.public)),
    path("", include(staff.public)),
    path("employer/", include(organizations.employer)),
    path("employer/", include(partners.urlpatterns)),
    path("staff/", include(staff.urlpatterns)),
    path("employer/", include(employer.urlpatterns)),
    path("officer/", include(officer.urlpatterns)),
    path("finance/", include(finance.urlpatterns)),
    path("analyst/", include(analyst.urlpatterns)),
    path("auditor/", include(auditor.urlpatterns)),
    path("reports/", include(reports.urlpatterns)),
    path("account/", include(account.urlpatterns)),
]
