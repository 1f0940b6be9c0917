"""Verifying that an organization is the business its number names, and disputing it.

A business number with a valid check digit registers under any name, first come first served:
so a new organization is unverified. It saves drafts, but submits nothing (grants refuses the
submission, naming why), and no consortium partner's request reaches it, until an officer of
its jurisdiction verifies it: against a document its administrator uploaded (a business
registration), or by a registry check, the officer's note then being their attestation of what
they checked. The officer may refuse it instead, with a reason; a refused organization uploads
another document and waits again. Each decision is audited and its outcome e-mailed to the
organization's administrators through the outbox.

Whoever tries to register a number already registered is e-mailed a link (to the address they
gave) to dispute that registration: filed with their name, telephone, statement and a document,
it makes the organization disputed (no new submission) and puts it in the officers' queue. The
officer dismisses it (the organization goes back to what it was) or upholds it: the
organization's people are removed, the disputant is invited as its administrator, and it is
unverified again until its proof is checked.

An officer affiliated with the organization (a conflict of interest) decides nothing about it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone, translation

from jobgrant.service import links
from jobgrant.service.accounts.models import (
    DISPUTE_LINK_DAYS,
    INVITATION_DAYS,
    DisputeState,
    Membership,
    OrganizationDispute,
    OrganizationInvitation,
    OrganizationProof,
    OrganizationRole,
    Role,
    User,
    VerificationDecision,
    VerificationMethod,
    VerificationOutcome,
)
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError, bad_input, problem
from jobgrant.service.language import language_of, local_day, long_date
from jobgrant.service.notifications.outbox import enqueue, quoted
from jobgrant.service.people.access import (
    officer_covers_organization,
    officer_scope,
)
from jobgrant.service.refusals import forbidden_for, refused
from jobgrant.service.registry.identifiers import looks_like_sin
from jobgrant.service.registry.models import Employer, Verification
from jobgrant.service.uploads import CheckedFile

Problems = list[dict[str, str]]
NOTE_MAX = 2000
NAME_MAX = 150
PHONE_MAX = 30
#: Proofs an organization may have waiting at once (each up to the receipts' size limit).
PROOFS_WAITING_MAX = 10


def affiliated(user: User, employer: Employer) -> bool:
    return Membership.objects.filter(user=user, employer=employer).exists()


def verification_queue(user: User) -> QuerySet[Employer]:
    """What `user` (an officer) has to decide: the organizations disputed, and those unverified
    with a document uploaded since the last decision; oldest document or dispute first."""
    waiting = OrganizationProof.objects.filter(
        employer=OuterRef("pk"), reviewed=False, dispute__isnull=True
    )
    return (
        Employer.objects.filter(officer_scope(user))
        .filter(
            Q(verification=Verification.DISPUTED)
            | Q(Exists(waiting), verification=Verification.UNVERIFIED)
        )
        .order_by("pk")
    )


def _check_may_decide(user: User, employer: Employer) -> None:
    if user.role != Role.OFFICER:
        raise forbidden_for("ROLE_NOT_ALLOWED")
    if not officer_covers_organization(user, employer):
        raise forbidden_for("NOT_YOUR_ORGANIZATION_TO_VERIFY")
    if affiliated(user, employer):
        raise forbidden_for("CONFLICT_OF_INTEREST_ORGANIZATION")


# --- What the organization's people do ---------------------------------------------------------


@audited_refusals_of("employer", action="organization.upload_proof")
def upload_proof(user: User, employer: Employer, document: CheckedFile) -> OrganizationProof:
    """An administrator's document showing the organization is the business its number names
    (a business registration). A refused organization waits again for a decision."""
    if not Membership.objects.filter(
        user=user, employer=employer, role=OrganizationRole.ADMIN, user__is_active=True
    ).exists():
        raise ServiceError(
            403,
            "NOT_AN_ADMINISTRATOR",
            "Only an administrator of the organization can do this.",
            "Seul un administrateur de l'organisation peut faire cela.",
        )
    with transaction.atomic():
        locked = Employer.objects.select_for_update().get(pk=employer.pk)
        if locked.verification == Verification.VERIFIED:
            raise refused(409, "ORGANIZATION_ALREADY_VERIFIED")
        waiting = locked.proofs.filter(reviewed=False, dispute__isnull=True).count()
        if waiting >= PROOFS_WAITING_MAX:
            raise bad_input(
                [
                    problem(
                        "file",
                        f"cannot be added: {PROOFS_WAITING_MAX} documents already wait for "
                        "an officer",
                        f"ne peut pas être ajouté : {PROOFS_WAITING_MAX} documents attendent "
                        "déjà un agent",
                    )
                ]
            )
        proof = _store(locked, document, uploaded_by=user)
        before = locked.verification
        if before == Verification.REFUSED:
            locked.verification = Verification.UNVERIFIED
            locked.save(update_fields=["verification"])
        summary = {
            "proof": proof.pk,
            "size": proof.size,
            "before": before,
            "after": locked.verification,
        }
        record(user.username, "organization.upload_proof", "employer", locked.pk, summary)
    employer.verification = locked.verification
    return proof


def _store(
    employer: Employer,
    document: CheckedFile,
    *,
    uploaded_by: User | None,
    dispute: OrganizationDispute | None = None,
) -> OrganizationProof:
    from django.core.files.base import ContentFile

    proof = OrganizationProof(
        employer=employer,
        dispute=dispute,
        original_name=document.name,
        content_type=document.content_type,
        size=document.size,
        sha256=document.sha256,
        uploaded_by=uploaded_by,
    )
    proof.file.save(document.sha256, ContentFile(document.content), save=False)
    proof.save()
    return proof


def proofs_of(employer: Employer) -> list[OrganizationProof]:
    """The documents the organization's people uploaded (not those of disputes), newest first."""
    return list(
        employer.proofs.filter(dispute__isnull=True).select_related("uploaded_by").order_by("-pk")
    )


def decisions_of(employer: Employer) -> list[VerificationDecision]:
    return list(employer.verification_decisions.select_related("decided_by").order_by("-pk"))


def last_verification(employer: Employer) -> VerificationDecision | None:
    """The decision that verified the organization (by whom, when, against what), if it is."""
    if employer.verification != Verification.VERIFIED:
        return None
    return (
        employer.verification_decisions.filter(
            outcome__in=[VerificationOutcome.VERIFIED, VerificationOutcome.DISPUTE_DISMISSED]
        )
        .select_related("decided_by", "proof")
        .order_by("-pk")
        .first()
    )


# --- What the officer decides -------------------------------------------------------------------


def _note(raw: object, field: str, required_en: str, required_fr: str) -> str:
    text = raw.strip() if isinstance(raw, str) else ""
    problems: Problems = []
    if not text:
        problems.append(problem(field, required_en, required_fr))
    elif len(text) > NOTE_MAX:
        problems.append(
            problem(
                field,
                f"must be {NOTE_MAX} characters at most",
                f"doit compter {NOTE_MAX} caractères au plus",
            )
        )
    elif looks_like_sin(text):
        problems.append(
            problem(
                field,
                "must not contain a social insurance number",
                "ne doit pas contenir de numéro d'assurance sociale",
            )
        )
    if problems:
        raise bad_input(problems)
    return text


@audited_refusals_of("employer", action="organization.verify")
def verify_organization(user: User, employer: Employer, data: dict[str, Any]) -> Employer:
    """Verify against a document the organization uploaded (`method` "document", `proof` its
    id) or by a registry check (`method` "registry"); `note` says what was checked (for a
    registry check, the officer's attestation: which registry, what it showed)."""
    _check_may_decide(user, employer)
    method, proof_id = data.get("method"), data.get("proof")
    problems: Problems = []
    if method not in VerificationMethod.values:
        problems.append(
            problem(
                "method",
                "must be document or registry",
                "doit être document ou registry",
            )
        )
    proof = None
    if method == VerificationMethod.DOCUMENT:
        proof = (
            employer.proofs.filter(pk=proof_id, dispute__isnull=True).first()
            if isinstance(proof_id, int) and not isinstance(proof_id, bool)
            else None
        )
        if proof is None:
            problems.append(
                problem(
                    "proof",
                    "must be one of the documents the organization uploaded",
                    "doit être l'un des documents téléversés par l'organisation",
                )
            )
    try:
        note = _note(
            data.get("note"),
            "note",
            "is required: say what you checked",
            "est obligatoire : dites ce que vous avez vérifié",
        )
    except ServiceError as error:
        problems += error.problems
    if problems:
        raise bad_input(problems)
    with transaction.atomic():
        locked = _locked(employer, "verify", (Verification.UNVERIFIED, Verification.REFUSED))
        before = locked.verification
        locked.verification = Verification.VERIFIED
        locked.save(update_fields=["verification"])
        decision = VerificationDecision.objects.create(
            employer=locked,
            outcome=VerificationOutcome.VERIFIED,
            method=str(method),
            proof=proof,
            note=note,
            decided_by=user,
        )
        locked.proofs.filter(reviewed=False).update(reviewed=True)
        _tell_administrators(locked, "organization_verified", decision)
        summary = {
            "before": before,
            "verified_against": method,
            "proof": proof.pk if proof else None,
            "decision": decision.pk,
        }
        record(user.username, "organization.verify", "employer", locked.pk, summary)
    employer.verification = locked.verification
    return employer


@audited_refusals_of("employer", action="organization.refuse")
def refuse_organization(user: User, employer: Employer, reason: object) -> Employer:
    """Refuse the registration, with a reason sent to its administrators (they may upload
    another document)."""
    _check_may_decide(user, employer)
    why = _note(reason, "reason", "is required to refuse", "est obligatoire pour refuser")
    with transaction.atomic():
        locked = _locked(employer, "refuse", (Verification.UNVERIFIED,))
        locked.verification = Verification.REFUSED
        locked.save(update_fields=["verification"])
        decision = VerificationDecision.objects.create(
            employer=locked, outcome=VerificationOutcome.REFUSED, note=why, decided_by=user
        )
        locked.proofs.filter(reviewed=False).update(reviewed=True)
        _tell_administrators(locked, "organization_refused", decision)
        summary = {"before": Verification.UNVERIFIED, "reason": why, "decision": decision.pk}
        record(user.username, "organization.refuse", "employer", locked.pk, summary)
    employer.verification = locked.verification
    return employer


def _locked(employer: Employer, action: str, allowed: tuple[str, ...]) -> Employer:
    locked = Employer.objects.select_for_update().get(pk=employer.pk)
    if locked.verification not in allowed:
        raise refused(
            409,
            "VERIFICATION_NOT_POSSIBLE",
            lambda: {"state": Verification(locked.verification).label},
            extra={"state": locked.verification, "action": action},
        )
    return locked


def _administrators(employer: Employer) -> QuerySet[User]:
    return User.objects.filter(
        membership__employer=employer,
        membership__role=OrganizationRole.ADMIN,
        role=Role.EMPLOYER,
        is_active=True,
    ).exclude(email="")


def _tell_administrators(employer: Employer, kind: str, decision: VerificationDecision) -> None:
    for admin in _administrators(employer):
        language = language_of(admin)
        enqueue(
            kind,
            subject=decision,
            to=admin.email,
            language=language,
            context={
                "name": admin.first_name,
                "organization": quoted(employer.name, language),
                "reason": decision.note if decision.outcome != "verified" else "",
                "link": links.page_link(
                    "web:organization-members", language, employer_id=employer.pk
                ),
            },
        )


# --- Disputes -----------------------------------------------------------------------------------


def offer_dispute(employer: Employer, email: str, language: str) -> str:
    """Inside the transaction that tells someone the number is registered already: the link
    (in their language) with which they may dispute the registration."""
    token = links.new_token()
    OrganizationDispute.objects.create(
        employer=employer,
        email=email,
        language=language if language in ("en", "fr") else "en",
        digest=links.digest(token),
        expires_at=timezone.now() + dt.timedelta(days=DISPUTE_LINK_DAYS),
    )
    return links.page_link("web:dispute", language, token=token)


def dispute_offer(token: str) -> OrganizationDispute | None:
    """The dispute a link offers, if it can still be filed (not used, not expired)."""
    if not isinstance(token, str) or len(token) > 100:
        return None
    found = (
        links.by_token(OrganizationDispute.objects.select_related("employer"), token)
        .filter(state=DisputeState.OFFERED)
        .first()
    )
    if found is None or found.expires_at <= timezone.now():
        return None
    return found


def _dispute_fields(data: dict[str, Any]) -> tuple[dict[str, str], Problems]:
    problems: Problems = []
    fields = {}
    for key, limit in (("name", NAME_MAX), ("phone", PHONE_MAX), ("statement", NOTE_MAX)):
        value = data.get(key)
        text = value.strip() if isinstance(value, str) else ""
        if not text or len(text) > limit or "\x00" in text:
            problems.append(
                problem(
                    key,
                    f"is required ({limit} characters at most)",
                    f"est obligatoire ({limit} caractères au plus)",
                )
            )
        elif looks_like_sin(text):
            problems.append(
                problem(
                    key,
                    "must not contain a social insurance number",
                    "ne doit pas contenir de numéro d'assurance sociale",
                )
            )
        fields[key] = text
    return fields, problems


def file_dispute(
    token: str, data: dict[str, Any], document: CheckedFile | None
) -> OrganizationDispute:
    """File the dispute a link offers: the organization becomes disputed (no new submission)
    and waits in its officers' queue. Every problem is named at once; nothing is written."""
    offer = dispute_offer(token)
    if offer is None:
        raise ServiceError(
            404,
            "LINK_NOT_WORKING",
            "This link does not work: it was already used, it expired, or it is incomplete.",
            "Ce lien ne fonctionne pas : il a déjà servi, il a expiré ou il est incomplet.",
        )
    fields, problems = _dispute_fields(data)
    if document is None:
        problems.append(
            problem(
                "file",
                "is required: a document showing the business is yours",
                "est obligatoire : un document montrant que l'entreprise est la vôtre",
            )
        )
    if problems:
        raise bad_input(problems)
    assert document is not None
    with transaction.atomic():
        locked = OrganizationDispute.objects.select_for_update().get(pk=offer.pk)
        if locked.state != DisputeState.OFFERED:
            raise ServiceError(
                404,
                "LINK_NOT_WORKING",
                "This link does not work: it was already used.",
                "Ce lien ne fonctionne pas : il a déjà servi.",
            )
        employer = Employer.objects.select_for_update().get(pk=locked.employer_id)
        before = employer.verification
        if before != Verification.DISPUTED:
            locked.state_before = before
            employer.verification = Verification.DISPUTED
            employer.save(update_fields=["verification"])
        else:  # another dispute is open: the state to go back to is the one it kept
            first = employer.disputes.filter(state=DisputeState.OPEN).order_by("pk").first()
            locked.state_before = first.state_before if first else Verification.UNVERIFIED
        locked.state = DisputeState.OPEN
        locked.filed_at = timezone.now()
        locked.name, locked.phone, locked.statement = (
            fields["name"],
            fields["phone"],
            fields["statement"],
        )
        locked.save()
        proof = _store(employer, document, uploaded_by=None, dispute=locked)
        summary = {
            "dispute": locked.pk,
            "document": proof.pk,
            "before": before,
            "after": "disputed",
        }
        record("anonymous", "organization.dispute", "employer", employer.pk, summary)
    return locked


def open_disputes(employer: Employer) -> list[OrganizationDispute]:
    return list(
        employer.disputes.filter(state=DisputeState.OPEN)
        .prefetch_related("documents")
        .order_by("pk")
    )


@audited_refusals_of("employer", action="organization.resolve_dispute")
def resolve_dispute(
    user: User, employer: Employer, dispute_id: object, outcome: object, reason: object
) -> OrganizationDispute:
    """Dismiss the dispute (the organization goes back to its state before), or uphold it: the
    organization's people are removed and their invitations cancelled, the disputant is invited
    as its administrator, and it is unverified until its proof is checked. The disputant is
    told either way."""
    _check_may_decide(user, employer)
    problems: Problems = []
    if outcome not in (VerificationOutcome.DISPUTE_UPHELD, VerificationOutcome.DISPUTE_DISMISSED):
        problems.append(
            problem("outcome", "must be upheld or dismissed", "doit être upheld ou dismissed")
        )
    try:
        why = _note(reason, "reason", "is required", "est obligatoire")
    except ServiceError as error:
        problems += error.problems
        why = ""
    if problems:
        raise bad_input(problems)
    with transaction.atomic():
        locked_employer = Employer.objects.select_for_update().get(pk=employer.pk)
        dispute = (
            OrganizationDispute.objects.select_for_update()
            .filter(pk=dispute_id if isinstance(dispute_id, int) else 0, employer=locked_employer)
            .first()
        )
        if dispute is None:
            raise ServiceError(404, "NOT_FOUND", "No such dispute.", "Aucune contestation.")
        if dispute.state != DisputeState.OPEN:
            raise refused(409, "DISPUTE_NOT_OPEN")
        dispute.state = str(outcome)
        dispute.resolved_at = timezone.now()
        dispute.save(update_fields=["state", "resolved_at"])
        before = locked_employer.verification
        removed = 0
        after: str
        if outcome == VerificationOutcome.DISPUTE_UPHELD:
            removed = _hand_over(user, locked_employer, dispute)
            after = Verification.UNVERIFIED
        else:
            after = dispute.state_before or Verification.UNVERIFIED
        if locked_employer.disputes.filter(state=DisputeState.OPEN).exists():
            after = Verification.DISPUTED
        locked_employer.verification = after
        locked_employer.save(update_fields=["verification"])
        decision = VerificationDecision.objects.create(
            employer=locked_employer,
            outcome=str(outcome),
            dispute=dispute,
            note=why,
            decided_by=user,
        )
        dispute.documents.update(reviewed=True)
        _tell_disputant(dispute, locked_employer, decision)
        summary = {
            "dispute": dispute.pk,
            "outcome": outcome,
            "reason": why,
            "before": before,
            "after": after,
            "members_removed": removed,
        }
        record(
            user.username, "organization.resolve_dispute", "employer", locked_employer.pk, summary
        )
    employer.verification = after
    return dispute


def _hand_over(officer: User, employer: Employer, dispute: OrganizationDispute) -> int:
    """The organization's people removed (staff affiliations stay), their invitations
    cancelled, and the disputant invited as its administrator; the number removed."""
    removed, _ = Membership.objects.filter(employer=employer, user__role=Role.EMPLOYER).delete()
    OrganizationInvitation.objects.filter(
        employer=employer, accepted_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())
    token = links.new_token()
    invitation = OrganizationInvitation.objects.create(
        employer=employer,
        email=dispute.email,
        role=OrganizationRole.ADMIN,
        language=dispute.language,
        digest=links.digest(token),
        invited_by=officer,
        expires_at=timezone.now() + dt.timedelta(days=INVITATION_DAYS),
    )
    language = dispute.language
    with translation.override(language):
        role = str(OrganizationRole.ADMIN.label)
    enqueue(
        "organization_invitation",
        subject=invitation,
        to=dispute.email,
        language=language,
        context={
            "organization": quoted(employer.name, language),
            "inviter": quoted(officer.get_full_name() or officer.username, language),
            "role": role,
            "link": links.page_link("web:invitation", language, token=token),
            "expires_on": long_date(local_day(invitation.expires_at), language),
        },
    )
    return int(removed)


def _tell_disputant(
    dispute: OrganizationDispute, employer: Employer, decision: VerificationDecision
) -> None:
    language = dispute.language
    enqueue(
        "organization_dispute_resolved",
        subject=dispute,
        milestone=dispute.state,
        to=dispute.email,
        language=language,
        context={
            "name": dispute.name,
            "organization": quoted(employer.name, language),
            "upheld": 1 if dispute.state == DisputeState.UPHELD else 0,
            "reason": decision.note,
        },
    )
