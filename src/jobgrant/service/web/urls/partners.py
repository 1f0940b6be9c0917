"""A consortium partner's requests (under /employer/): see one's share, accept or decline."""

from django.urls import path

from jobgrant.service.web.views import partners

urlpatterns = [
    path("partner-requests/", partners.partner_requests, name="partner-requests"),
    path("partner-requests/<id:consent_id>/", partners.partner_request, name="partner-request"),
    path(
        "partner-requests/<id:consent_id>/decline/",
        partners.partner_request_decline,
        name="partner-request-decline",
    ),
]
