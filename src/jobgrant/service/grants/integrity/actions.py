"""Risk flags raised, worked out again, and cleared: each change in the transaction of its cause,
with its audit entry.

Flags are raised when an application is submitted (the application's kinds), when a claim is
submitted (its receipts), when a trainee's participation is confirmed (the trainee across
years), and worked out again where their inputs change (an organization's bank account, its
telephone number). A flag found again keeps its state unless its figures changed: a cleared
flag whose figures changed is open again, since what the officer cleared is no longer what is
found. A flag no longer found lapses. An officer clears an open flag with a reason; an open flag
keeps the application from being recommended (`check_none_open`), never from anything else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict
from typing import Any

from django.db import transaction
from django.utils import timezone

from jobgrant.service import rows
from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.grants.core import access
from jobgrant.service.grants.core.input import ReasonRule, checked_reason
from jobgrant.service.grants.integrity import findings
from jobgrant.service.grants.integrity.declarations import declared
from jobgrant.service.grants.integrity.findings import Finding
from jobgrant.service.grants.models.applications import Application, State
from jobgrant.service.grants.models.claims import Claim
from jobgrant.service.grants.models.integrity import (
    FlagKind,
    FlagState,
    RiskFlag,
    SubmittedTraining,
)
from jobgrant.service.grants.models.participants import Participant
from jobgrant.service.refusals import refused
from jobgrant.service.registry.models import Employer

#: Files still before a decision: a change to an organization's account is worked out again
#: on these (a decided file keeps the flags it was decided with).
UNDECIDED = (State.SUBMITTED, State.RECOMMENDED)
CLEAR_REASON_MAX = 2000
CLEAR_REASON = ReasonRule(
    CLEAR_REASON_MAX,
    missing=(
        "is required to clear a flag: say what you checked",
        "est obligatoire pour lever un signalement : dites ce que vous avez vérifié",
    ),
)


def _summary(flag: RiskFlag, **also: Any) -> dict[str, Any]:
    """What the audit trail keeps of a flag: its file, kind and state, and the figures it
    compared (the numbers; the names stay on the flag, which the entry names)."""
    return {
        "application": flag.application_id,
        "kind": flag.kind,
        "state": flag.state,
        "compared": compared(flag.kind, flag.figures),
        **also,
    }


def compared(kind: str, figures: dict[str, Any]) -> dict[str, Any]:
    """The figures' numbers (cents, counts, percentages, file numbers, fiscal years), each
    threshold by its value: a threshold in money is named in cents."""
    found: dict[str, Any] = {}
    for key, value in figures.items():
        if isinstance(value, dict) and "value" in value:
            money = kind == FlagKind.TRAINEE_ACROSS_YEARS and key == "threshold"
            found[f"{key}_cents" if money else key] = value["value"]
        elif isinstance(value, int | list) and key not in ("others", "relations"):
            found[key] = value
    return found


def sync(
    actor: str,
    application: Application,
    found: Iterable[Finding],
    kinds: Iterable[str],
    within: Callable[[RiskFlag], bool] = lambda _flag: True,
) -> list[RiskFlag]:
    """Make the application's flags of `kinds` (those `within` says were worked out again)
    what `found` says; the caller holds the transaction."""
    now = timezone.now()
    existing = {
        (flag.kind, flag.subject): flag
        for flag in RiskFlag.objects.filter(application=application, kind__in=list(kinds))
        if within(flag)
    }
    provider = findings.training_of(application).provider_key
    kept = [
        _raise(actor, application, f, existing.pop((f.kind, f.subject), None), provider, now)
        for f in found
    ]
    for gone in existing.values():
        _lapse(actor, gone, now)
    return kept


def _raise(
    actor: str,
    application: Application,
    finding: Finding,
    flag: RiskFlag | None,
    provider_key: str,
    now: Any,
) -> RiskFlag:
    if flag is None:
        flag = RiskFlag.objects.create(
            application=application,
            claim_id=finding.claim_id,
            kind=finding.kind,
            subject=finding.subject,
            provider_key=provider_key,
            figures=finding.figures,
            raised_at=now,
            updated_at=now,
        )
        record(actor, "risk_flag.raise", "riskflag", flag.pk, _summary(flag))
        return flag
    if flag.figures == finding.figures and flag.state != FlagState.LAPSED:
        return flag
    flag.figures, flag.updated_at = finding.figures, now
    flag.state = FlagState.OPEN
    flag.cleared_by, flag.cleared_at, flag.clear_reason = None, None, ""
    flag.save()
    record(actor, "risk_flag.raise", "riskflag", flag.pk, _summary(flag, again=True))
    return flag


def _lapse(actor: str, flag: RiskFlag, now: Any) -> None:
    if flag.state == FlagState.LAPSED:
        return
    flag.state, flag.updated_at = FlagState.LAPSED, now
    flag.save(update_fields=["state", "updated_at"])
    record(actor, "risk_flag.lapse", "riskflag", flag.pk, _summary(flag))


def raise_on_submission(actor: str, application: Application) -> list[RiskFlag]:
    """The application's own flags, when it is submitted (in the submission's transaction):
    its training kept for later comparisons, then every kind worked out."""
    training = findings.training_of(application)
    kept = SubmittedTraining(application=application, **asdict(training))
    rows.insert(kept, replacing=("application",))
    found = findings.on_submission(application, training)
    return sync(actor, application, found, findings.APPLICATION_KINDS)


def raise_for_receipts(actor: str, claim: Claim) -> list[RiskFlag]:
    """The claim's receipts used in another file (in the claim's submission's transaction)."""
    found = findings.reused_receipts(claim)
    kinds = [FlagKind.RECEIPT_REUSED]
    return sync(actor, claim.application, found, kinds, lambda flag: flag.claim_id == claim.pk)


def raise_for_trainee(
    actor: str, participant: Participant, government_cents: Callable[[Application, int], int]
) -> list[RiskFlag]:
    """The trainee funded across years, when their participation is decided."""
    found = findings.trainee_across_years(participant, government_cents)
    subject = findings.trainee_subject(participant)
    kinds = [FlagKind.TRAINEE_ACROSS_YEARS]
    return sync(actor, participant.application, found, kinds, lambda f: f.subject == subject)


def rework_bank_accounts(actor: str, indexes: Iterable[str]) -> None:
    """After an organization's account changed (old and new index): the undecided files of every
    organization holding one of those accounts, their bank-account flags worked out again."""
    wanted = [index for index in indexes if index]
    if not wanted:
        return
    holders = Employer.objects.filter(bank_account_index__in=wanted).values("pk")
    files = Application.objects.filter(
        state__in=UNDECIDED, employers__employer__in=holders
    ).distinct()
    for application in files.order_by("id"):
        declaration = declared(application)
        employers = findings.applicants(application)  # once, for both findings
        related = [
            f
            for f in findings.related_provider(application, declaration, employers)
            if f.subject.startswith("bank_account:")
        ]
        sync(actor, application, related, [FlagKind.RELATED_PROVIDER], _by_account)
        shared = findings.shared_bank_account(application, employers)
        sync(actor, application, shared, [FlagKind.SHARED_BANK_ACCOUNT])


def _by_account(flag: RiskFlag) -> bool:
    return flag.subject.startswith("bank_account:")


def rework_phone(actor: str, employer: Employer) -> None:
    """After an organization's telephone number changed: its undecided files, their
    related-provider flag by telephone worked out again (found, found again, or lapsed)."""
    subject = f"phone:{employer.pk}"
    files = Application.objects.filter(state__in=UNDECIDED, employers__employer=employer)
    for application in files.distinct().order_by("id"):
        found = [
            f
            for f in findings.related_provider(application, declared(application))
            if f.subject == subject
        ]
        kinds = [FlagKind.RELATED_PROVIDER]
        sync(actor, application, found, kinds, lambda flag: flag.subject == subject)


def check_none_open(application: Application) -> None:
    """Refuse (409) while a flag of the application is open: an officer clears each first."""
    count = RiskFlag.objects.filter(application=application, state=FlagState.OPEN).count()
    if count:
        raise refused(409, "RISK_FLAGS_OPEN", lambda: {"count": count}, extra={"open": count})


@audited_refusals_of("riskflag")
def clear_flag(user: User, flag: RiskFlag, reason: object) -> RiskFlag:
    """An officer who may decide the file clears an open flag, saying what they checked."""
    access.check_officer(user, flag.application)
    why = checked_reason(reason, CLEAR_REASON)
    with transaction.atomic():
        locked = RiskFlag.objects.select_for_update().get(pk=flag.pk)
        if locked.state != FlagState.OPEN:
            raise refused(409, "RISK_FLAG_NOT_OPEN")
        locked.state, locked.clear_reason = FlagState.CLEARED, why
        locked.cleared_by, locked.cleared_at = user, timezone.now()
        locked.updated_at = locked.cleared_at
        locked.save()
        record(
            user.username, "risk_flag.clear", "riskflag", locked.pk, _summary(locked, reason=why)
        )
    return locked
