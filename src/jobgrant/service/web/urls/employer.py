"""The employer's pages: the dashboard, the application wizard, drafts, an application and its
actions."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import employer_changes, employer_claims
from jobgrant.service.web.views.employer import (
    application_detail,
    application_submit,
    application_withdraw,
    dashboard,
    draft_delete,
    draft_resume,
)
from jobgrant.service.web.views.employer_agreement import (
    agreement_accept,
    agreement_decline,
    agreement_page,
    agreement_pdf_download,
)
from jobgrant.service.web.views.employer_apply import (
    apply_organizations,
    apply_quote,
    apply_start,
    apply_trainees,
    apply_training,
)
from jobgrant.service.web.views.employer_declarations import apply_declarations
from jobgrant.service.web.views.employer_review import apply_cancel, apply_review

urlpatterns = [
    path("", dashboard, name="employer-dashboard"),
    path(_("apply/"), apply_start, name="employer-apply"),
    path(_("apply/organizations/"), apply_organizations, name="employer-apply-organizations"),
    path(_("apply/training/"), apply_training, name="employer-apply-training"),
    path(_("apply/trainees/"), apply_trainees, name="employer-apply-trainees"),
    path(_("apply/quote/"), apply_quote, name="employer-apply-quote"),
    path(_("apply/declarations/"), apply_declarations, name="employer-apply-declarations"),
    path(_("apply/review/"), apply_review, name="employer-apply-review"),
    path(_("apply/cancel/"), apply_cancel, name="employer-apply-cancel"),
    path(_("drafts/<id:draft_id>/resume/"), draft_resume, name="employer-draft-resume"),
    path(_("drafts/<id:draft_id>/delete/"), draft_delete, name="employer-draft-delete"),
    path(_("applications/<id:application_id>/"), application_detail, name="employer-application"),
    path(
        _("applications/<id:application_id>/submit/"),
        application_submit,
        name="employer-application-submit",
    ),
    path(
        _("applications/<id:application_id>/withdraw/"),
        application_withdraw,
        name="employer-application-withdraw",
    ),
]
# The agreement an approval offers (web/views/employer_agreement.py).
urlpatterns += [
    path(
        _("applications/<id:application_id>/agreement/"), agreement_page, name="employer-agreement"
    ),
    path(
        _("applications/<id:application_id>/agreement/<str:lang>.pdf"),
        agreement_pdf_download,
        name="employer-agreement-pdf",
    ),
    path(
        _("applications/<id:application_id>/agreement/accept/"),
        agreement_accept,
        name="employer-agreement-accept",
    ),
    path(
        _("applications/<id:application_id>/agreement/decline/"),
        agreement_decline,
        name="employer-agreement-decline",
    ),
]
# Change requests to the agreement (web/views/employer_changes.py).
urlpatterns += [
    path(
        _("applications/<id:application_id>/changes/"),
        employer_changes.changes,
        name="employer-changes",
    ),
    path(
        _("applications/<id:application_id>/changes/new/<str:kind>/"),
        employer_changes.change_new,
        name="employer-change-new",
    ),
    path(_("changes/<id:change_id>/"), employer_changes.change_detail, name="employer-change"),
]
# Claims, with their receipts (web/views/employer_claims.py).
urlpatterns += [
    path(
        _("applications/<id:application_id>/claims/"),
        employer_claims.claims,
        name="employer-claims",
    ),
    path(_("claims/<id:claim_id>/"), employer_claims.claim_page, name="employer-claim"),
    path(
        _("claims/<id:claim_id>/submit/"),
        employer_claims.claim_submit,
        name="employer-claim-submit",
    ),
    path(
        _("claims/<id:claim_id>/discard/"),
        employer_claims.claim_discard,
        name="employer-claim-discard",
    ),
    path(
        _("claims/<id:claim_id>/receipts/<id:receipt_id>/"),
        employer_claims.receipt_download,
        name="employer-receipt",
    ),
]
