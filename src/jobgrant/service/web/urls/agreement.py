"""The agreement's pages: the employer's (read, PDF, accept, decline) and the officer's (read,
PDF, the queue, withdraw an offer)."""

from django.urls import path

from jobgrant.service.web.views.agreement import (
    agreement_accept,
    agreement_decline,
    agreement_page,
    agreement_pdf_download,
)
from jobgrant.service.web.views.officer_agreements import agreements_queue, offer_withdraw

employer_urlpatterns = [
    path("applications/<int:application_id>/agreement/", agreement_page, name="employer-agreement"),
    path(
        "applications/<int:application_id>/agreement/<str:lang>.pdf",
        agreement_pdf_download,
        name="employer-agreement-pdf",
    ),
    path(
        "applications/<int:application_id>/agreement/accept/",
        agreement_accept,
        name="employer-agreement-accept",
    ),
    path(
        "applications/<int:application_id>/agreement/decline/",
        agreement_decline,
        name="employer-agreement-decline",
    ),
]
officer_urlpatterns = [
    path("agreements/", agreements_queue, name="officer-agreements"),
    path("applications/<int:application_id>/agreement/", agreement_page, name="officer-agreement"),
    path(
        "applications/<int:application_id>/agreement/<str:lang>.pdf",
        agreement_pdf_download,
        name="officer-agreement-pdf",
    ),
    path(
        "applications/<int:application_id>/agreement/withdraw/",
        offer_withdraw,
        name="officer-agreement-withdraw",
    ),
]
