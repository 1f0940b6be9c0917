"""Registering an organization, confirming the email, joining by invitation, and an
organization's people (its administrators invite, set roles and remove).

Thin views: the forms read what was typed, grants.organization_actions checks and writes it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from jobgrant.service.accounts.models import OrganizationRole, User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.core import access
from jobgrant.service.language import current_language, localized
from jobgrant.service.people import access as people_access
from jobgrant.service.people import organization_verification as verification
from jobgrant.service.people import organizations
from jobgrant.service.registry.models import Employer, Verification
from jobgrant.service.web import labels
from jobgrant.service.web.forms import organizations as forms
from jobgrant.service.web.limits import limited
from jobgrant.service.web.pages import (
    employer_required,
    form_page,
    set_notice,
    switching_language,
    take_notice,
    visible_or_404,
)
from jobgrant.service.web.views import public_demo

#: The address the registration's link went to, for the page that says where to look.
SENT_TO_KEY = "jobgrant.register.sent_to"


def done_page(
    request: HttpRequest, title: str, text: str, next_url: str, next_text: str
) -> HttpResponse:
    context = {"title": title, "text": text, "next_url": next_url, "next_text": next_text}
    return render(request, "web/organizations/done.html", context)


def bad_link_page(request: HttpRequest) -> HttpResponse:
    context = {
        "title": _("This link does not work"),
        "text": _(
            "It was already used, it expired, or it is incomplete. If you were registering, "
            "register again; if you were invited, ask for a new invitation."
        ),
        "next_url": reverse("web:landing"),
        "next_text": _("Go to the home page"),
    }
    return render(request, "web/organizations/done.html", context, status=404)


# --- Registering ---------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def register(request: HttpRequest) -> HttpResponse:
    form = forms.RegistrationForm(request.POST if request.method == "POST" else None)
    first: list[tuple[str, str]] = []
    if switching_language(request):
        pass  # what was typed, shown back in this language (the passwords are not)
    elif request.method == "POST":
        if too_many := limited(request, "register"):  # per address (accounts/limits.py)
            return too_many
        typed, started = form.typed(), timezone.now()
        try:
            organizations.register_organization(typed, language=current_language())
        except ServiceError as error:
            first = forms.show_problems(form, error)
        else:
            request.session[SENT_TO_KEY] = str(typed.get("email", "")).strip()
            public_demo.remember_registered(request, request.session[SENT_TO_KEY], started)
            return redirect("web:register-sent")
    context = {"title": _("Register your organization"), "form": form}
    return form_page(request, "web/organizations/register.html", context, [form], first)


def register_sent(request: HttpRequest) -> HttpResponse:
    """Where to look: the address the link went to, and in the demonstration (no mail is
    sent) the demonstration's mailbox, open to this browser for that address."""
    address = str(request.session.get(SENT_TO_KEY, ""))
    where = (
        _("We sent a link to %(address)s.") % {"address": address}
        if address
        else _("We sent a link to the address you gave.")
    )
    context = {
        "title": _("Check your email"),
        "text": where
        + " "
        + _(
            "Open it to confirm the address: your account can be used once it is confirmed. "
            "The link works for 3 days. If it is not in your inbox, look in your junk or spam "
            "folder."
        ),
        "next_url": reverse("web:sign-in"),
        "next_text": _("Sign in, once the address is confirmed"),
        "demo_mail": (
            reverse("web:demo-mail") + "?" + urlencode({"to": address})
            if settings.JOBGRANT_DEMO_MAIL and address
            else ""
        ),
    }
    return render(request, "web/organizations/done.html", context)


@require_http_methods(["GET", "POST"])
def verify_email(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks (mail scanners open links: a GET changes nothing), POST confirms."""
    if organizations.verification_user(token) is None:
        return bad_link_page(request)
    if request.method == "POST":
        organizations.verify_email(token)
        return redirect("web:verify-email-done")
    return render(
        request, "web/organizations/verify.html", {"title": _("Confirm your email address")}
    )


def verify_email_done(request: HttpRequest) -> HttpResponse:
    return done_page(
        request,
        _("Your email address is confirmed"),
        _("Your account is ready. Sign in with your email address and your password."),
        reverse("web:sign-in"),
        _("Sign in"),
    )


# --- Joining by invitation -----------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    found = organizations.open_invitation(token)
    if found is None:
        return bad_link_page(request)
    user = request.user if isinstance(request.user, User) else None
    has_account = user is None and User.objects.filter(email__iexact=found.email).exists()
    form = forms.NewAccountForm(request.POST if request.method == "POST" and user is None else None)
    first: list[tuple[str, str]] = []
    if switching_language(request):
        pass  # what was typed, shown back in this language (the passwords are not)
    elif request.method == "POST" and not has_account:
        try:
            organizations.accept_invitation(token, user=user, data=None if user else form.typed())
        except ServiceError as error:
            first = forms.show_problems(form, error)
        else:
            return _joined(request, found.employer, signed_in=user is not None)
    context = {
        "title": _("Join %(name)s") % {"name": found.employer.name},
        "invitation": found,
        "role": OrganizationRole(found.role).label,
        "signed_in_as": user,
        "other_address": user is not None and user.email.lower() != found.email,
        "has_account": has_account,
        "form": form,
        "sign_in_url": reverse("web:sign-in") + "?next=" + request.path,
    }
    return form_page(request, "web/organizations/invitation.html", context, [form], first)


def _joined(request: HttpRequest, employer: Employer, *, signed_in: bool) -> HttpResponse:
    if signed_in:
        set_notice(request, "joined", name=employer.name)
        return redirect("web:organization-members", employer_id=employer.pk)
    return done_page(
        request,
        _("You joined %(name)s") % {"name": employer.name},
        _("Your account is ready. Sign in with your email address and the password you chose."),
        reverse("web:sign-in"),
        _("Sign in"),
    )


# --- An organization's people ----------------------------------------------------------------


def notice_text(notice: dict[str, Any] | None) -> str:
    if notice is None:
        return ""
    texts = {
        "invited": _("An invitation was sent to %(email)s."),
        "joined": _("You joined %(name)s."),
        "role-set": _("The role was changed."),
        "removed": _("%(name)s was removed from the organization."),
        "invitation-revoked": _(
            "The invitation to %(email)s was cancelled: its link no longer works."
        ),
        "refused": "%(message)s",
        "proof": _(
            "Your document was received. An officer will check it; the administrators are "
            "told the outcome by email."
        ),
    }
    values = {k: v for k, v in notice.items() if k != "kind"}
    if notice.get("kind") == "refused":
        values["message"] = localized(notice)
    text = texts.get(str(notice.get("kind")), "")
    return text % values if text else ""


@employer_required
def organization_list(request: HttpRequest, user: User) -> HttpResponse:
    context = {
        "title": _("Your organizations"),
        "memberships": organizations.memberships_of(user),
        "waiting": access.visible_partner_requests(user).filter(state="pending").count(),
    }
    return render(request, "web/organizations/list.html", context)


def acting_for(user: User, employer_id: int) -> Employer:
    return visible_or_404(people_access.get_visible_organization, user, employer_id)


@employer_required
@require_http_methods(["GET", "POST"])
def organization_members(request: HttpRequest, user: User, employer_id: int) -> HttpResponse:
    employer = acting_for(user, employer_id)
    admin = organizations.is_admin(user, employer)
    form = forms.InviteForm(
        request.POST if request.method == "POST" else None,
        initial={"role": "member", "language": current_language()},
    )
    first: list[tuple[str, str]] = []
    if switching_language(request):
        pass  # what was typed, shown back in this language
    elif request.method == "POST":
        typed = form.typed()
        try:
            organizations.invite_colleague(user, employer, typed)
        except ServiceError as error:
            first = forms.show_problems(form, error)
        else:
            set_notice(request, "invited", email=str(typed.get("email", "")).strip().lower())
            return redirect("web:organization-members", employer_id=employer.pk)
    context = {
        "title": employer.name,
        "employer": employer,
        **verification_context(employer),
        "proof_form": forms.ProofForm(),
        "is_admin": admin,
        "members": organizations.members(employer),
        "invitations": organizations.pending_invitations(employer) if admin else [],
        "role_choices": forms.ROLE_CHOICES,
        "me": user,
        "form": form,
        "notice": notice_text(take_notice(request)),
    }
    return form_page(request, "web/organizations/members.html", context, [form], first)


@employer_required
@require_POST
def member_role(
    request: HttpRequest, user: User, employer_id: int, membership_id: int
) -> HttpResponse:
    employer = acting_for(user, employer_id)
    try:
        organizations.set_member_role(user, employer, membership_id, request.POST.get("role", ""))
    except ServiceError as error:
        set_notice(request, "refused", message_en=error.message_en, message_fr=error.message_fr)
    else:
        set_notice(request, "role-set")
    return redirect("web:organization-members", employer_id=employer.pk)


@employer_required
@require_http_methods(["GET", "POST"])
def member_remove(
    request: HttpRequest, user: User, employer_id: int, membership_id: int
) -> HttpResponse:
    """Remove a colleague, or leave, after confirmation: the GET page asks, the POST does it."""
    employer = acting_for(user, employer_id)
    membership = next((m for m in organizations.members(employer) if m.pk == membership_id), None)
    if membership is None:
        raise Http404
    refusal: list[tuple[str, str]] = []
    if request.method == "POST":
        try:
            organizations.remove_member(user, employer, membership_id)
        except ServiceError as error:
            refusal = [("#confirm-remove", labels.service_message(error))]
        else:
            if membership.user_id == user.pk:
                return redirect("web:organization-list")
            name = membership.user.get_full_name() or membership.user.username
            set_notice(request, "removed", name=name)
            return redirect("web:organization-members", employer_id=employer.pk)
    leaving = membership.user_id == user.pk
    context = {
        "title": _("Leave %(name)s?") % {"name": employer.name}
        if leaving
        else _("Remove this person from %(name)s?") % {"name": employer.name},
        "employer": employer,
        "membership": membership,
        "leaving": leaving,
    }
    return form_page(request, "web/organizations/remove.html", context, first=refusal)


@employer_required
@require_http_methods(["GET", "POST"])
def invitation_revoke(
    request: HttpRequest, user: User, employer_id: int, invitation_id: int
) -> HttpResponse:
    """Cancel an invitation not used yet, after confirmation: the GET page asks, the POST does
    it (administrators; anyone else sees no such page)."""
    employer = acting_for(user, employer_id)
    if not organizations.is_admin(user, employer):
        raise Http404
    pending = organizations.pending_invitations(employer)
    invitation = next((i for i in pending if i.pk == invitation_id), None)
    if invitation is None:
        raise Http404
    refusal: list[tuple[str, str]] = []
    if request.method == "POST":
        try:
            organizations.revoke_invitation(user, employer, invitation_id)
        except ServiceError as error:
            refusal = [("#confirm-revoke", labels.service_message(error))]
        else:
            set_notice(request, "invitation-revoked", email=invitation.email)
            return redirect("web:organization-members", employer_id=employer.pk)
    context = {
        "title": _("Cancel the invitation to %(email)s?") % {"email": invitation.email},
        "employer": employer,
        "invitation": invitation,
    }
    return form_page(request, "web/organizations/revoke_invitation.html", context, first=refusal)


def verification_context(employer: Employer) -> dict[str, Any]:
    return {
        "verification_label": Verification(employer.verification).label,
        "verified": verification.last_verification(employer),
        "proofs": verification.proofs_of(employer),
        "may_upload": employer.verification != Verification.VERIFIED,
    }
