"""A consortium partner's requests (under /employer/): see one's share, accept or decline."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import partners

urlpatterns = [
    path(_("partner-requests/"), partners.partner_requests, name="partner-requests"),
    path(_("partner-requests/<id:consent_id>/"), partners.partner_request, name="partner-request"),
    path(
        _("partner-requests/<id:consent_id>/decline/"),
        partners.partner_request_decline,
        name="partner-request-decline",
    ),
]
