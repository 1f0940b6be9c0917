"""The words of the audit trail's codes: every action the service can record
(`audit.codes.ACTIONS`) and every kind of object (what a refused entry says was attempted:
web/audit_attempt_words.py). `web/audit_entries.py` reads them; a test walks
the codes and fails on one without its words in both languages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from jobgrant.service.grants.models.declarations import PreparedBy, Relation

ACTION_LABELS: dict[str, Promise] = {
    # applications
    "application.create": gettext_lazy("Application created"),
    "application.declare": gettext_lazy("Declarations made"),
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
    "agreement.render": gettext_lazy("Agreement's text written and fingerprinted"),
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
    "claim.discard": gettext_lazy("Draft claim discarded"),
    "user.email_change_requested": gettext_lazy("New email address asked for (link sent to it)"),
    "user.email_change": gettext_lazy("Email address changed"),
    "staff.deactivate": gettext_lazy("Staff account deactivated"),
    "staff.reactivate": gettext_lazy("Staff account reactivated"),
    "otp.rekey": gettext_lazy("Authenticator seeds sealed under the current key"),
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
    "comparison.enrol": gettext_lazy("Unfunded file added to the comparison group"),
    "comparison.send": gettext_lazy("Comparison group's questions sent"),
    "comparison.remind": gettext_lazy("Comparison group's reminder sent"),
    "comparison.lapse": gettext_lazy("Comparison group's questions lapsed without an answer"),
    "comparison.respond": gettext_lazy("Comparison group's questions answered"),
    "comparison.decline": gettext_lazy("Comparison group's questions declined"),
    "evaluation.export": gettext_lazy("Evaluation file exported (pseudonymized)"),
    # budgets, the registry, the KPIs, simulations, messages
    "budget.allocate": gettext_lazy("Budget allocated"),
    "stream.change": gettext_lazy("Stream's rules changed"),
    "intake.create": gettext_lazy("Intake created"),
    "intake.change": gettext_lazy("Intake changed"),
    "intake.open": gettext_lazy("Intake opened"),
    "intake.close": gettext_lazy("Intake closed"),
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
    "organization.upload_proof": gettext_lazy("Proof of the organization's registration uploaded"),
    "organization.verify": gettext_lazy("Organization verified"),
    "organization.refuse": gettext_lazy("Organization's verification refused"),
    "organization.dispute": gettext_lazy("Organization's registration disputed"),
    "organization.resolve_dispute": gettext_lazy(
        "Dispute of an organization's registration resolved"
    ),
    "staff.create": gettext_lazy("Staff account created"),
    "staff.change": gettext_lazy("Staff account changed"),
    "staff.setup": gettext_lazy("Staff account set up by its owner"),
    # integrity: risk flags on a file
    "risk_flag.raise": gettext_lazy("Risk flag raised"),
    "risk_flag.lapse": gettext_lazy("Risk flag no longer found"),
    "risk_flag.clear": gettext_lazy("Risk flag cleared by an officer"),
    "organization.set_bank_account": gettext_lazy("Organization's direct-deposit account set"),
    "bank_account.rekey": gettext_lazy(
        "Direct-deposit account numbers sealed under the current key"
    ),
    # the ranking at an intake's close, and the decisions taken against it
    "intake.rank": gettext_lazy("Intake ranked"),
    "rank_override.request": gettext_lazy("Decision against the ranking asked for"),
    "rank_override.sign_off": gettext_lazy("Decision against the ranking signed off"),
    "rank_override.refuse": gettext_lazy("Decision against the ranking refused"),
    # the demonstration history
    "demo.history_started": gettext_lazy("Demonstration history started"),
    "demo.history_loaded": gettext_lazy("Demonstration history loaded"),
}
OBJECT_TYPE_LABELS: dict[str, Promise] = {
    "application": gettext_lazy("Application"),
    "totpdevice": gettext_lazy("Authenticator app"),
    "agreement": gettext_lazy("Agreement"),
    "budget": gettext_lazy("Budget"),
    "changerequest": gettext_lazy("Change request"),
    "claim": gettext_lazy("Claim"),
    "completionreport": gettext_lazy("Completion report"),
    "confirmationimport": gettext_lazy("Paying system's confirmation"),
    "demo": gettext_lazy("Demonstration history"),
    "employer": gettext_lazy("Employer"),
    "followup": gettext_lazy("Follow-up"),
    "comparisonfollowup": gettext_lazy("Comparison group's question"),
    "evaluation": gettext_lazy("Evaluation file"),
    "formdraft": gettext_lazy("Saved application form"),
    "intake": gettext_lazy("Intake"),
    "program": gettext_lazy("Program"),
    "stream": gettext_lazy("Stream"),
    "rankoverride": gettext_lazy("Decision against the ranking"),
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
    "riskflag": gettext_lazy("Risk flag"),
    "simulation": gettext_lazy("Simulation"),
    "trainee": gettext_lazy("Trainee"),
    "user": gettext_lazy("User"),
}

#: The refusal codes, in words (the audit entries of refusals).
REFUSAL_CODE_LABELS: dict[str, Promise] = {
    "SEPARATION_OF_DUTIES": gettext_lazy("separation of duties: the recommender cannot approve"),
    "NO_SUCH_INTAKE": gettext_lazy("no such intake"),
    "INTAKE_NOT_CLOSED": gettext_lazy("the intake is still open"),
    "UNKNOWN_POLICY": gettext_lazy("no such policy"),
    "CONFLICT_OF_INTEREST": gettext_lazy("conflict of interest"),
    "NOT_YOUR_FILE": gettext_lazy("not in the officer's files"),
    "NOT_THEIR_FILE": gettext_lazy("not in the files of the officer it was to go to"),
    "NOT_THE_APPLICANT": gettext_lazy("not the applicant organization"),
    "NOT_YOUR_ORGANIZATION": gettext_lazy("not an employer the person acts for"),
    "NOT_YOUR_JURISDICTION": gettext_lazy("another jurisdiction"),
    "ROLE_NOT_ALLOWED": gettext_lazy("the role does not allow it"),
    "SIN_VIEW_NOT_ALLOWED": gettext_lazy("no permission to view a SIN in full"),
    "NOT_FOUND": gettext_lazy("no such application, or not one the person may read"),
    "EMAIL_TAKEN": gettext_lazy("another account uses this email address"),
    "RISK_FLAGS_OPEN": gettext_lazy("risk flags still open on the file"),
}

#: The details of the risk flags' entries (risk_flag.*, organization.set_bank_account), and the
#: receipt's invoice number they compare (claim.attach).
FLAG_FIELD_LABELS: dict[str, Promise] = {
    "invoice_number": gettext_lazy("Invoice number"),
    "compared": gettext_lazy("Figures compared"),
    "price_cents": gettext_lazy("Cost per trainee"),
    "usual_cents": gettext_lazy("Usual cost per trainee"),
    "percent": gettext_lazy("Percentage of the usual price"),
    "threshold": gettext_lazy("Threshold"),
    "threshold_cents": gettext_lazy("Threshold"),
    "least_files": gettext_lazy("Fewest files to compare"),
    "with_receivables": gettext_lazy("Files with an amount owed"),
    "fee_cents": gettext_lazy("Preparer's fee"),
    "trainee": gettext_lazy("Trainee"),
    "again": gettext_lazy("Raised again"),
    "changed": gettext_lazy("Replaces an earlier account"),
    "account": gettext_lazy("Account"),
    "phone": gettext_lazy("Telephone number"),  # an organization's, or the one a flag matched
    "provider_phone": gettext_lazy("Provider's telephone number"),
}

#: The names of the shares inside a group of money ("figures": before and after).
SHARE_LABELS: dict[str, Promise] = {
    "federal": gettext_lazy("Federal share"),
    "provincial": gettext_lazy("Provincial or territorial share"),
    "employer": gettext_lazy("Employer share"),
}


class DeclarationWords:
    """The details of `application.declare` (grants/applications/declarations.summary): their
    names, and the words of the codes they hold. audit_entries.py merges them into its own."""

    labels: ClassVar[Mapping[str, Promise]] = {
        "prepared_by": gettext_lazy("Prepared by"),
        "preparer_fee_cents": gettext_lazy("Fee paid to prepare the application"),
        "related_to_provider": gettext_lazy("Related to the provider"),
        "relations": gettext_lazy("How they are related"),
        "other_funding": gettext_lazy("Other government funding"),
        "other_funding_cents": gettext_lazy("Amount of the other funding"),
        "provider_business_number": gettext_lazy("Provider's business number"),
        "trainer_attests_no_conflict": gettext_lazy("Trainer's conflict-of-interest attestation"),
        "employer_attests_no_conflict": gettext_lazy("Employer's conflict-of-interest attestation"),
    }
    codes: ClassVar[Mapping[str, Mapping[str, object]]] = {
        "prepared_by": dict(PreparedBy.choices),
        "relations": dict(Relation.choices),
    }
