"""Web pages, under /en/ and /fr/ (i18n_patterns in the project's urls): one module per area.

Every route's name is in the "web" namespace, e.g. "web:officer-queue". Every route's words are
translated (gettext_lazy; the French in the catalogue, without accents): /en/employer/claims/3/
is /fr/employeur/demandes-de-remboursement/3/. Build an address with reverse() under the
language wanted, never by hand; translate_url() gives a page's address in the other language.
An old French address with English words is redirected to the French one (not_found.py).
"""

from django.urls import include, path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web import converters  # noqa: F401  (<id:...>, before the routes)
from jobgrant.service.web.urls import (
    account,
    analyst,
    auditor,
    completion,
    employer,
    finance,
    manager,
    officer,
    organizations,
    participants,
    partners,
    programs,
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
    path(_("employer/"), include(organizations.employer)),
    path(_("employer/"), include(partners.urlpatterns)),
    path(_("staff/"), include(staff.urlpatterns)),
    path(_("programs/"), include(programs.urlpatterns)),
    path(_("employer/"), include(employer.urlpatterns)),
    path(_("officer/"), include(officer.urlpatterns)),
    path(_("finance/"), include(finance.urlpatterns)),
    path(_("manager/"), include(manager.urlpatterns)),
    path(_("analyst/"), include(analyst.urlpatterns)),
    path(_("auditor/"), include(auditor.urlpatterns)),
    path(_("reports/"), include(reports.urlpatterns)),
    path(_("account/"), include(account.urlpatterns)),
]
