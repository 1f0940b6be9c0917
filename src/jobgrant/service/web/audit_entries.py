"""Audit entries in words, in the page's language: what was done, to what, and the details
each action recorded (money formatted, codes named), for the auditor's page and its CSV. The
entries keep codes and cents (hashed as written); only their display is translated here. A
code with no label is shown as it is, so nothing recorded is hidden."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from jobgrant.service import refusals
from jobgrant.service.accounts.models import VerificationMethod, VerificationOutcome
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
from jobgrant.service.grants.models.integrity import FlagKind, FlagState
from jobgrant.service.grants.models.participants import ParticipantState
from jobgrant.service.grants.models.payments import (
    BatchState,
    ReceivableCause,
    ReceivableState,
    RequestState,
)
from jobgrant.service.grants.participants.sin_keys import ACTOR as REKEY_ACTOR
from jobgrant.service.language import current_language, long_date
from jobgrant.service.registry.models import Verification
from jobgrant.service.web.audit_attempt_words import ATTEMPT_LABELS, REFUSED
from jobgrant.service.web.audit_intake_words import INTAKE_CODED_FIELDS, INTAKE_FIELD_LABELS
from jobgrant.service.web.audit_labels import (
    ACTION_LABELS,
    FLAG_FIELD_LABELS,
    OBJECT_TYPE_LABELS,
    REFUSAL_CODE_LABELS,
    SHARE_LABELS,
    DeclarationWords,
)
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

FIELD_LABELS: dict[str, Promise] = {  # the details' names, in the order they are shown
    **DeclarationWords.labels,
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
    "terms_sha256": gettext_lazy("SHA-256 fingerprint of the terms"),
    "accepted_sha256": gettext_lazy("SHA-256 fingerprint of the text accepted"),
    "content_type": gettext_lazy("Type of file"),
    "size": gettext_lazy("Size (bytes)"),
    "by": gettext_lazy("Replaced by claim"),
    "aaguid": gettext_lazy("Authenticator model (AAGUID)"),
    "fields": gettext_lazy("Fields changed"),
    "figures": gettext_lazy("Shares"),
    "self_service": gettext_lazy("Within what the employer may change alone"),
    "missing_information": gettext_lazy("Denied because information is missing"),
    "federal": gettext_lazy("Federal officer"),
    "may_view_sin": gettext_lazy("May view a SIN in full"),
    "affiliations": gettext_lazy("Affiliated employers"),
    "active": gettext_lazy("Active"),
    "preferred_language": gettext_lazy("Preferred language"),
    "administrator": gettext_lazy("Administrator"),
    "administrators_told": gettext_lazy("Administrators told"),
    "street_address": gettext_lazy("Street address"),
    "city": gettext_lazy("City or town"),
    "postal_code": gettext_lazy("Postal code"),
    "snapshots": gettext_lazy("Indicator snapshots"),
    "federal_lowered_cents": gettext_lazy("Federal share lowered by"),
    "provincial_lowered_cents": gettext_lazy("Provincial or territorial share lowered by"),
    "federal_overpaid_cents": gettext_lazy("Federal share overpaid"),
    "provincial_overpaid_cents": gettext_lazy("Provincial or territorial share overpaid"),
    "federal_released_cents": gettext_lazy("Federal share released"),
    "provincial_released_cents": gettext_lazy("Provincial or territorial share released"),
    "federal_moved_cents": gettext_lazy("Federal share moved"),
    "provincial_moved_cents": gettext_lazy("Provincial or territorial share moved"),
    "invitations_revoked": gettext_lazy("Invitations cancelled"),
    "proof": gettext_lazy("Document number"),
    "document": gettext_lazy("Document number"),
    "decision": gettext_lazy("Decision number"),
    "dispute": gettext_lazy("Dispute number"),
    "outcome": gettext_lazy("Outcome"),
    "verified_against": gettext_lazy("Verified against"),
    "members_removed": gettext_lazy("People removed"),
    "routed": gettext_lazy("Sent to the partner"),
    **INTAKE_FIELD_LABELS,
    **FLAG_FIELD_LABELS,
}
#: The details that hold groups of shares in cents.
MONEY_GROUPS = frozenset({"figures"})
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
    "employer": Labels(Verification),
    "riskflag": Labels(FlagState),
}
KINDS_OF = {"changerequest": CHANGE_KIND_LABELS, "riskflag": Labels(FlagKind)}
# The details whose values are codes with labels.
CODED_FIELDS: dict[str, Mapping[str, object]] = {
    **DeclarationWords.codes,
    "funder": FUNDER_LABELS,
    "role": ROLE_LABELS,
    "code": REFUSAL_CODE_LABELS,
    "cause": Labels(ReceivableCause),
    "respondent": Labels(Respondent),
    "approved_status": Labels(TraineeStatus),
    "verified_against": Labels(VerificationMethod),
    "outcome": Labels(VerificationOutcome),
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
    **INTAKE_CODED_FIELDS,
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
    if key == "kind" and object_type in KINDS_OF:
        return label(KINDS_OF[object_type], str(value))
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
