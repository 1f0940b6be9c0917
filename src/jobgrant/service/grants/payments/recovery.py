"""Getting money back: raise a receivable, record a repayment, write one off (two people).

A receivable is raised when a trainee did not complete, when an amendment lowers an approved
claim below what was paid (`recovery_hooks.overpaid`, called by the claim's approval), or when
an officer finds an ineligible cost after payment. It is due a number of days after it is raised
(the dated parameter cjg.agreement.overpayment_repayable_within_days, read under the file's
policy on the day). Each change is one transaction with its ledger movement, its audit entry and
its message to the employer, in the employer's language.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from jobgrant.rules.money import AmountError, format_amount, format_money, parse_amount
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.agreements.document import _parameter as dated_parameter
from jobgrant.service.grants.core import access
from jobgrant.service.grants.core.input import ReasonRule, checked_reason
from jobgrant.service.grants.models.applications import Application, ApplicationEmployer
from jobgrant.service.grants.models.claims import Claim
from jobgrant.service.grants.models.payments import (
    PaymentRequest,
    Receivable,
    ReceivableCause,
    ReceivableState,
    Recovery,
    RecoveryKind,
    RequestState,
)
from jobgrant.service.language import language_of, long_date
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.links import page_link
from jobgrant.service.notifications.outbox import enqueue
from jobgrant.service.refusals import amount, forbidden_for, refused

DUE_PARAMETER = "cjg.agreement.overpayment_repayable_within_days"
MAX_REASON = 2000
_RECEIVABLE_REASON_WANTED = (
    f"is required (1 to {MAX_REASON} characters): the employer reads it",
    f"est obligatoire (1 à {MAX_REASON} caractères) : l'employeur la lit",
)
#: Why a receivable is raised or written off: the employer reads it.
RECEIVABLE_REASON = ReasonRule(
    MAX_REASON,
    missing=_RECEIVABLE_REASON_WANTED,
    too_long=_RECEIVABLE_REASON_WANTED,
    holds_sin=(
        "must not contain a social insurance number: it is sent to the employer",
        "ne doit pas contenir de numéro d'assurance sociale : il est envoyé à l'employeur",
    ),
)
MAX_REFERENCE = 64
#: Causes an officer or finance may raise by hand (an amendment's comes from the claim).
RAISED_BY_HAND = (ReceivableCause.NOT_COMPLETED, ReceivableCause.INELIGIBLE_COST)


# --- Reading -----------------------------------------------------------------------------------


def account_of(application: Application, funder: str) -> BudgetAccount:
    stream = application.stream.code
    return BudgetAccount.objects.get(
        funder=funder,
        jurisdiction=application.jurisdiction,
        fiscal_year=application.fiscal_year,
        stream=stream,
    )


def lead_employer_id(application_id: int) -> int:
    return int(
        ApplicationEmployer.objects.filter(application_id=application_id)
        .order_by("position")
        .values_list("employer_id", flat=True)[0]
    )


def paid_back_owed(application: Application, funder: str) -> tuple[int, int]:
    """(paid, owed back): what was paid on the file by `funder`, and what is already raised as
    receivable against it."""
    paid = PaymentRequest.objects.filter(
        application=application, funder=funder, state=RequestState.PAID
    ).aggregate(total=Sum("gross_cents"))["total"]
    owed = Receivable.objects.filter(application=application, funder=funder).aggregate(
        total=Sum("amount_cents")
    )["total"]
    return int(paid or 0), int(owed or 0)


# --- Raising -----------------------------------------------------------------------------------


def raise_receivable(
    application: Application,
    funder: str,
    cents: int,
    *,
    cause: str,
    reason: str,
    actor: str,
    claim: Claim | None = None,
) -> Receivable:
    """Raise a receivable of `cents` from `funder` on the file (inside the caller's transaction):
    the ledger moves the cents from disbursed to receivable, due N days from today."""
    paid, owed = paid_back_owed(application, funder)
    if cents > paid - owed:
        raise refused(
            409,
            "NO_PAYMENT_TO_RECOVER",
            lambda: {
                "funder": label_of_funder(funder),
                "paid": amount(paid),
                "owed": amount(owed),
                "amount": amount(cents),
            },
        )
    account = account_of(application, funder)
    today = timezone.localdate()
    parameter = dated_parameter(DUE_PARAMETER, application, today)
    receivable = Receivable.objects.create(
        application=application,
        claim=claim,
        debtor_id=lead_employer_id(application.pk),
        account=account,
        funder=funder,
        cause=cause,
        reason=reason,
        amount_cents=cents,
        raised_by=actor,
        raised_at=timezone.now(),
        due_on=today + dt.timedelta(days=parameter["value"]),
        due_parameter=parameter,
    )
    operations.raise_receivable(
        account,
        cents,
        actor=actor,
        application=application,
        reference=f"receivable:{receivable.pk}",
    )
    record(
        actor,
        "receivable.raise",
        "receivable",
        receivable.pk,
        {
            "application": application.pk,
            "funder": funder,
            "cause": cause,
            "amount": format_amount(cents),
            "due_on": receivable.due_on.isoformat(),
            "claim": claim.pk if claim else None,
        },
    )
    tell_employer(
        application,
        "receivable_raised",
        receivable,
        amount_cents=cents,
        due_on=receivable.due_on,
        reason=reason,
    )
    return receivable


def label_of_funder(funder: str) -> str:
    return str(Funder(funder).label) if funder in Funder.values else funder


def _cents(raw: object, field: str = "amount") -> int:
    try:
        cents = parse_amount(raw)
    except AmountError:
        cents = 0
    if cents <= 0:
        raise bad_input(
            [
                problem(
                    field,
                    "must be an amount above zero, with at most two decimals (e.g. 1250.00)",
                    "doit être un montant supérieur à zéro, avec au plus deux décimales "
                    "(p. ex. 1250.00)",
                )
            ]
        )
    return cents


def raise_by_hand(user: User, fields: dict[str, Any]) -> Receivable:
    """POST /receivables: an officer of the file, or finance, raises a receivable for a trainee
    who did not complete or an ineligible cost found after payment."""
    access.require_role(user, Role.OFFICER, Role.FINANCE)
    problems = []
    cause, funder = fields.get("cause"), fields.get("funder")
    if cause not in RAISED_BY_HAND:
        problems.append(
            problem(
                "cause",
                f"must be one of {', '.join(RAISED_BY_HAND)}",
                f"doit être l'une des valeurs {', '.join(RAISED_BY_HAND)}",
            )
        )
    if funder not in Funder.values:
        problems.append(
            problem(
                "funder",
                f"must be one of {', '.join(Funder.values)}",
                f"doit être l'une des valeurs {', '.join(Funder.values)}",
            )
        )
    application_id = fields.get("application")
    if isinstance(application_id, bool) or not isinstance(application_id, int):
        problems.append(
            problem(
                "application", "must be an application's id", "doit être le numéro d'une demande"
            )
        )
    if problems:
        raise bad_input(problems)
    cents = _cents(fields.get("amount"))
    reason = checked_reason(fields.get("reason"), RECEIVABLE_REASON)
    return _raise_on(user, int(application_id), str(funder), cents, str(cause), reason)  # type: ignore[arg-type]


@audited_refusals_of("application", action="raise_receivable")
def _raise_on(
    user: User, application_id: int, funder: str, cents: int, cause: str, reason: str
) -> Receivable:
    application = access.get_visible_application(user, application_id)
    if user.role == Role.OFFICER:
        access.check_officer(user, application)
    with transaction.atomic():
        Application.objects.select_for_update().filter(pk=application.pk).first()
        return raise_receivable(
            application, funder, cents, cause=cause, reason=reason, actor=user.username
        )


# --- Recovering --------------------------------------------------------------------------------


def _lock(receivable: Receivable) -> Receivable:
    return (
        Receivable.objects.select_for_update().select_related("application").get(pk=receivable.pk)
    )


def settle_state(receivable: Receivable, last_kind: str | None = None) -> str:
    """The state its figures put it in."""
    closed = receivable.recovered_cents + receivable.written_off_cents
    if closed >= receivable.amount_cents:
        if receivable.written_off_cents:
            return ReceivableState.WRITTEN_OFF
        set_off = (
            last_kind == RecoveryKind.SET_OFF
            and not receivable.recoveries.filter(kind=RecoveryKind.REPAYMENT).exists()
        )
        return ReceivableState.SET_OFF if set_off else ReceivableState.RECOVERED
    if receivable.recovered_cents:
        return ReceivableState.PARTIALLY_RECOVERED
    return ReceivableState.OPEN


def _require_open(receivable: Receivable) -> None:
    if receivable.state in (
        ReceivableState.RECOVERED,
        ReceivableState.SET_OFF,
        ReceivableState.WRITTEN_OFF,
    ):
        raise refused(
            409,
            "RECEIVABLE_CLOSED",
            lambda: {"state": ReceivableState(receivable.state).label},
            extra={"state": receivable.state},
        )


def _not_more_than_owed(receivable: Receivable, cents: int) -> None:
    owed = receivable.outstanding_cents
    if cents > owed:
        raise refused(409, "TOO_MUCH", lambda: {"amount": amount(cents), "owed": amount(owed)})


@audited_refusals_of("receivable")
def record_repayment(user: User, receivable: Receivable, fields: dict[str, Any]) -> Recovery:
    """Finance records a repayment the bank confirmed: the ledger recovers it."""
    access.require_role(user, Role.FINANCE)
    cents = _cents(fields.get("amount"))
    received_on = _day(fields.get("received_on"))
    reference = fields.get("reference", "")
    if not isinstance(reference, str) or len(reference.strip()) > MAX_REFERENCE:
        raise bad_input(
            [
                problem(
                    "reference",
                    f"must be text of at most {MAX_REFERENCE} characters",
                    f"doit être un texte d'au plus {MAX_REFERENCE} caractères",
                )
            ]
        )
    with transaction.atomic():
        locked = _lock(receivable)
        _require_open(locked)
        _not_more_than_owed(locked, cents)
        recovery = Recovery.objects.create(
            receivable=locked,
            kind=RecoveryKind.REPAYMENT,
            amount_cents=cents,
            received_on=received_on,
            reference=reference.strip(),
            recorded_by=user,
            recorded_at=timezone.now(),
        )
        operations.recover(
            locked.account,
            cents,
            actor=user.username,
            application=locked.application,
            reference=f"receivable:{locked.pk}",
        )
        locked.recovered_cents += cents
        locked.state = settle_state(locked, RecoveryKind.REPAYMENT)
        locked.save(update_fields=["recovered_cents", "state"])
        record(
            user.username,
            "receivable.repayment",
            "receivable",
            locked.pk,
            {
                "amount": format_amount(cents),
                "received_on": received_on.isoformat(),
                "reference": recovery.reference,
                "state": locked.state,
            },
        )
    return recovery


def _day(raw: object) -> dt.date:
    if raw in (None, ""):
        return timezone.localdate()
    try:
        day = dt.date.fromisoformat(str(raw))
    except ValueError:
        day = None
    if day is None or day > timezone.localdate():
        raise bad_input(
            [
                problem(
                    "received_on",
                    "must be a date (YYYY-MM-DD), today or earlier",
                    "doit être une date (AAAA-MM-JJ), aujourd'hui ou avant",
                )
            ]
        )
    return day


@audited_refusals_of("receivable")
def write_off_receivable(user: User, receivable: Receivable, fields: dict[str, Any]) -> Receivable:
    """A write-off takes two finance officers: the first asks (with a reason), a second
    approves; only then does the ledger write the outstanding amount off. The one who asked
    cannot approve (403, audited)."""
    access.require_role(user, Role.FINANCE)
    with transaction.atomic():
        locked = _lock(receivable)
        _require_open(locked)
        if locked.write_off_requested_by_id is None:
            locked.write_off_requested_by = user
            locked.write_off_reason = checked_reason(fields.get("reason"), RECEIVABLE_REASON)
            locked.save(update_fields=["write_off_requested_by", "write_off_reason"])
            record(
                user.username,
                "receivable.write_off_requested",
                "receivable",
                locked.pk,
                {"reason": locked.write_off_reason},
            )
            return locked
        if locked.write_off_requested_by_id == user.pk:
            raise forbidden_for("SECOND_APPROVER_NEEDED")
        cents = locked.outstanding_cents
        if cents > 0:
            operations.write_off(
                locked.account,
                cents,
                actor=user.username,
                application=locked.application,
                reference=f"receivable:{locked.pk}",
            )
        locked.written_off_cents += cents
        locked.written_off_by = user
        locked.state = settle_state(locked)
        locked.save(update_fields=["written_off_cents", "written_off_by", "state"])
        record(
            user.username,
            "receivable.write_off",
            "receivable",
            locked.pk,
            {
                "amount": format_amount(cents),
                "requested_by": locked.write_off_requested_by.username
                if locked.write_off_requested_by
                else "",
                "state": locked.state,
            },
        )
        return locked


# --- Messages ----------------------------------------------------------------------------------


def tell_employer(
    application: Application,
    kind: str,
    subject: Any,
    *,
    amount_cents: int,
    due_on: dt.date | None = None,
    reason: str = "",
    milestone: str = "",
    extra: dict[str, str | int] | None = None,
) -> None:
    """Queue `kind` to the person who made the application, in their language (nothing when
    they have no address)."""
    person = application.created_by
    if "@" not in (person.email or ""):
        return
    language = language_of(application.created_by)
    link = page_link("web:employer-application", language, application_id=application.pk)
    context: dict[str, str | int] = {
        "reference": application.pk,
        "amount": format_money(amount_cents, language),
        "link": link,
        "reason": reason,
        **(extra or {}),
    }
    if due_on is not None:
        context["due_on"] = long_date(due_on, language)
    enqueue(
        kind,
        subject=subject,
        milestone=milestone,
        to=person.email,
        language=language,
        context=context,
    )
