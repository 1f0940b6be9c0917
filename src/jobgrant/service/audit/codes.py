"""Every code the audit trail can hold: the actions, the kinds of object, and the refusals.

`chain.record` appends only an action and an object type listed here, so that no action reaches
the trail without being declared; the auditor's page words each one
(`web/audit_labels.py`), and a test walks these lists and fails on a code without its words
in English and in French. A new action is added here, then worded there.

A refusal is recorded as `refused.<name>`, where the name is the action's
(`audit.actions.audited_refusals_of` registers each name it decorates in `REFUSALS`), a page
("open_page") or an API operation (the route's name); they are worded as what was attempted.
"""

from __future__ import annotations

#: The actors that are not a person's account.
ANONYMOUS = "anonymous"  # someone not signed in (a failed sign-in, a refused link)
WORKER = "worker"  # the worker's scheduled jobs (messages, reminders, simulations)
DEMO_SEED = "demo-seed"  # the demonstration data and history
PARTICIPANT_PREFIX = "participant:"  # a trainee, by their slot, through their personal link

ACTIONS: frozenset[str] = frozenset(
    {
        # applications
        "application.create",
        "application.declare",
        "application.submit",
        "application.recommend",
        "application.approve",
        "application.deny",
        "application.withdraw",
        "application.assign",
        "application.release",
        "partner.ask",
        "partner.accept",
        "partner.decline",
        # ranked intakes and decisions against their ranking
        "intake.rank",
        "rank_override.request",
        "rank_override.sign_off",
        "rank_override.refuse",
        # agreements
        "agreement.issue",
        "agreement.new_version",
        "agreement.render",
        "agreement.accept",
        "agreement.accept_version",
        "agreement.decline",
        "agreement.withdraw",
        "agreement.expire",
        "agreement.complete",
        # participants
        "participant.invite",
        "participant.resend",
        "participant.remind",
        "participant.revoke",
        "participant.submit",
        "participant.confirm",
        "participant.find_ineligible",
        "participant.view_sin",
        "sin.rekey",
        # change requests
        "change_request.submit",
        "change_request.approve",
        "change_request.deny",
        # claims
        "claim.start",
        "claim.edit",
        "claim.submit",
        "claim.review",
        "claim.return",
        "claim.deny",
        "claim.approve",
        "claim.supersede",
        "claim.discard",
        "receipt.upload",
        # payments
        "payment_batch.build",
        "payment_batch.authorize",
        "payment_batch.export",
        "payment_batch.confirm",
        "payment.hold",
        "payment.lift_hold",
        "receivable.raise",
        "receivable.repayment",
        "receivable.set_off",
        "receivable.write_off_requested",
        "receivable.write_off",
        # completion
        "completion_report.start",
        "completion_report.save",
        "completion_report.submit",
        "follow_up.send",
        "follow_up.remind",
        "follow_up.lapse",
        "follow_up.respond",
        # programs, streams and intakes
        "stream.change",
        "intake.create",
        "intake.change",
        "intake.open",
        "intake.close",
        # integrity: risk flags on a file
        "risk_flag.raise",
        "risk_flag.lapse",
        "risk_flag.clear",
        # the comparison group of the net outcomes
        "comparison.enrol",
        "comparison.send",
        "comparison.remind",
        "comparison.lapse",
        "comparison.respond",
        "comparison.decline",
        "evaluation.export",
        # budgets, the registry, the KPIs, simulations, messages
        "budget.allocate",
        "employer.register",
        "trainee.register",
        "trainee.view_sin",
        "kpis.refresh",
        "simulation.request",
        "simulation.finish",
        "simulation.fail",
        "message.failed",
        # accounts
        "auth.sign_in",
        "auth.sign_in_failed",
        "auth.locked_out",
        "token.issue",
        "token.revoke",
        "user.create",
        "user.password_change",
        "user.password_reset",
        "user.password_reset_requested",
        "user.email_change",
        "user.email_change_requested",
        "user.registration_attempted",
        "user.verify_email",
        "user.verification_resent",
        "second_factor.app_set_up",
        "second_factor.recovery_code_used",
        "second_factor.recovery_codes_made",
        "second_factor.removed",
        "second_factor.reset",
        "second_factor.passkey_added",
        "second_factor.passkey_counter_refused",
        "second_factor.passkey_removed",
        # organizations and staff accounts
        "organization.register",
        "organization.registration_attempted",
        "organization.invite",
        "organization.revoke_invitation",
        "organization.join",
        "organization.set_role",
        "organization.remove",
        "organization.upload_proof",
        "organization.verify",
        "organization.refuse",
        "organization.dispute",
        "organization.resolve_dispute",
        "organization.set_bank_account",
        "organization.set_phone",
        "bank_account.rekey",
        "staff.create",
        "staff.change",
        "staff.deactivate",
        "staff.reactivate",
        "otp.rekey",
        "staff.setup",
        # the demonstration history
        "demo.history_started",
        "demo.history_loaded",
    }
)

#: The kinds of object an entry names (a model's name, or what stands for a thing with no row).
OBJECT_TYPES: frozenset[str] = frozenset(
    {
        "application",
        "totpdevice",
        "agreement",
        "budget",
        "changerequest",
        "claim",
        "completionreport",
        "confirmationimport",
        "demo",
        "employer",
        "followup",
        "comparisonfollowup",
        "evaluation",
        "formdraft",
        "intake",
        "program",
        "stream",
        "kpis",
        "message",
        "page",
        "participant",
        "partnerconsent",
        "paymentbatch",
        "paymentrequest",
        "receipt",
        "rankoverride",
        "receivable",
        "request",
        "riskflag",
        "simulation",
        "trainee",
        "user",
    }
)

#: The names `audited_refusals_of` decorates, registered as each module is imported.
REFUSALS: set[str] = set()
#: The refusals no decorated action records: a page the role gate or the 404 page refused.
PAGE_REFUSAL = "open_page"


def check(actor: str, action: str, object_type: str) -> None:
    """Refuse, as a programming error, an entry with no actor, or an action or an object type
    not declared above."""
    if not actor:
        raise ValueError(f"audit action {action!r} names no actor (use ANONYMOUS or WORKER)")
    if action.startswith("refused."):
        pass  # what was attempted: an action's name, a page or an API operation
    elif action not in ACTIONS:
        raise ValueError(f"audit action {action!r} is not declared in audit.codes.ACTIONS")
    if object_type not in OBJECT_TYPES:
        raise ValueError(f"object type {object_type!r} is not declared in audit.codes.OBJECT_TYPES")
