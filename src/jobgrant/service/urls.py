from django.conf.urls.i18n import i18n_patterns
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import include, path
from django.utils.translation import get_language_from_request

from jobgrant.service.api.api import api
from jobgrant.service.health import healthz, readyz


def root(request: HttpRequest) -> HttpResponse:
    """/ goes to the landing page in the visitor's language (English unless they prefer French)."""
    return redirect(f"/{get_language_from_request(request)}/")


urlpatterns = [
    path("api/v1/", api.urls),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("", root),
    *i18n_patterns(path("", include("jobgrant.service.web.urls")), prefix_default_language=True),
]

# Every error nothing handled: 503 while the database cannot be reached, 500 problem+json on
# the API (service/outage.py).
handler500 = "jobgrant.service.outage.server_error"
# A page that is not found, recorded in the audit trail for a signed-in person (not_found.py).
handler404 = "jobgrant.service.not_found.page_not_found"
