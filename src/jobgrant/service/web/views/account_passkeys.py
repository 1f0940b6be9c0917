"""Passkeys: adding and removing one (after re-authentication), and signing in with one.

The ceremonies run in the browser (static/web/passkey.js); these views hand out the options
and take the answer back through an ordinary form (accounts/passkey_actions.py checks it).
Without script the pages still explain themselves, and the code from the authenticator app (or
a recovery code) remains the way in.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from jobgrant.service.accounts import passkey_actions, sign_in_actions
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.accounts.passkey_actions import PasskeyRefusedError
from jobgrant.service.accounts.passkey_models import Passkey
from jobgrant.service.accounts.second_factor import app_device, is_verified, needs_second_factor
from jobgrant.service.accounts.second_factor_limits import remember_device
from jobgrant.service.web.forms.account import CodeForm, PasskeyAnswerForm, PasskeyForm
from jobgrant.service.web.limits import limited, per_account_and_address
from jobgrant.service.web.pages import error_context, set_notice, user_required
from jobgrant.service.web.views.account import reauthentication_required
from jobgrant.service.web.views.public_sign_in import REFUSED, code_page, next_page, signed_in

EVERY_ROLE = tuple(Role.values)


@user_required(*EVERY_ROLE)
@require_http_methods(["GET", "POST"])
@reauthentication_required
def add_passkey(request: HttpRequest, user: User) -> HttpResponse:
    """Name the passkey, then the browser makes it (passkey.js) and the form brings it back."""
    if app_device(user) is None:
        return render(request, "web/account/passkey_needs_app.html", {"title": _("Add a passkey")})
    form = PasskeyForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        data = form.cleaned_data
        try:
            passkey_actions.add_passkey(request, user, data["name"], data["credential"])
        except PasskeyRefusedError as refused:
            form.add_error("name", REFUSED[refused.reason])
        else:
            set_notice(request, "passkey-added")
            return redirect("web:account")
    context = {
        "title": _("Add a passkey"),
        "form": form,
        "options": passkey_actions.registration_options(request, user),
    }
    return render(request, "web/account/passkey_add.html", {**context, **error_context(form)})


@user_required(*EVERY_ROLE)
@require_http_methods(["GET", "POST"])
@reauthentication_required
def remove_passkey(request: HttpRequest, user: User, passkey_id: int) -> HttpResponse:
    passkey = Passkey.objects.filter(user=user, pk=passkey_id).first()
    if passkey is None:
        return render(request, "404.html", {"title": _("Page not found")}, status=404)
    if request.method == "POST":
        passkey_actions.remove_passkey(user, passkey.pk)
        set_notice(request, "passkey-removed")
        return redirect("web:account")
    context = {"title": _("Remove this passkey?"), "passkey": passkey}
    return render(request, "web/account/passkey_remove.html", context)


@require_POST
def sign_in_with_passkey(request: HttpRequest) -> HttpResponse:
    """The code step's other form: the browser's answer to the passkey challenge."""
    user = signed_in(request)
    if user is None:
        return redirect("web:sign-in")
    if not needs_second_factor(user) or is_verified(request):
        return redirect(next_page(request))
    here = per_account_and_address(request, user)
    if too_many := limited(request, "second_factor", value=here):
        return too_many
    form = PasskeyAnswerForm(request.POST)
    form.is_valid()
    try:
        passkey_actions.sign_in_with_passkey(request, user, form.cleaned_data.get("credential", ""))
    except PasskeyRefusedError as refused:
        return code_page(request, user, CodeForm(), passkey_error=str(REFUSED[refused.reason]))
    sign_in_actions.record_sign_in(request, user, "passkey")
    return remember_device(request, redirect(next_page(request)))
