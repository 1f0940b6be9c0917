"""Claims: the employer's (under /employer/) and the officer's (under /officer/)."""

from django.urls import path

from jobgrant.service.web.views import claims_employer, claims_officer

employer_urlpatterns = [
    path(
        "applications/<int:application_id>/claims/", claims_employer.claims, name="employer-claims"
    ),
    path("claims/<int:claim_id>/", claims_employer.claim_page, name="employer-claim"),
    path("claims/<int:claim_id>/lines/", claims_employer.claim_lines, name="employer-claim-lines"),
    path(
        "claims/<int:claim_id>/receipts/",
        claims_employer.claim_receipts,
        name="employer-claim-receipts",
    ),
    path(
        "claims/<int:claim_id>/submit/", claims_employer.claim_submit, name="employer-claim-submit"
    ),
    path(
        "claims/<int:claim_id>/receipts/<int:receipt_id>/",
        claims_employer.receipt_download,
        name="employer-receipt",
    ),
]
officer_urlpatterns = [
    path("claims/", claims_officer.queue, name="officer-claims"),
    path("claims/<int:claim_id>/", claims_officer.claim_page, name="officer-claim"),
    path("claims/<int:claim_id>/decision/", claims_officer.decide, name="officer-claim-decide"),
    path(
        "claims/<int:claim_id>/receipts/<int:receipt_id>/",
        claims_officer.receipt_download,
        name="officer-receipt",
    ),
]
