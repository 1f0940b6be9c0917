"""Audit entries in words, in the page's language: what was done, to what, and the details
each action recorded (money formatted, codes named), for the auditor's page and its CSV.

The entries themselves keep codes and cents (they are hashed as written); only their display
is translated here. A code with no label is shown as it is, so nothing recorded is hidden.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.service import refusals
from jobgrant.service.analysis.models import RunState
from jobgrant.service.audit.codes import ANONYMOUS, DEMO_SEED, PARTICIPANT_PREFIX, WORKER
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.choices import TraineeStatus
from jobgrant.service.grants.agreements.actions import EXPIRY_JOB
from jobgrant.service.grants.core.audit_anchors import anchored_text
from jobgrant.service.grants.models.agreements import AgreementState
from jobgrant.service.grants.models.changes import ChangeState
from jobgrant.service.grants.models.claims import ClaimState
from jobgrant.service.grants.models.completion import FollowUpState, ReportState, Respondent
from jobgrant.service.grants.models.participants import ParticipantState
from jobgrant.service.grants.models.payments import (
    BatchState,
    ReceivableCause,
    ReceivableState,
    RequestState,
)
from jobgrant.service.grants.participants.sin_keys import ACTOR as REKEY_ACTOR
from jobgrant.service.language import current_language, long_date
from jobgrant.service.web.change_display import CHANGE_KIND_LABELS, field_label
from jobgrant.service.web.labels import (
    FUNDER_LABELS,
    ROLE_LABELS,
    STATE_LABELS,
    Labels,
    jurisdiction_name,
    label,
)
from jobgrant.service.web.templatetags.backoffice import moment
from jobgrant.service.web.templatetags.jobgrant import money

ACTION_LABELS: dict[str, Promise] = {
    # applications
    "application.create": gettext_lazy("Application created"),
    "application.submit": gettext_lazy("Application submitted"),
    "application.recommend": gettext_lazy("Application recommended"),
    "application.approve": gettext_lazy("Application approved"),
    "application.deny": gettext_lazy("Application denied"),
    "application.withdraw": gettext_lazy("Application withdrawn"),
    "application.assign": gettext_lazy("Application assigned"),
    "application.release": gettext_lazy("Application released"),
    "partner.ask": gettext_lazy("Consortium partner asked to take part"),
    "partner.accept": gettext_lazy("Consortium partner accepted"),
    "partner.decline": gettext_lazy("Consortium partner declined"),
    # agreements
    "agreement.issue": gettext_lazy("Agreement issued"),
    "agreement.new_version": gettext_lazy("New version of the agreement issued"),
    "agreement.accept": gettext_lazy("Agreement accepted"),
    "agreement.accept_version": gettext_lazy("New version of the agreement accepted"),
    "agreement.decline": gettext_lazy("Agreement declined"),
    "agreement.withdraw": gettext_lazy("Offer of agreement withdrawn"),
    "agreement.expire": gettext_lazy("Offer of agreement expired"),
    "agreement.complete": gettext_lazy("Agreement completed"),
    # participants
    "participant.invite": gettext_lazy("Trainee invited"),
    "participant.resend": gettext_lazy("Trainee's invitation sent again"),
    "participant.remind": gettext_lazy("Trainee reminded"),
    "participant.revoke": gettext_lazy("Trainee withdrawn from the file"),
    "participant.submit": gettext_lazy("Trainee's form received"),
    "participant.confirm": gettext_lazy("Trainee's participation confirmed"),
    "participant.find_ineligible": gettext_lazy("Trainee found ineligible"),
    "participant.view_sin": gettext_lazy("Trainee's Social Insurance Number viewed in full"),
    "sin.rekey": gettext_lazy("Social Insurance Numbers encrypted under the current key"),
    # change requests
    "change_request.submit": gettext_lazy("Change requested"),
    "change_request.approve": gettext_lazy("Change approved"),
    "change_request.deny": gettext_lazy("Change denied"),
    # claims
    "claim.start": gettext_lazy("Claim started"),
    "claim.edit": gettext_lazy("Claim amounts saved"),
    "claim.submit": gettext_lazy("Claim submitted"),
    "claim.review": gettext_lazy("Claim taken up for assessment"),
    "claim.return": gettext_lazy("Claim returned for more information"),
    "claim.deny": gettext_lazy("Claim denied"),
    "claim.approve": gettext_lazy("Claim approved and certified"),
    "claim.supersede": gettext_lazy("Claim replaced by an amendment"),
    "receipt.upload": gettext_lazy("Receipt attached"),
    # payments
    "payment_batch.build": gettext_lazy("Payment batch built"),
    "payment_batch.authorize": gettext_lazy("Payment batch authorized"),
    "payment_batch.export": gettext_lazy("Payment batch exported to the paying system"),
    "payment_batch.confirm": gettext_lazy("Paying system's confirmation imported"),
    "payment.hold": gettext_lazy("Payment put on hold"),
    "payment.lift_hold": gettext_lazy("Hold on a payment lifted"),
    "receivable.raise": gettext_lazy("Amount owed raised"),
    "receivable.repayment": gettext_lazy("Repayment recorded"),
    "receivable.set_off": gettext_lazy("Amount owed set off against a payment"),
    "receivable.write_off_requested": gettext_lazy("Write-off requested"),
    "receivable.write_off": gettext_lazy("Amount owed written off"),
    # completion
    "completion_report.start": gettext_lazy("Completion report started"),
    "completion_report.save": gettext_lazy("Completion report saved"),
    "completion_report.submit": gettext_lazy("Completion report submitted"),
    "follow_up.send": gettext_lazy("Follow-up sent"),
    "follow_up.remind": gettext_lazy("Follow-up reminder sent"),
    "follow_up.lapse": gettext_lazy("Follow-up lapsed without an answer"),
    "follow_up.respond": gettext_lazy("Follow-up answered"),
    # budgets, the registry, the KPIs, simulations, messages
    "budget.allocate": gettext_lazy("Budget allocated"),
    "employer.register": gettext_lazy("Employer registered"),
    "trainee.register": gettext_lazy("Trainee registered"),
    "trainee.view_sin": gettext_lazy("Social Insurance Number viewed in full"),
    "kpis.refresh": gettext_lazy("Indicators refreshed"),
    "simulation.request": gettext_lazy("Simulation asked for"),
    "simulation.finish": gettext_lazy("Simulation finished"),
    "simulation.fail": gettext_lazy("Simulation failed"),
    "message.failed": gettext_lazy("Message could not be delivered"),
    # accounts
    "auth.sign_in": gettext_lazy("Signed in"),
    "auth.sign_in_failed": gettext_lazy("Sign-in failed"),
    "auth.locked_out": gettext_lazy("Sign-in locked after too many failures"),
    "token.issue": gettext_lazy("API token issued"),
    "token.revoke": gettext_lazy("API token revoked"),
    "user.create": gettext_lazy("User created"),
    "user.password_change": gettext_lazy("Password changed"),
    "user.password_reset": gettext_lazy("Password reset"),
    "user.password_reset_requested": gettext_lazy("Password reset asked for"),
    "user.email_change": gettext_lazy("Email address changed"),
    "user.registration_attempted": gettext_lazy("Registration tried again with a used address"),
    "user.verify_email": gettext_lazy("Email address confirmed"),
    "user.verification_resent": gettext_lazy("Confirmation message sent again"),
    "second_factor.app_set_up": gettext_lazy("Authenticator app set up"),
    "second_factor.recovery_code_used": gettext_lazy("Recovery code used"),
    "second_factor.recovery_codes_made": gettext_lazy("Recovery codes made"),
    "second_factor.removed": gettext_lazy("Second factor removed"),
    "second_factor.reset": gettext_lazy("Second factor reset by an administrator"),
    "second_factor.passkey_added": gettext_lazy("Passkey added"),
    "second_factor.passkey_counter_refused": gettext_lazy("Passkey refused: its counter went back"),
    "second_factor.passkey_removed": gettext_lazy("Passkey removed"),
    # organizations and staff accounts
    "organization.register": gettext_lazy("Organization registered"),
    "organization.registration_attempted": gettext_lazy(
        "Registration tried for a registered organization"
    ),
    "organization.invite": gettext_lazy("Colleague invited to the organization"),
    "organization.revoke_invitation": gettext_lazy("Invitation to the organization revoked"),
    "organization.join": gettext_lazy("Colleague joined the organization"),
    "organization.set_role": gettext_lazy("Colleague's role changed"),
    "organization.remove": gettext_lazy("Colleague removed from the organization"),
    "staff.create": gettext_lazy("Staff account created"),
    "staff.change": gettext_lazy("Staff account changed"),
    "staff.deactivate": gettext_lazy("Staff account deactivated"),
    "staff.reactivate": gettext_lazy("Staff account reactivated"),
    "staff.setup": gettext_lazy("Staff account set up by its owner"),
    # the demonstration history
    "demo.history_started": gettext_lazy("Demonstration history started"),
    "demo.history_loaded": gettext_lazy("Demonstration history loaded"),
}
# What a refused entry ("refused." + the action's, the page's or the API operation's name)
# says was attempted.
ATTEMPT_LABELS: dict[str, Promise] = {
    # actions (audit.actions.audited_refusals_of)
    "create_application": gettext_lazy("create an application"),
    "submit_application": gettext_lazy("submit an application"),
    "recommend_application": gettext_lazy("recommend an application"),
    "approve_application": gettext_lazy("approve an application"),
    "deny_application": gettext_lazy("deny an application"),
    "withdraw_application": gettext_lazy("withdraw an application"),
    "assign_application": gettext_lazy("assign an application"),
    "release_application": gettext_lazy("release an application"),
    "get_visible": gettext_lazy("open an application"),
    "get_own_form_draft": gettext_lazy("open a saved application form"),
    "save_form_draft": gettext_lazy("save an application form"),
    "delete_form_draft": gettext_lazy("delete a saved application form"),
    "partner.open": gettext_lazy("open a consortium partner's request"),
    "partner.accept": gettext_lazy("accept a consortium partner's request"),
    "partner.decline": gettext_lazy("decline a consortium partner's request"),
    "accept_agreement": gettext_lazy("accept an agreement"),
    "decline_agreement": gettext_lazy("decline an agreement"),
    "withdraw_offer": gettext_lazy("withdraw an offer of agreement"),
    "get_participant": gettext_lazy("open a trainee's record"),
    "invite_participant": gettext_lazy("invite a trainee"),
    "resend_invitation": gettext_lazy("send a trainee's invitation again"),
    "revoke_participant": gettext_lazy("withdraw a trainee from a file"),
    "view_participant_sin": gettext_lazy("view a trainee's Social Insurance Number in full"),
    "get_visible_change": gettext_lazy("open a change request"),
    "request_change": gettext_lazy("ask for a change"),
    "approve_change": gettext_lazy("approve a change"),
    "deny_change": gettext_lazy("deny a change"),
    "get_visible_claim": gettext_lazy("open a claim"),
    "get_visible_receipt": gettext_lazy("open a receipt"),
    "start_claim": gettext_lazy("start a claim"),
    "update_claim": gettext_lazy("save a claim's amounts"),
    "add_receipts": gettext_lazy("attach receipts"),
    "submit_claim": gettext_lazy("submit a claim"),
    "review_claim": gettext_lazy("take up a claim for assessment"),
    "return_claim": gettext_lazy("return a claim"),
    "deny_claim": gettext_lazy("deny a claim"),
    "approve_claim": gettext_lazy("approve a claim"),
    "get_batch": gettext_lazy("open a payment batch"),
    "build_batch": gettext_lazy("build a payment batch"),
    "authorize_batch": gettext_lazy("authorize a payment batch"),
    "export_batch": gettext_lazy("export a payment batch"),
    "import_confirmations": gettext_lazy("import the paying system's confirmation"),
    "hold_payment": gettext_lazy("put a payment on hold"),
    "lift_hold": gettext_lazy("lift a hold on a payment"),
    "get_visible_receivable": gettext_lazy("open an amount owed"),
    "raise_receivable": gettext_lazy("raise an amount owed"),
    "record_repayment": gettext_lazy("record a repayment"),
    "write_off_receivable": gettext_lazy("write off an amount owed"),
    "start_completion_report": gettext_lazy("start a completion report"),
    "save_completion_report": gettext_lazy("save a completion report"),
    "submit_completion_report": gettext_lazy("submit a completion report"),
    "answer_employer_follow_ups": gettext_lazy("answer follow-ups"),
    "read_kpis": gettext_lazy("read the indicators"),
    "read_annual_report": gettext_lazy("read the annual report"),
    "refresh_kpis": gettext_lazy("refresh the indicators"),
    "employer.register": gettext_lazy("register an employer"),
    "trainee.register": gettext_lazy("register a trainee"),
    "trainee.view_sin": gettext_lazy("view a Social Insurance Number in full"),
    "organization.open": gettext_lazy("open an organization"),
    "organization.invite": gettext_lazy("invite a colleague to an organization"),
    "organization.revoke_invitation": gettext_lazy("revoke an invitation to an organization"),
    "organization.set_role": gettext_lazy("change a colleague's role"),
    "organization.remove": gettext_lazy("remove a colleague from an organization"),
    "staff.open": gettext_lazy("open a staff account"),
    "staff.create": gettext_lazy("create a staff account"),
    "staff.change": gettext_lazy("change a staff account"),
    "staff.deactivate": gettext_lazy("deactivate a staff account"),
    "staff.reactivate": gettext_lazy("reactivate a staff account"),
    # pages (the role gate and the 404 page)
    "open_page": gettext_lazy("open a page"),
    # API operations (the route's name) that no action above names
    "accept_partner_request": gettext_lazy("accept a consortium partner's request"),
    "decline_partner_request": gettext_lazy("decline a consortium partner's request"),
    "answer_follow_ups": gettext_lazy("answer follow-ups"),
    "approve_change_request": gettext_lazy("approve a change"),
    "deny_change_request": gettext_lazy("deny a change"),
    "create_change_request": gettext_lazy("ask for a change"),
    "create_claim": gettext_lazy("start a claim"),
    "upload_receipts": gettext_lazy("attach receipts"),
    "authorize_payment_batch": gettext_lazy("authorize a payment batch"),
    "confirm_payment_batch": gettext_lazy("import the paying system's confirmation"),
    "create_payment_batch": gettext_lazy("build a payment batch"),
    "export_payment_batch": gettext_lazy("export a payment batch"),
    "get_payment_batch": gettext_lazy("open a payment batch"),
    "list_payment_batches": gettext_lazy("list the payment batches"),
    "create_receivable": gettext_lazy("raise an amount owed"),
    "create_repayment": gettext_lazy("record a repayment"),
    "write_off": gettext_lazy("write off an amount owed"),
    "list_receivables": gettext_lazy("list the amounts owed"),
    "get_agreement": gettext_lazy("open an agreement"),
    "get_agreement_pdf": gettext_lazy("download an agreement"),
    "get_application": gettext_lazy("open an application"),
    "list_applications": gettext_lazy("list the applications"),
    "get_change_request": gettext_lazy("open a change request"),
    "get_claim": gettext_lazy("open a claim"),
    "get_receipt": gettext_lazy("open a receipt"),
    "get_completion_report": gettext_lazy("open a completion report"),
    "put_completion_report": gettext_lazy("save a completion report"),
    "resend_participant": gettext_lazy("send a trainee's invitation again"),
    "list_participants": gettext_lazy("list a file's trainees"),
    "list_follow_ups": gettext_lazy("list the follow-ups"),
    "list_partner_requests": gettext_lazy("list the consortium partners' requests"),
    "list_budgets": gettext_lazy("list the budgets"),
    "list_employers": gettext_lazy("list the employers"),
    "issue_token": gettext_lazy("obtain an API token"),
    "list_tokens": gettext_lazy("list the API tokens"),
    "revoke_token": gettext_lazy("revoke an API token"),
    "kpis": gettext_lazy("read the indicators"),
    "quote": gettext_lazy("quote an application"),
}
REFUSED = gettext_lazy("Refused: %(attempt)s")
OBJECT_TYPE_LABELS: dict[str, Promise] = {
    "application": gettext_lazy("Application"),
    "agreement": gettext_lazy("Agreement"),
    "budget": gettext_lazy("Budget"),
    "changerequest": gettext_lazy("Change request"),
    "claim": gettext_lazy("Claim"),
    "completionreport": gettext_lazy("Completion report"),
    "confirmationimport": gettext_lazy("Paying system's confirmation"),
    "demo": gettext_lazy("Demonstration history"),
    "employer": gettext_lazy("Employer"),
    "followup": gettext_lazy("Follow-up"),
    "formdraft": gettext_lazy("Saved application form"),
    "kpis": gettext_lazy("Indicators"),
    "message": gettext_lazy("Message"),
    "page": gettext_lazy("Page"),
    "participant": gettext_lazy("Trainee's place on a file"),
    "partnerconsent": gettext_lazy("Consortium partner's consent"),
    "paymentbatch": gettext_lazy("Payment batch"),
    "paymentrequest": gettext_lazy("Payment"),
    "receipt": gettext_lazy("Receipt"),
    "receivable": gettext_lazy("Amount owed"),
    "request": gettext_lazy("API request"),
    "simulation": gettext_lazy("Simulation"),
    "trainee": gettext_lazy("Trainee"),
    "user": gettext_lazy("User"),
}
# The details' names, in the order they are shown.
FIELD_LABELS: dict[str, Promise] = {
    "code": gettext_lazy("Reason for the refusal"),
    "status": gettext_lazy("HTTP status"),
    "reason": gettext_lazy("Reason"),
    "note": gettext_lazy("Note"),
    "note_sha256": gettext_lazy("Note"),
    "state": gettext_lazy("State"),
    "before": gettext_lazy("Before"),
    "after": gettext_lazy("After"),
    "to": gettext_lazy("Assigned to"),
    "from": gettext_lazy("Previously assigned to"),
    "application": gettext_lazy("Application number"),
    "agreement": gettext_lazy("Agreement number"),
    "claim": gettext_lazy("Claim number"),
    "batch": gettext_lazy("Payment batch number"),
    "change": gettext_lazy("Change request number"),
    "participant": gettext_lazy("Trainee's place number"),
    "partner": gettext_lazy("Partner employer number"),
    "invitation": gettext_lazy("Invitation number"),
    "user": gettext_lazy("User number"),
    "jurisdiction": gettext_lazy("Jurisdiction"),
    "fiscal_year": gettext_lazy("Fiscal year"),
    "year": gettext_lazy("Fiscal year"),
    "funder": gettext_lazy("Funder"),
    "cause": gettext_lazy("Cause"),
    "cents": gettext_lazy("Amount"),
    "amount": gettext_lazy("Amount"),
    "total": gettext_lazy("Total"),
    "owed": gettext_lazy("Owed"),
    "paid": gettext_lazy("Paid"),
    "federal_cents": gettext_lazy("Federal share"),
    "provincial_cents": gettext_lazy("Provincial or territorial share"),
    "employer_cents": gettext_lazy("Employer share"),
    "government_cents": gettext_lazy("Government share"),
    "claimed_cents": gettext_lazy("Amount claimed"),
    "federal_claimed_cents": gettext_lazy("Federal share claimed"),
    "provincial_claimed_cents": gettext_lazy("Provincial or territorial share claimed"),
    "approved_cents": gettext_lazy("Amount approved"),
    "federal_approved_cents": gettext_lazy("Federal share approved"),
    "provincial_approved_cents": gettext_lazy("Provincial or territorial share approved"),
    "ledger_claimed_cents": gettext_lazy("Amount claimed in the ledger"),
    "released_cents": gettext_lazy("Amount released from the commitment"),
    "funded_elsewhere_cents": gettext_lazy("Funded from elsewhere"),
    "hourly_wage_cents": gettext_lazy("Hourly wage"),
    "is_final": gettext_lazy("Final claim"),
    "version": gettext_lazy("Version"),
    "questions_version": gettext_lazy("Version of the questions"),
    "rules_version": gettext_lazy("Version of the rules"),
    "number": gettext_lazy("Number"),
    "position": gettext_lazy("Trainee's position on the file"),
    "language": gettext_lazy("Language"),
    "approved_status": gettext_lazy("Trainee's status as approved"),
    "milestone": gettext_lazy("Months after the training"),
    "respondent": gettext_lazy("Answered by"),
    "due_on": gettext_lazy("Due on"),
    "received_on": gettext_lazy("Received on"),
    "opens_on": gettext_lazy("Opens on"),
    "closes_on": gettext_lazy("Closes on"),
    "expires_at": gettext_lazy("Expires"),
    "reference": gettext_lazy("Reference"),
    "document_number": gettext_lazy("Document number"),
    "payment": gettext_lazy("Payment's document number"),
    "requests": gettext_lazy("Payments"),
    "lines": gettext_lazy("Lines"),
    "reconciled": gettext_lazy("Payments reconciled"),
    "unmatched": gettext_lazy("Lines not matched"),
    "no_match": gettext_lazy("No payment with this number"),
    "duplicate": gettext_lazy("Repeated line"),
    "wrong_amount": gettext_lazy("Wrong amount"),
    "unknown_document": gettext_lazy("Unknown document number"),
    "has_set_off": gettext_lazy("Set off against an amount owed"),
    "trainees": gettext_lazy("Trainees"),
    "not_completed": gettext_lazy("Trainees who did not complete"),
    "ratings": gettext_lazy("Ratings"),
    "follow_ups": gettext_lazy("Follow-ups scheduled"),
    "files": gettext_lazy("Files"),
    "steps": gettext_lazy("Steps"),
    "seed": gettext_lazy("Seed"),
    "requested_by": gettext_lazy("Requested by"),
    "username": gettext_lazy("Username"),
    "role": gettext_lazy("Role"),
    "name": gettext_lazy("Name"),
    "client": gettext_lazy("Client"),
    "prefix": gettext_lazy("Token's first characters"),
    "owner": gettext_lazy("Owner"),
    "tokens_revoked": gettext_lazy("API tokens revoked"),
    "from_domain": gettext_lazy("Former address's domain"),
    "to_domain": gettext_lazy("New address's domain"),
    "via": gettext_lazy("Through"),
    "method": gettext_lazy("Method"),
    "address": gettext_lazy("IP address"),
    "next_within_minutes": gettext_lazy("Next attempt counted within (minutes)"),
    "failure_limit": gettext_lazy("Failures allowed"),
    "minutes": gettext_lazy("Minutes"),
    "later_attempts": gettext_lazy("Later attempts"),
    "count": gettext_lazy("Count"),
    "codes_left": gettext_lazy("Recovery codes left"),
    "held_count": gettext_lazy("Passkeys held"),
    "business_number": gettext_lazy("Business number"),
    "employees": gettext_lazy("Employees"),
    "naics": gettext_lazy("NAICS code"),
    "region": gettext_lazy("Economic region"),
    "employer": gettext_lazy("Employer number"),
    "sin_recorded": gettext_lazy("SIN recorded"),
    "model": gettext_lazy("Kind of record"),
    "rows": gettext_lazy("Records"),
    "key_id": gettext_lazy("Key"),
    "kind": gettext_lazy("Kind"),
    "attempts": gettext_lazy("Attempts"),
    "error": gettext_lazy("Error"),
    "scenario": gettext_lazy("Scenario"),
    "draws": gettext_lazy("Draws"),
    "years": gettext_lazy("Years"),
    "cells": gettext_lazy("Cells"),
    "sha256": gettext_lazy("SHA-256 fingerprint"),
    "accepted_sha256": gettext_lazy("SHA-256 fingerprint of the text accepted"),
    "content_type": gettext_lazy("Type of file"),
    "size": gettext_lazy("Size (bytes)"),
    "by": gettext_lazy("Replaced by claim"),
    "aaguid": gettext_lazy("Authenticator model (AAGUID)"),
    "fields": gettext_lazy("Fields changed"),
    "figures": gettext_lazy("Shares"),
    "self_service": gettext_lazy("Within what the employer may change alone"),
    "federal": gettext_lazy("Federal officer"),
    "may_view_sin": gettext_lazy("May view a SIN in full"),
    "affiliations": gettext_lazy("Affiliated employers"),
    "active": gettext_lazy("Active"),
    "preferred_language": gettext_lazy("Preferred language"),
}
#: The names of the shares inside a group of money ("figures": before and after).
SHARE_LABELS: dict[str, Promise] = {
    "federal": gettext_lazy("Federal share"),
    "provincial": gettext_lazy("Provincial or territorial share"),
    "employer": gettext_lazy("Employer share"),
}
#: The details that hold groups of shares in cents.
MONEY_GROUPS = frozenset({"figures"})
REFUSAL_CODE_LABELS: dict[str, Promise] = {
    "SEPARATION_OF_DUTIES": gettext_lazy("separation of duties: the recommender cannot approve"),
    "CONFLICT_OF_INTEREST": gettext_lazy("conflict of interest"),
    "NOT_YOUR_FILE": gettext_lazy("not in the officer's files"),
    "NOT_THEIR_FILE": gettext_lazy("not in the files of the officer it was to go to"),
    "NOT_THE_APPLICANT": gettext_lazy("not the applicant organization"),
    "NOT_YOUR_ORGANIZATION": gettext_lazy("not an employer the person acts for"),
    "NOT_YOUR_JURISDICTION": gettext_lazy("another jurisdiction"),
    "ROLE_NOT_ALLOWED": gettext_lazy("the role does not allow it"),
    "SIN_VIEW_NOT_ALLOWED": gettext_lazy("no permission to view a SIN in full"),
    "NOT_FOUND": gettext_lazy("no such application, or not one the person may read"),
}

# The state codes of each kind of object (an entry's "state", "before" and "after").
STATES_OF: dict[str, Mapping[str, str]] = {
    "application": STATE_LABELS,
    "agreement": Labels(AgreementState),
    "participant": Labels(ParticipantState),
    "changerequest": Labels(ChangeState),
    "claim": Labels(ClaimState),
    "completionreport": Labels(ReportState),
    "followup": Labels(FollowUpState),
    "paymentbatch": Labels(BatchState),
    "confirmationimport": Labels(BatchState),
    "paymentrequest": Labels(RequestState),
    "receivable": Labels(ReceivableState),
    "simulation": Labels(RunState),
}
# The details whose values are codes with labels.
CODED_FIELDS: dict[str, Mapping[str, object]] = {
    "funder": FUNDER_LABELS,
    "role": ROLE_LABELS,
    "code": REFUSAL_CODE_LABELS,
    "cause": Labels(ReceivableCause),
    "respondent": Labels(Respondent),
    "approved_status": Labels(TraineeStatus),
    "language": {"en": gettext_lazy("English"), "fr": gettext_lazy("French")},
    "via": {"page": gettext_lazy("a page"), "api": gettext_lazy("the API")},
    "method": {
        "password": gettext_lazy("password"),
        "passkey": gettext_lazy("passkey"),
        "app": gettext_lazy("authenticator app"),
        "app-set-up": gettext_lazy("authenticator app, just set up"),
        "recovery": gettext_lazy("recovery code"),
    },
    "later_attempts": {
        "logged only, until the window ends": gettext_lazy("logged only, until the window ends")
    },
}
MONEY_FIELDS = frozenset({"amount", "total", "owed", "paid"})
DATE_FIELDS = frozenset({"due_on", "received_on", "opens_on", "closes_on"})
MOMENT_FIELDS = frozenset({"expires_at"})
#: The anonymous and system actors (audit.codes), as the trail names them.
ACTOR_LABELS: dict[str, Promise] = {
    ANONYMOUS: gettext_lazy("Anonymous visitor"),
    "": gettext_lazy("Anonymous visitor"),
    WORKER: gettext_lazy("System (the worker)"),
    DEMO_SEED: gettext_lazy("System (the demonstration data)"),
    EXPIRY_JOB: gettext_lazy("System (offers past their date)"),
    REKEY_ACTOR: gettext_lazy("System (jobgrant sin rekey)"),
}
TRAINEE_ACTOR = gettext_lazy("Trainee, by their personal link (place %(number)s)")


def actor_label(actor: str) -> str:
    """Who did it, in words: a person's username, or who stands for no account."""
    if actor.startswith(PARTICIPANT_PREFIX):
        return str(TRAINEE_ACTOR) % {"number": actor.removeprefix(PARTICIPANT_PREFIX)}
    found = ACTOR_LABELS.get(actor)
    return actor if found is None else str(found)


def action_label(action: str) -> str:
    if action in ACTION_LABELS:
        return str(ACTION_LABELS[action])
    if action.startswith("refused."):
        attempt = action.removeprefix("refused.")
        if attempt.startswith("/"):  # an API address that has no route
            return str(REFUSED) % {"attempt": _("send a request to %(path)s") % {"path": attempt}}
        return str(REFUSED) % {"attempt": label(ATTEMPT_LABELS, attempt)}
    return action


def object_type_label(object_type: str) -> str:
    return label(OBJECT_TYPE_LABELS, object_type)


def _refusal_code(code: str) -> str:
    if code in REFUSAL_CODE_LABELS:
        return str(REFUSAL_CODE_LABELS[code])
    wording = refusals.WORDINGS.get(code)
    return code if wording is None else str(wording.title)


def value_text(key: str, value: object, object_type: str = "") -> str:
    """One detail's value as a person reads it: money formatted, codes named, dates written
    out, a group of details as "name: value" pairs."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return _("Yes") if value else _("No")
    if key in MONEY_GROUPS and isinstance(value, dict):
        return "; ".join(
            _("%(name)s: %(value)s") % {"name": label(FIELD_LABELS, str(k)), "value": _shares(v)}
            for k, v in value.items()
        )
    if isinstance(value, dict):
        return ", ".join(
            _("%(name)s: %(value)s")
            % {"name": label(FIELD_LABELS, str(k)), "value": value_text(str(k), v, object_type)}
            for k, v in value.items()
        )
    if key == "fields" and isinstance(value, list):
        return ", ".join(field_label(str(path)) for path in value)
    if isinstance(value, list):
        return ", ".join(value_text(key, item, object_type) for item in value)
    if key == "kind" and object_type == "changerequest":
        return label(CHANGE_KIND_LABELS, str(value))
    if key == "preferred_language":
        return value_text("language", value, object_type)
    if (key == "cents" or key.endswith("_cents")) and isinstance(value, int):
        return money(value)
    if key in MONEY_FIELDS and isinstance(value, str | int):
        try:
            return money(value)
        except (ValueError, ArithmeticError):
            return str(value)
    if key in DATE_FIELDS and isinstance(value, str):
        return _written_date(value)
    if key in MOMENT_FIELDS and isinstance(value, str):
        return _written_moment(value)
    if key == "jurisdiction":
        return jurisdiction_name(str(value))
    if key == "code":
        return _refusal_code(str(value))
    if key in ("state", "before", "after") and object_type in STATES_OF:
        return label(STATES_OF[object_type], str(value))
    labels = CODED_FIELDS.get(key)
    return str(value) if labels is None else label(labels, str(value))


def _shares(value: object) -> str:
    if not isinstance(value, dict):
        return value_text("", value)
    return ", ".join(
        _("%(name)s: %(value)s")
        % {"name": label(SHARE_LABELS, str(k)), "value": money(v) if isinstance(v, int) else v}
        for k, v in value.items()
    )


def _written_date(text: str) -> str:
    try:
        return long_date(dt.date.fromisoformat(text), current_language())
    except ValueError:
        return text


def _written_moment(text: str) -> str:
    try:
        return moment(dt.datetime.fromisoformat(text))
    except ValueError:
        return text


def details(entry: AuditEntry) -> list[tuple[str, str]]:
    """The entry's details as (name, value) in words, known names first in a fixed order. A
    note bound by its SHA-256 (audit.anchors) is shown as the note itself, with its
    fingerprint."""
    summary = entry.summary if isinstance(entry.summary, dict) else {}
    order = list(FIELD_LABELS)
    keys = sorted(summary, key=lambda k: (order.index(k) if k in order else len(order), k))
    found = []
    for key in keys:
        value = summary[key]
        if key == "note_sha256" and isinstance(value, str):
            found.append((str(FIELD_LABELS[key]), _note_text(entry, value)))
            continue
        found.append((label(FIELD_LABELS, key), value_text(key, value, entry.object_type)))
    return found


def _note_text(entry: AuditEntry, sha256: str) -> str:
    note = anchored_text(entry.object_type, entry.object_id, sha256)
    fingerprint = _("SHA-256 %(start)s…") % {"start": sha256[:12]}
    if note is None:
        return _("kept outside the trail (%(fingerprint)s)") % {"fingerprint": fingerprint}
    return _("“%(note)s” (%(fingerprint)s)") % {"note": note, "fingerprint": fingerprint}
