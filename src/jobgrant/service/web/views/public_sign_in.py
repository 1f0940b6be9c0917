"""Signing in's second step (the code, or setting an app up), and a forgotten password.

The password step is public.SignInView; SecondFactorMiddleware sends a signed-in person who
owes a second factor here, with the page they asked for as `next`.
"""

from __future__ import annotations

import io
from urllib.parse import urlencode

import segno
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts import actions as account_actions
from jobgrant.service.accounts import passkey_actions, second_factor_actions, sign_in_actions
from jobgrant.service.accounts.models import User
from jobgrant.service.accounts.second_factor import app_device, is_verified, needs_second_factor
from jobgrant.service.accounts.second_factor_limits import remember_device
from jobgrant.service.errors import ServiceError
from jobgrant.service.language import current_language
from jobgrant.service.people import password_reset as password_reset_actions
from jobgrant.service.web.forms.account import (
    CodeForm,
    NewPasswordForm,
    ResetRequestForm,
    SetupForm,
)
from jobgrant.service.web.limits import limited, per_account_and_address, second_factor_locked
from jobgrant.service.web.pages import error_context, switching_language, typed_back

CODES_KEY = "jobgrant.recovery_codes"  # shown once, on the page after they are made


def next_page(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return reverse("web:home")


def with_next(route: str, target: str) -> str:
    """The page `route` ("web:…"), in the current language, with where to go after it."""
    return f"{reverse(route)}?{urlencode({'next': target})}"


def signed_in(request: HttpRequest) -> User | None:
    user = request.user
    return user if isinstance(user, User) and user.is_authenticated else None


@require_http_methods(["GET", "POST"])
def second_factor(request: HttpRequest) -> HttpResponse:
    """The code from the app (or a recovery code), after the password."""
    user = signed_in(request)
    if user is None:
        return redirect("web:sign-in")
    if not needs_second_factor(user) or is_verified(request):
        return redirect(next_page(request))
    if app_device(user) is None:
        return redirect(with_next("web:second-factor-setup", next_page(request)))
    form = CodeForm(request.POST if request.method == "POST" else None)
    return remember_device(request, _code_step(request, user, form))


def _code_step(request: HttpRequest, user: User, form: CodeForm) -> HttpResponse:
    if form.is_valid():
        here = per_account_and_address(request, user)
        if too_many := limited(request, "second_factor", value=here):
            return too_many
        try:
            method = second_factor_actions.verify(request, user, form.cleaned_data["code"])
        except ServiceError as error:
            return second_factor_locked(request, error)
        if method:
            sign_in_actions.record_sign_in(request, user, method)
            return redirect(next_page(request))
        form.add_error("code", _("This code is wrong or was already used. Try the next one."))
    return code_page(request, user, form)


#: What the person reads when the browser's answer does not pass (PasskeyRefusedError.reason).
REFUSED = {
    "missing": _(
        "Your browser did not give a passkey: it was cancelled, it took too long, or this browser "
        "cannot make passkeys (they need JavaScript). Try again, or use your authenticator app."
    ),
    "expired": _("This page was open too long or was sent twice. Try again."),
    "name_taken": _("You already have a passkey with this name. Choose another name."),
    "invalid": _("The passkey did not pass our checks. Try again, or use your authenticator app."),
    "cloned": _(
        "This passkey gave a counter we have already seen: it may have been copied. It is "
        "refused, and the auditors are told. Use your authenticator app, and remove this passkey."
    ),
}


def code_page(
    request: HttpRequest, user: User, form: CodeForm, passkey_error: str = ""
) -> HttpResponse:
    """The code step: the code form, and (for a person with passkeys) the passkey form."""
    first = [("#use-passkey", passkey_error)] if passkey_error else []
    context = {
        "title": _("Enter your code"),
        "form": form,
        "next": next_page(request),
        "passkey_options": passkey_actions.authentication_options(request, user),
        "passkey_error": passkey_error,
    }
    errors = error_context(form, first=first)
    return render(request, "web/second_factor.html", {**context, **errors})


@require_http_methods(["GET", "POST"])
def second_factor_setup(request: HttpRequest) -> HttpResponse:
    """Set an authenticator app up: the key (as a QR code and as text), then a first code.
    Open to a person who owes a first second factor, or who re-authenticated just now."""
    user = signed_in(request)
    if user is None:
        return redirect("web:sign-in")
    first_time = app_device(user) is None
    # Staff who have none yet set one up right after the password; anyone else (replacing an
    # app, or an employer adding one) confirms the password, and any code, first.
    owes_first = first_time and needs_second_factor(user)
    confirmed = account_actions.recently_reauthenticated(request) and (
        is_verified(request) or not needs_second_factor(user)
    )
    if not owes_first and not confirmed:
        return redirect(with_next("web:account-confirm", request.path))
    form = SetupForm(request.POST if request.method == "POST" else None)
    device = second_factor_actions.pending_or_new(user)
    if form.is_valid():
        if too_many := limited(request, "second_factor", user):
            return too_many
        codes = second_factor_actions.confirm_app(request, user, form.cleaned_data["code"])
        if codes is not None:
            if owes_first:  # the sign-in that needed the app is complete
                sign_in_actions.record_sign_in(request, user, "app-set-up")
            if codes:
                request.session[CODES_KEY] = codes
                return redirect(with_next("web:second-factor-recovery-codes", next_page(request)))
            return redirect(next_page(request))
        form.add_error("code", _("This code does not match the key: check the app and try again."))
    secret = device.config_url.split("secret=")[1].split("&")[0]
    context = {
        "title": _("Set up your second factor"),
        "form": form,
        "next": next_page(request),
        "secret_groups": [secret[i : i + 4] for i in range(0, len(secret), 4)],
        "qr_svg": _qr_svg(device.config_url),
        "first_time": first_time,
    }
    return render(request, "web/second_factor_setup.html", {**context, **error_context(form)})


def _qr_svg(url: str) -> str:
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=5, xmldecl=False, svgns=True)
    return mark_safe(out.getvalue().decode())


def recovery_codes(request: HttpRequest) -> HttpResponse:
    """The recovery codes just made, shown this once."""
    codes = request.session.pop(CODES_KEY, None)
    if not codes:
        return redirect(next_page(request))
    context = {"title": _("Your recovery codes"), "codes": codes, "next": next_page(request)}
    return render(request, "web/recovery_codes.html", context)


@require_http_methods(["GET", "POST"])
def password_reset(request: HttpRequest) -> HttpResponse:
    """Ask for a reset link by email; the answer is the same whether the address is known."""
    form = ResetRequestForm(request.POST if request.method == "POST" else None)
    if switching_language(request):  # what was typed, shown back in this language
        form = typed_back(ResetRequestForm, request)
    elif form.is_valid():
        email = form.cleaned_data["email"].strip().lower()
        if too_many := limited(request, "password_reset") or limited(
            request, "password_reset", value=f"email:{email}"
        ):
            return too_many
        password_reset_actions.ask_for_reset(email, current_language())
        return redirect("web:password-reset-sent")
    context = {"title": _("Reset your password"), "form": form}
    return render(request, "web/password_reset.html", {**context, **error_context(form)})


def password_reset_sent(request: HttpRequest) -> HttpResponse:
    return render(request, "web/password_reset_sent.html", {"title": _("Check your email")})


#: The reset link's token waits here while its form is shown (off the address bar).
RESET_TOKEN_KEY = "jobgrant.password_reset_token"
#: The form's own address: the link's, with this in place of the token.
RESET_FORM = "set-password"


@sensitive_post_parameters()
@never_cache
@require_http_methods(["GET", "POST"])
def password_reset_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The reset link: its token moves into the session (a page's address reaches its Referer
    and the browser's history), then the new password's form, through the people action."""
    if token != RESET_FORM:
        if password_reset_actions.reset_user(token) is None:
            return _reset_page(request, None)
        request.session[RESET_TOKEN_KEY] = token
        return redirect("web:password-reset-confirm", token=RESET_FORM)
    token = request.session.get(RESET_TOKEN_KEY, "")
    user = password_reset_actions.reset_user(token)
    if user is None:
        return _reset_page(request, None)
    switching = switching_language(request)  # a password is never shown back
    form = NewPasswordForm(
        user, request.POST if request.method == "POST" and not switching else None
    )
    if form.is_valid():
        try:
            password_reset_actions.reset_password(token, form.cleaned_data["new_password"])
        except ServiceError:  # used a moment ago, in another request
            return _reset_page(request, None)
        del request.session[RESET_TOKEN_KEY]
        return redirect("web:password-reset-done")
    return _reset_page(request, form, passwords_not_kept=switching)


def _reset_page(
    request: HttpRequest, form: NewPasswordForm | None, *, passwords_not_kept: bool = False
) -> HttpResponse:
    """The form, or (no form) the page that says the link does not work."""
    context = {
        "title": _("Choose a new password"),
        "validlink": form is not None,
        "form": form,
        "passwords_not_kept": passwords_not_kept,
    }
    errors = error_context(form) if form is not None else {}
    return render(request, "web/password_reset_confirm.html", {**context, **errors})


def password_reset_done(request: HttpRequest) -> HttpResponse:
    return render(request, "web/password_reset_done.html", {"title": _("Your password is changed")})
