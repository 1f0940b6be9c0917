"""Every change to an agreement: issue, new version, accept, decline, withdraw, expire.

One function, one transaction, its audit entry, its ledger postings and its messages (the
outbox rows commit with their cause). The agreement's row is locked (SELECT … FOR UPDATE on
PostgreSQL; on SQLite every transaction begins IMMEDIATE, so writers take turns) and its state
and accept-by time are checked under that lock: an offer cannot be accepted after it expired,
even when the acceptance and the expiry job race.

An offer that ends without acceptance (declined, withdrawn, expired) gives its commitment back
once: with the application's move from approved to withdrawn. An application withdrawn
earlier (grants.actions.withdraw_application) released its commitment then, and nothing is
released twice.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, NamedTuple

from django.db import connection, transaction
from django.utils import timezone

from jobgrant.rules.money import format_money
from jobgrant.service import rows
from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.anchors import anchored
from jobgrant.service.audit.chain import record
from jobgrant.service.audit.codes import WORKER
from jobgrant.service.errors import ServiceError, bad_input, not_found, problem
from jobgrant.service.grants.agreements.access import version_shown
from jobgrant.service.grants.agreements.document import (
    content_hash,
    due_dates,
    employers_of,
    named_employers,
    render_document,
    terms_hash,
    terms_of,
)
from jobgrant.service.grants.agreements.workflow import (
    IllegalAgreementTransition,
    agreement_target_of,
)
from jobgrant.service.grants.core import access
from jobgrant.service.grants.core.input import ReasonRule, checked_reason
from jobgrant.service.grants.core.workflow import target_of
from jobgrant.service.grants.models.agreements import (
    CONFIRMATIONS,
    Agreement,
    AgreementState,
    AgreementVersion,
)
from jobgrant.service.grants.models.applications import Application, State, StateChange, Stream
from jobgrant.service.language import language_of
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.links import page_link
from jobgrant.service.notifications.outbox import enqueue
from jobgrant.service.refusals import refused

EXPIRY_JOB = "expire_offers"  # the actor the audit trail names for what the job does
REMINDER_BEFORE = dt.timedelta(days=1)
MAX_TEXT = 200
#: The fields of a version's terms a new version may change (new_version).
TERMS = (
    "cost_lines",
    "trainee_shares",
    "schedule",
    "eligible_cents",
    "federal_cents",
    "provincial_cents",
    "employer_cents",
    "policy",
    "policy_version",
)


def _summary(agreement: Agreement, version: AgreementVersion) -> dict[str, Any]:
    """What the audit trail keeps of an agreement: figures and hashes, no personal information.
    The terms' hash always (a version made before it was kept has none); the document's once it
    is rendered (never when a version is made: it is rendered on first read or by the worker)."""
    hashes = {"terms_sha256": version.terms_sha256} if version.terms_sha256 else {}
    if version.content_sha256:
        hashes["sha256"] = version.content_sha256
    return {
        "state": agreement.state,
        "application": agreement.application_id,
        "version": version.number,
        **hashes,
        "federal_cents": version.federal_cents,
        "provincial_cents": version.provincial_cents,
    }


# --- Issue and versions ------------------------------------------------------------------------


class Issued(NamedTuple):
    """An agreement issued in an approval's transaction, whose audit entry is still to append."""

    agreement: Agreement
    version: AgreementVersion
    by: User

    def record(self) -> None:
        """Append the `agreement.issue` entry (its terms' hash). The approval calls this last,
        beside its own entry: every approval waits for the audit head, so it is locked at the
        end of the transaction, not before the ledger and the budget rows."""
        summary = _summary(self.agreement, self.version)
        record(self.by.username, "agreement.issue", "agreement", self.agreement.pk, summary)


def issue_agreement(
    application: Application, by: User, applicant: Recipient | None = None
) -> Issued:
    """Version 1 of the application's agreement, offered to the applicant, and its message.
    Runs inside the approval's transaction (grants.actions.approve_application): an approval
    that fails leaves no agreement, and no approval is left without one. The caller appends its
    audit entry (`Issued.record`) before the transaction ends. `applicant`: the address and
    language of whoever made the application, when the caller read them already."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("an agreement is issued in the transaction of its approval")
    now = timezone.now()
    agreement = Agreement(
        application=application, state=AgreementState.ISSUED, issued_at=now, issued_by=by
    )
    rows.insert(agreement)
    version = _make_version(agreement, terms_of(application), by=by, at=now)
    _tell("agreement_issued", agreement, version, f"version-{version.number}", to=applicant)
    return Issued(agreement, version, by)


def new_version(
    agreement: Agreement,
    *,
    by: User,
    changes: dict[str, Any],
    reason: str,
    needs_acceptance: bool,
) -> AgreementVersion:
    """Version n+1, made from version n with `changes` (any of TERMS), inside the caller's
    transaction (an approved change request, say). Its due dates are worked out again from its
    schedule and its terms hashed (its document is rendered when first read); if it
    `needs_acceptance`, the applicant accepts it as they accepted the first (accept_agreement)."""
    unknown = set(changes) - set(TERMS)
    if unknown:
        raise ValueError(f"a version's terms do not include {sorted(unknown)}")
    locked = _lock(agreement)
    previous = current_version(locked)
    terms = {field: getattr(previous, field) for field in TERMS} | changes
    version = _make_version(
        locked,
        terms,
        by=by,
        at=timezone.now(),
        made_from=previous,
        changes={"reason": reason, "fields": sorted(changes)},
        needs_acceptance=needs_acceptance,
    )
    agreement.version = locked.version
    record(by.username, "agreement.new_version", "agreement", locked.pk, _summary(locked, version))
    return version


def _make_version(
    agreement: Agreement,
    terms: dict[str, Any],
    *,
    by: User,
    at: dt.datetime,
    made_from: AgreementVersion | None = None,
    changes: dict[str, Any] | None = None,
    needs_acceptance: bool = True,
) -> AgreementVersion:
    number = made_from.number + 1 if made_from else 1
    due = due_dates(agreement.application, at, terms["schedule"])
    version = AgreementVersion(
        agreement=agreement,
        number=number,
        made_from=made_from.number if made_from else None,
        changes=changes or {},
        needs_acceptance=needs_acceptance,
        created_at=at,
        created_by=by,
        accept_by=due.accept_by,
        participants_by=due.participants_by,
        first_claim_by=due.first_claim_by,
        completion_report_by=due.completion_report_by,
        due_date_parameters=due.parameters,
        named_employers=named_employers(agreement.application_id),
        **terms,
    )
    version.terms_sha256 = terms_hash(version)
    rows.insert(version)  # its document is rendered once, when first read (rendered)
    if number > 1:
        Agreement.objects.filter(pk=agreement.pk).update(version=number, updated_at=at)
        agreement.version = number
    return version


def current_version(agreement: Agreement) -> AgreementVersion:
    return AgreementVersion.objects.get(agreement_id=agreement.pk, number=agreement.version)


# --- The document, rendered once ---------------------------------------------------------------


class TermsChangedError(RuntimeError):
    """A version's stored terms are not those its terms' hash (in the issue's audit entry) was
    taken of: the row was changed outside the service. Its document is not rendered."""


def rendered(version: AgreementVersion, actor: str) -> AgreementVersion:
    """`version` with its document: rendered from its stored terms and names, hashed and stored
    if this is the first read (in a transaction of its own, with an `agreement.render` audit
    entry naming `actor`), else as stored. Idempotent and safe in two processes at once: the
    document is written only where none is (UPDATE … WHERE content_sha256 = ''), so the first
    writer's text stands and the others read it back; it never changes once written."""
    if version.content_sha256:
        return version
    if version.terms_sha256 != terms_hash(version):
        raise TermsChangedError(f"{version}: its terms are not those its terms' hash was taken of")
    links = employers_of(version)
    content_en = render_document(version, "en", links)
    content_fr = render_document(version, "fr", links)
    sha256 = content_hash(content_en, content_fr)
    with transaction.atomic():
        written = AgreementVersion.objects.filter(pk=version.pk, content_sha256="").update(
            content_en=content_en, content_fr=content_fr, content_sha256=sha256
        )
        if written:
            summary = {
                "application": version.agreement.application_id,
                "version": version.number,
                "terms_sha256": version.terms_sha256,
                "sha256": sha256,
            }
            record(actor, "agreement.render", "agreement", version.agreement_id, summary)
    if written:
        version.content_en, version.content_fr = content_en, content_fr
        version.content_sha256 = sha256
    else:  # another reader or the worker wrote it first: theirs stands
        stored = AgreementVersion.objects.filter(pk=version.pk)
        fields = ("content_en", "content_fr", "content_sha256")
        for field, value in zip(fields, stored.values_list(*fields).get(), strict=True):
            setattr(version, field, value)
    return version


def version_read(user: User, agreement: Agreement) -> AgreementVersion:
    """The version shown of `agreement` (read through agreements.access by `user`), with its
    document: rendered now if nobody has read it before."""
    version = version_shown(agreement)
    version.agreement = agreement
    return rendered(version, user.username)


#: How far back, in versions, the worker looks for documents not rendered yet (by primary key,
#: so that the look is bounded whatever the table's size; an older one is rendered when read).
RENDER_WINDOW = 5000
RENDER_BATCH = 500


def render_documents() -> int:
    """The worker's job: render the documents of the latest versions that have none yet, so
    that most are ready before anybody reads them; returns how many this call rendered. A
    crash loses nothing: a version left unrendered is rendered by the next run or its first
    reader, and two workers at once render each document once (rendered)."""
    last = AgreementVersion.objects.order_by("-pk").values_list("pk", flat=True).first()
    if last is None:
        return 0
    pending = (
        AgreementVersion.objects.filter(pk__gt=last - RENDER_WINDOW, content_sha256="")
        .order_by("pk")
        .values_list("pk", flat=True)[:RENDER_BATCH]
    )
    done = 0
    for pk in list(pending):
        version = AgreementVersion.objects.select_related("agreement").get(pk=pk)
        rendered(version, WORKER)
        done += 1
    return done


# --- The applicant's answer --------------------------------------------------------------------


def _checked_acceptance(signatory: str, title: str, confirmations: object) -> tuple[str, str]:
    """The typed name and title, stripped; every missing one and every missing confirmation is
    named in both languages (nothing is written)."""
    found: list[dict[str, str]] = []
    name, role = (str(signatory or "").strip(), str(title or "").strip())
    for field, value, en, fr in (
        ("signatory", name, "the signatory's name", "le nom du signataire"),
        ("title", role, "the signatory's title", "le titre du signataire"),
    ):
        if not value:
            found.append(problem(field, f"is required: type {en}", f"est obligatoire : tapez {fr}"))
        elif len(value) > MAX_TEXT or not value.isprintable():
            found.append(
                problem(
                    field,
                    f"must be at most {MAX_TEXT} printable characters",
                    f"doit compter au plus {MAX_TEXT} caractères imprimables",
                )
            )
    listed = confirmations if isinstance(confirmations, list | tuple | set) else []
    given = {code for code in listed if isinstance(code, str)}
    words = {
        "agreement": ("the agreement", "l'entente"),
        "cost_schedule": ("the schedule of approved costs", "le tableau des coûts approuvés"),
        "general_terms": ("the general terms", "les conditions générales"),
    }
    for code in CONFIRMATIONS:
        if code not in given:
            en, fr = words[code]
            found.append(
                problem(
                    f"confirmations.{code}",
                    f"must be confirmed: you have read and accept {en}",
                    f"doit être confirmé : vous avez lu et acceptez {fr}",
                )
            )
    if found:
        raise bad_input(found)
    return name, role


@audited_refusals_of("application")
def accept_agreement(
    user: User,
    agreement: Agreement,
    signatory: str,
    title: str,
    confirmations: object,
    sha256: str | None = None,
) -> Agreement:
    """The employer, acting for the applicant, accepts the version offered: their typed name and
    title and the three confirmations, recorded with who, when and the hash of the document.
    `sha256`, the hash of the document they read (the page and the API show it), is checked
    under the lock: if the version offered is not that text any more (a new version was made
    meanwhile), nothing is accepted. Refused after the accept-by time, even if the expiry job
    has not run yet."""
    access.check_applicant(user, agreement.application)
    name, role = _checked_acceptance(signatory, title, confirmations)
    with transaction.atomic():
        locked = _lock(agreement)
        version = current_version(locked)
        version.agreement = locked
        version = rendered(version, user.username)  # accepted unread (the API): rendered now
        if sha256 is not None and sha256 != version.content_sha256:
            raise _changed(version)
        action = "accept" if locked.state == AgreementState.ISSUED else "accept_version"
        if action == "accept_version" and (not version.needs_acceptance or version.accepted_at):
            raise _illegal("accept", locked.state)
        target = _target(action, locked.state)
        now = timezone.now()
        if now > version.accept_by:
            raise _expired(version)
        if _application_state(locked) != State.APPROVED:
            raise _illegal("accept", AgreementState.WITHDRAWN)
        version.signatory_name, version.signatory_title = name, role
        version.confirmed_agreement = version.confirmed_cost_schedule = True
        version.confirmed_general_terms = True
        version.accepted_by, version.accepted_at = user, now
        version.accepted_sha256 = version.content_sha256
        version.save()
        _set_state(locked, target, now)
        summary = {**_summary(locked, version), "accepted_sha256": version.accepted_sha256}
        record(user.username, f"agreement.{action}", "agreement", locked.pk, summary)
        _tell("agreement_accepted", locked, version, f"version-{version.number}")
    return _refreshed(agreement, locked)


# Why the employer declines, or an officer withdraws, an offer: the message of its end holds it.
OFFER_END_REASON_MAX = 2000
_OFFER_END_REASON_TOO_LONG = (
    f"must be at most {OFFER_END_REASON_MAX} characters",
    f"doit compter au plus {OFFER_END_REASON_MAX} caractères",
)
DECLINE_REASON = ReasonRule(
    OFFER_END_REASON_MAX,
    missing=("is required to decline the offer", "est obligatoire pour refuser l'offre"),
    too_long=_OFFER_END_REASON_TOO_LONG,
)
WITHDRAWAL_REASON = ReasonRule(
    OFFER_END_REASON_MAX,
    missing=("is required to withdraw the offer", "est obligatoire pour retirer l'offre"),
    too_long=_OFFER_END_REASON_TOO_LONG,
)


@audited_refusals_of("application")
def decline_agreement(user: User, agreement: Agreement, reason: str) -> Agreement:
    """The applicant declines the offer; its commitment is released."""
    access.check_applicant(user, agreement.application)
    why = checked_reason(reason, DECLINE_REASON)
    return _end_offer(user, agreement, "decline", why, "agreement_declined")


@audited_refusals_of("application")
def withdraw_offer(user: User, agreement: Agreement, reason: str) -> Agreement:
    """An officer who covers the file withdraws the offer before it is accepted; its commitment
    is released."""
    access.check_officer(user, agreement.application)
    why = checked_reason(reason, WITHDRAWAL_REASON)
    return _end_offer(user, agreement, "withdraw", why, "offer_withdrawn")


def _end_offer(user: User, agreement: Agreement, action: str, reason: str, kind: str) -> Agreement:
    with transaction.atomic():
        locked = _lock(agreement)
        target = _target(action, locked.state)
        now = timezone.now()
        locked.ended_by, locked.ended_at, locked.end_reason = user, now, reason
        _set_state(locked, target, now)
        version = current_version(locked)
        released = _give_back(locked, user.username, user, reason)
        summary = {**_summary(locked, version), "reason": reason, "released_cents": released}
        record(user.username, f"agreement.{action}", "agreement", locked.pk, summary)
        _tell(kind, locked, version, f"version-{version.number}", reason=reason)
    return _refreshed(agreement, locked)


# --- The periodic jobs (schedule.PERIODIC_JOBS) --------------------------------------------------


def expire_offers(now: dt.datetime | None = None) -> int:
    """Expire every offer past its accept-by time and release its commitment; returns how many
    this call expired. Idempotent, and safe in two workers at once: each offer is expired in a
    transaction of its own, under its row lock, only if it is still issued and past its time."""
    moment = now or timezone.now()
    expired = 0
    for agreement_id in _offers_past(moment):
        with transaction.atomic():
            locked = _lock_id(agreement_id, skip_locked=True)
            if locked is None or locked.state != AgreementState.ISSUED:
                continue
            version = current_version(locked)
            if version.accept_by >= moment:
                continue
            locked.ended_at = moment
            _set_state(locked, agreement_target_of("expire", locked.state), moment)
            released = _give_back(locked, EXPIRY_JOB, locked.issued_by, "offer expired")
            summary = {**_summary(locked, version), "released_cents": released}
            record(EXPIRY_JOB, "agreement.expire", "agreement", locked.pk, summary)
            _tell("offer_expired", locked, version, f"version-{version.number}")
            expired += 1
    return expired


def remind_expiring_offers(now: dt.datetime | None = None) -> int:
    """Tell the applicant, once per offered version, that its offer expires within a day;
    returns how many messages this call queued (the outbox keeps each one to one)."""
    moment = now or timezone.now()
    queued = 0
    soon = AgreementVersion.objects.filter(
        agreement__state=AgreementState.ISSUED,
        accept_by__gt=moment,
        accept_by__lte=moment + REMINDER_BEFORE,
    ).select_related("agreement")
    for version in soon:
        if version.number != version.agreement.version:
            continue
        with transaction.atomic():
            if _tell("offer_expiring", version.agreement, version, f"version-{version.number}"):
                queued += 1
    return queued


def _offers_past(moment: dt.datetime) -> list[int]:
    return list(
        AgreementVersion.objects.filter(
            agreement__state=AgreementState.ISSUED, accept_by__lt=moment
        )
        .values_list("agreement_id", flat=True)
        .distinct()
    )


# --- Locks, transitions, the commitment --------------------------------------------------------


def _lock(agreement: Agreement) -> Agreement:
    locked = _lock_id(agreement.pk)
    if locked is None:
        raise not_found()
    return locked


def _lock_id(agreement_id: int, *, skip_locked: bool = False) -> Agreement | None:
    rows = Agreement.objects.select_for_update(skip_locked=skip_locked).filter(pk=agreement_id)
    return rows.select_related("application").first()


def _refreshed(agreement: Agreement, locked: Agreement) -> Agreement:
    for field in ("state", "version", "ended_by_id", "ended_at", "end_reason", "updated_at"):
        setattr(agreement, field, getattr(locked, field))
    return agreement


def _target(action: str, state: str) -> str:
    try:
        return agreement_target_of(action, state)
    except IllegalAgreementTransition:
        raise _illegal(action, state) from None


def _illegal(action: str, state: str) -> ServiceError:
    label = AgreementState(state).label
    return refused(
        409,
        "AGREEMENT_NOT_OPEN",
        lambda: {"state": label},
        extra={"state": state, "action": action},
    )


def _changed(version: AgreementVersion) -> ServiceError:
    number, sha256 = version.number, version.content_sha256
    return refused(
        409,
        "AGREEMENT_CHANGED",
        lambda: {"version": number},
        extra={"version": number, "sha256": sha256},
    )


def _expired(version: AgreementVersion) -> ServiceError:
    at = version.accept_by
    return refused(
        409,
        "OFFER_EXPIRED",
        lambda: {"date": timezone.localtime(at).strftime("%Y-%m-%d %H:%M %Z")},
        extra={"state": AgreementState.EXPIRED, "accept_by": at.isoformat()},
    )


def _set_state(agreement: Agreement, state: str, at: dt.datetime) -> None:
    agreement.state = state
    Agreement.objects.filter(pk=agreement.pk).update(
        state=state,
        ended_by=agreement.ended_by,
        ended_at=agreement.ended_at,
        end_reason=agreement.end_reason,
        updated_at=at,
    )


def _application_state(agreement: Agreement) -> str:
    return str(
        Application.objects.filter(pk=agreement.application_id).values_list("state", flat=True)[0]
    )


def _give_back(agreement: Agreement, actor: str, user: User, note: str) -> int:
    """Move the application from approved to withdrawn and release each funder's commitment;
    nothing if it was withdrawn before (its commitment was released then). Returns the cents
    released."""
    application = Application.objects.select_for_update().get(pk=agreement.application_id)
    if application.state != State.APPROVED:
        return 0
    application.state = target_of("withdraw", application.state)
    Application.objects.filter(pk=application.pk).update(
        state=application.state, updated_at=timezone.now()
    )
    StateChange.objects.create(
        application=application,
        from_state=State.APPROVED,
        to_state=application.state,
        actor=user,
        note=note,
    )
    stream = Stream.objects.get(pk=application.stream_id).code
    released = 0
    for funder, cents in (
        (Funder.FEDERAL, application.federal_cents),
        (Funder.PROVINCIAL, application.provincial_cents),
    ):
        account = BudgetAccount.objects.filter(
            funder=funder,
            jurisdiction=application.jurisdiction,
            fiscal_year=application.fiscal_year,
            stream=stream,
        ).first()
        if cents > 0 and account is not None:
            operations.release(account, cents, actor=actor, application=application)
            released += cents
    record(
        actor,
        "application.withdraw",
        "application",
        application.pk,
        {"state": application.state, "reason": note, **anchored(note)},
    )
    return released


# --- Messages ----------------------------------------------------------------------------------


_RECIPIENT_SQL = (
    f'SELECT "email", "preferred_language" FROM "{User._meta.db_table}" WHERE "id" = %s'
)


def _applicant(agreement: Agreement) -> Recipient:
    with connection.cursor() as cursor:  # a plain statement
        cursor.execute(_RECIPIENT_SQL, [agreement.application.created_by_id])
        return Recipient(*cursor.fetchone())


class Recipient(NamedTuple):
    """The address and language of the person who made an application."""

    email: str
    preferred_language: str


def _tell(
    kind: str,
    agreement: Agreement,
    version: AgreementVersion,
    milestone: str,
    to: Recipient | None = None,
    **also: str,
) -> bool:
    """Queue `kind` to the person who made the application (`to`, or read here), in their
    language; nothing when they have no address. True when a message was queued (not a
    repeat)."""
    recipient = to or _applicant(agreement)
    if "@" not in (recipient.email or ""):
        return False
    language = language_of(recipient)
    link = page_link("web:employer-agreement", language, agreement.application_id)
    government = version.federal_cents + version.provincial_cents
    context: dict[str, str | int] = {
        "reference": agreement.application_id,
        "version": version.number,
        "link": link,
        "government": format_money(government, language),
        "accept_by": timezone.localtime(version.accept_by).strftime("%Y-%m-%d %H:%M %Z"),
        # The terms' hash (the issue's audit entry has it too); the document's once rendered.
        "terms_sha256": version.terms_sha256,
        **({"sha256": version.content_sha256} if version.content_sha256 else {}),
        **also,
    }
    sent = enqueue(
        kind,
        subject=agreement,
        milestone=milestone,
        to=recipient.email,
        language=language,
        context=context,
    )
    return sent is not None
