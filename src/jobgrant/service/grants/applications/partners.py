"""Consortium partners' consent: asked when an application names them, given or refused by an
administrator of the partner; an application is only submitted once every partner accepted.

Naming an organization one administers is consent at once. Every other partner's
administrators are told through the outbox, and the applicant learns the answer the same way;
an organization not verified by an officer is told nothing and sees no request until it is.
A partner sees only its own share of the application (grants.partner_view).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from jobgrant.service.accounts.models import Membership, OrganizationRole, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application, ApplicationEmployer, State
from jobgrant.service.grants.models.partners import ConsentState, PartnerConsent
from jobgrant.service.language import language_of
from jobgrant.service.links import page_link
from jobgrant.service.notifications.outbox import enqueue, quoted
from jobgrant.service.registry.models import Verification


def ask_partners(user: User, application: Application) -> None:
    """Inside the transaction that creates `application`: one consent per partner, given at once
    for the partners `user` administers, asked of the others' administrators."""
    partners = application.employers.filter(position__gt=0).select_related("employer")
    for link in partners:
        if _administers(user, link.employer_id):
            PartnerConsent.objects.create(
                link=link, state=ConsentState.ACCEPTED, decided_by=user, decided_at=timezone.now()
            )
            continue
        consent = PartnerConsent.objects.create(link=link)
        # An organization no officer verified hears of no request: its administrators may not be
        # the business the number names. The request waits; it is theirs to see once verified.
        routed = link.employer.verification == Verification.VERIFIED
        if routed:
            _tell_partner(consent, link, application)
        summary = {"application": application.pk, "partner": link.employer_id, "routed": routed}
        record(user.username, "partner.ask", "partnerconsent", consent.pk, summary)


def _administers(user: User, employer_id: int) -> bool:
    return Membership.objects.filter(
        user=user, employer_id=employer_id, role=OrganizationRole.ADMIN
    ).exists()


def _tell_partner(
    consent: PartnerConsent, link: ApplicationEmployer, application: Application
) -> None:
    lead = application.employers.order_by("position").select_related("employer").first()
    admins = User.objects.filter(
        membership__employer_id=link.employer_id,
        membership__role=OrganizationRole.ADMIN,
        is_active=True,
    ).exclude(email="")
    for admin in admins:
        language = language_of(admin)
        address = page_link("web:partner-request", language, consent_id=consent.pk)
        enqueue(
            "partner_request",
            subject=consent,
            to=admin.email,
            language=language,
            context={
                "lead": quoted(lead.employer.name, language) if lead else "",
                "partner": quoted(link.employer.name, language),
                "application": application.pk,
                "link": address,
            },
        )


def unconsented_partners(application: Application) -> list[ApplicationEmployer]:
    """The partners that have not accepted being named (pending or declined)."""
    return list(
        application.employers.filter(position__gt=0)
        .exclude(consent__state=ConsentState.ACCEPTED)
        .select_related("employer")
    )


def check_partners_consented(application: Application) -> None:
    """Refuse (409) to submit while a partner has not accepted."""
    waiting = unconsented_partners(application)
    if waiting:
        numbers = ", ".join(link.employer.business_number for link in waiting)
        raise ServiceError(
            409,
            "PARTNER_CONSENT_PENDING",
            f"Every consortium partner must accept being named before the application is "
            f"submitted; not yet: {numbers}.",
            f"Chaque partenaire du consortium doit accepter d'être nommé avant l'envoi de la "
            f"demande; pas encore : {numbers}.",
        )


# --- The partner's side ---------------------------------------------------------------------


@audited_refusals_of("partnerconsent", action="partner.accept")
def accept_partner_request(user: User, consent: PartnerConsent) -> PartnerConsent:
    return _decide(user, consent, ConsentState.ACCEPTED)


@audited_refusals_of("partnerconsent", action="partner.decline")
def decline_partner_request(user: User, consent: PartnerConsent) -> PartnerConsent:
    return _decide(user, consent, ConsentState.DECLINED)


def _decide(user: User, consent: PartnerConsent, state: str) -> PartnerConsent:
    action = f"partner.{'accept' if state == ConsentState.ACCEPTED else 'decline'}"
    with transaction.atomic():
        locked = _locked(user, consent.pk)
        locked.state, locked.decided_by, locked.decided_at = state, user, timezone.now()
        locked.save(update_fields=["state", "decided_by", "decided_at"])
        application = locked.link.application
        summary = {"application": application.pk, "partner": locked.link.employer_id}
        record(user.username, action, "partnerconsent", locked.pk, summary)
        _tell_applicant(locked, application)
    return locked


def _locked(user: User, consent_id: int) -> PartnerConsent:
    locked = (
        PartnerConsent.objects.select_for_update()
        .select_related("link__application", "link__employer")
        .filter(pk=consent_id, pk__in=access.visible_partner_requests(user).values("pk"))
        .first()
    )
    if locked is None:
        raise ServiceError(404, "NOT_FOUND", "No such request.", "Aucune demande de ce genre.")
    if locked.state != ConsentState.PENDING:
        raise ServiceError(
            409,
            "PARTNER_ALREADY_ANSWERED",
            "This request was already answered.",
            "On a déjà répondu à cette demande.",
        )
    if locked.link.application.state != State.DRAFT:
        raise ServiceError(
            409,
            "APPLICATION_NOT_DRAFT",
            "The application is no longer a draft: it can no longer be answered.",
            "La demande n'est plus une ébauche : on ne peut plus y répondre.",
        )
    return locked


def _tell_applicant(consent: PartnerConsent, application: Application) -> None:
    author = application.created_by
    if not author.email:
        return
    language = language_of(author)
    link = page_link("web:employer-application", language, application_id=application.pk)
    enqueue(
        "partner_decision",
        subject=consent,
        milestone=consent.state,
        to=author.email,
        language=language,
        context={
            "partner": quoted(consent.link.employer.name, language),
            "application": application.pk,
            "accepted": 1 if consent.state == ConsentState.ACCEPTED else 0,
            "link": link,
        },
    )
