"""The program officer's pages: the queue, an application's review and its decisions."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import (
    officer,
    officer_agreements,
    officer_changes,
    officer_claims,
    officer_flags,
    officer_organizations,
    officer_override,
    officer_queue,
)

urlpatterns = [
    path("", officer_queue.queue, name="officer-queue"),
    path(_("applications/<id:application_id>/"), officer.review, name="officer-review"),
    path(_("applications/<id:application_id>/decision/"), officer.decide, name="officer-decide"),
    path(_("applications/<id:application_id>/assignment/"), officer.assign, name="officer-assign"),
    path(
        _("applications/<id:application_id>/override/"),
        officer_override.ask_override,
        name="officer-override",
    ),
    path(_("risk-flags/<id:flag_id>/clear/"), officer_flags.clear, name="officer-flag-clear"),
]
# Agreements: the queue by state, an agreement, its PDF, withdrawing an offer.
urlpatterns += [
    path(_("agreements/"), officer_agreements.agreements_queue, name="officer-agreements"),
    path(
        _("applications/<id:application_id>/agreement/"),
        officer_agreements.officer_agreement,
        name="officer-agreement",
    ),
    path(
        _("applications/<id:application_id>/agreement/<str:lang>.pdf"),
        officer_agreements.officer_agreement_pdf,
        name="officer-agreement-pdf",
    ),
    path(
        _("applications/<id:application_id>/agreement/withdraw/"),
        officer_agreements.offer_withdraw,
        name="officer-agreement-withdraw",
    ),
]
# Change requests: the queue of those to decide, one request, its decision.
urlpatterns += [
    path(_("changes/"), officer_changes.queue, name="officer-changes"),
    path(_("changes/<id:change_id>/"), officer_changes.review, name="officer-change"),
    path(
        _("changes/<id:change_id>/decision/"), officer_changes.decide, name="officer-change-decide"
    ),
]
# Claims to assess (web/views/officer_claims.py).
urlpatterns += [
    path(_("claims/"), officer_claims.queue, name="officer-claims"),
    path(_("claims/<id:claim_id>/"), officer_claims.claim_page, name="officer-claim"),
    path(_("claims/<id:claim_id>/decision/"), officer_claims.decide, name="officer-claim-decide"),
    path(
        _("claims/<id:claim_id>/receipts/<id:receipt_id>/"),
        officer_claims.receipt_download,
        name="officer-receipt",
    ),
]
# Organizations to verify (web/views/officer_organizations.py).
urlpatterns += [
    path(_("organizations/"), officer_organizations.queue, name="officer-organizations"),
    path(
        _("organizations/<id:employer_id>/"),
        officer_organizations.organization,
        name="officer-organization",
    ),
    path(
        _("organizations/<id:employer_id>/decision/"),
        officer_organizations.decide,
        name="officer-organization-decide",
    ),
    path(
        _("organizations/<id:employer_id>/documents/<id:proof_id>/"),
        officer_organizations.document,
        name="officer-organization-document",
    ),
]
