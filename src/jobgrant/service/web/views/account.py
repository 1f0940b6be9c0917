"""A person's own account: email, password, second factor and API tokens.

Changing the email, the password or the second factor asks for the password (and the code)
again first: `reauthentication_required` sends the person to confirm it, and back, and what
they confirm lasts 5 minutes (accounts.actions.REAUTHENTICATION_SECONDS). An administrator
also sees and revokes anyone's API tokens.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts import actions, second_factor_actions
from jobgrant.service.accounts.models import STAFF_ROLES, ApiToken, Role, User
from jobgrant.service.accounts.passkey_actions import passkeys_of
from jobgrant.service.accounts.second_factor import app_device, recovery_codes_left
from jobgrant.service.errors import ServiceError
from jobgrant.service.people import email_change
from jobgrant.service.web.forms.account import EmailForm, NewPasswordForm, ReauthenticateForm
from jobgrant.service.web.forms.organizations import show_problems
from jobgrant.service.web.limits import second_factor_locked
from jobgrant.service.web.pages import (
    admin_required,
    employer_required,
    error_context,
    set_notice,
    switching_language,
    take_notice,
    typed_back,
    user_required,
)
from jobgrant.service.web.views.public_sign_in import CODES_KEY, next_page, with_next

EVERY_ROLE = tuple(Role.values)
NOTICES = {
    "email-link-sent": _(
        "We sent a link to the new address. Your address changes when you open it and confirm."
    ),
    "password-changed": _("Your password is changed. Your API tokens were revoked."),
    "token-revoked": _("The token is revoked: it no longer opens the API."),
    "second-factor-removed": _("The second factor is turned off."),
    "passkey-added": _("The passkey is added: at sign-in you may use it instead of a code."),
    "passkey-removed": _("The passkey is removed: it no longer signs you in."),
}


def reauthentication_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapper(request: HttpRequest, user: User, *args: Any, **kwargs: Any) -> HttpResponse:
        if not actions.recently_reauthenticated(request):
            return redirect(with_next("web:account-confirm", request.path))
        return view(request, user, *args, **kwargs)

    return wrapper


@user_required(*EVERY_ROLE)
def account(request: HttpRequest, user: User) -> HttpResponse:
    notice = take_notice(request)
    context = {
        "title": _("Your account"),
        "notice": NOTICES.get(notice["kind"]) if notice else None,
        "has_app": app_device(user) is not None,
        "passkeys": passkeys_of(user),
        "codes_left": recovery_codes_left(user),
        "may_remove": user.role not in STAFF_ROLES,
        "tokens": ApiToken.objects.filter(user=user).order_by("name"),
    }
    return render(request, "web/account/account.html", context)


@user_required(*EVERY_ROLE)
@require_http_methods(["GET", "POST"])
def confirm(request: HttpRequest, user: User) -> HttpResponse:
    """The password (and the code) again, before a change to the account's keys."""
    form = ReauthenticateForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        data = form.cleaned_data
        try:
            confirmed = actions.reauthenticate(request, user, data["password"], data["code"])
        except ServiceError as error:
            return second_factor_locked(request, error)
        if confirmed:
            return redirect(next_page(request))
        form.add_error("password", _("The password or the code is wrong."))
    context = {
        "title": _("Confirm it is you"),
        "form": form,
        "next": next_page(request),
        "asks_code": app_device(user) is not None,
    }
    return render(request, "web/account/confirm.html", {**context, **error_context(form)})


@user_required(*EVERY_ROLE)
@require_http_methods(["GET", "POST"])
@reauthentication_required
def change_password(request: HttpRequest, user: User) -> HttpResponse:
    switching = switching_language(request)  # a password is never shown back
    form = NewPasswordForm(
        user, request.POST if request.method == "POST" and not switching else None
    )
    if form.is_valid():
        actions.change_password(request, user, form.cleaned_data["new_password"])
        set_notice(request, "password-changed")
        return redirect("web:account")
    context = {"title": _("Change your password"), "form": form, "passwords_not_kept": switching}
    return render(request, "web/account/password.html", {**context, **error_context(form)})


@user_required(*EVERY_ROLE)
@require_http_methods(["GET", "POST"])
@reauthentication_required
def change_email(request: HttpRequest, user: User) -> HttpResponse:
    """The new address gets a link; it takes effect when the link is used (email_change)."""
    form = EmailForm(request.POST if request.method == "POST" else None)
    first: list[tuple[str, str]] = []
    if switching_language(request):  # what was typed, shown back in this language
        form = typed_back(EmailForm, request)
    elif form.is_valid():
        try:
            sent_to = email_change.request_email_change(user, form.cleaned_data["email"])
        except ServiceError as error:
            first = show_problems(form, error)
        else:
            set_notice(request, "email-link-sent", to=sent_to)
            return redirect("web:account")
    context = {"title": _("Change your email address"), "form": form}
    errors = error_context(form, first=first) if form.is_bound else error_context()
    status = 422 if errors["error_links"] else 200
    return render(request, "web/account/email.html", {**context, **errors}, status=status)


@require_http_methods(["GET", "POST"])
def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    """The link sent to a new address: GET asks (mail scanners open links), POST confirms."""
    address = email_change.pending_address(token)
    if address is None:
        return render(request, "web/account/email_link.html", _bad_link(), status=404)
    if request.method == "POST":
        try:
            email_change.confirm_email_change(token)
        except ServiceError as error:
            if error.code != "EMAIL_TAKEN":
                return render(request, "web/account/email_link.html", _bad_link(), status=404)
            context: dict[str, Any] = {
                "title": _("This address cannot be used"),
                "text": _("Another account uses this email address now: nothing was changed."),
            }
            return render(request, "web/account/email_link.html", context, status=409)
        context = {
            "title": _("Your email address is changed"),
            "text": _("Messages and password resets now go to %(address)s.") % {"address": address},
        }
        return render(request, "web/account/email_link.html", context)
    context = {
        "title": _("Confirm your new email address"),
        "address": address,
        "ask": True,
    }
    return render(request, "web/account/email_link.html", context)


def _bad_link() -> dict[str, Any]:
    return {
        "title": _("This link does not work"),
        "text": _(
            "It was already used, it expired, or it is incomplete. Your address did not "
            "change: ask for the change again from your account."
        ),
    }


@user_required(*EVERY_ROLE)
@require_http_methods(["GET", "POST"])
@reauthentication_required
def new_recovery_codes(request: HttpRequest, user: User) -> HttpResponse:
    """GET asks (the old codes stop working), POST makes them and shows them once."""
    if request.method == "POST":
        request.session[CODES_KEY] = second_factor_actions.new_recovery_codes(user)
        return redirect(with_next("web:second-factor-recovery-codes", reverse("web:account")))
    context = {"title": _("Make new recovery codes")}
    return render(request, "web/account/new_codes.html", context)


@employer_required
@require_http_methods(["GET", "POST"])
@reauthentication_required
def remove_second_factor(request: HttpRequest, user: User) -> HttpResponse:
    if request.method == "POST":
        second_factor_actions.remove_second_factor(user)
        set_notice(request, "second-factor-removed")
        return redirect("web:account")
    context = {"title": _("Turn the second factor off")}
    return render(request, "web/account/remove_second_factor.html", context)


@user_required(*EVERY_ROLE)
@require_http_methods(["GET", "POST"])
def revoke_token(request: HttpRequest, user: User, token_id: int) -> HttpResponse:
    """GET asks for confirmation; POST revokes (the owner's token, or for an administrator
    anyone's)."""
    token = ApiToken.objects.select_related("user").filter(pk=token_id).first()
    if token is None or (token.user_id != user.pk and user.role != Role.ADMIN):
        return render(request, "404.html", {"title": _("Page not found")}, status=404)
    back = "web:account-all-tokens" if token.user_id != user.pk else "web:account"
    if request.method == "POST":
        with contextlib.suppress(ServiceError):  # revoked meanwhile: the same outcome
            actions.revoke_api_token(user, token_id)
        set_notice(request, "token-revoked")
        return redirect(back)
    context = {"title": _("Revoke this token?"), "token": token, "back": back}
    return render(request, "web/account/revoke_token.html", context)


@admin_required
def all_tokens(request: HttpRequest, user: User) -> HttpResponse:
    """An administrator's view of every API token, each revocable."""
    notice = take_notice(request)
    context = {
        "title": _("Everyone's API tokens"),
        "notice": NOTICES.get(notice["kind"]) if notice else None,
        "tokens": ApiToken.objects.select_related("user").order_by("user__username", "name"),
    }
    return render(request, "web/account/all_tokens.html", context)
