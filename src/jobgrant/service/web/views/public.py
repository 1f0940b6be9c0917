"""Thin views: they read through grants.access and change things through the actions."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from jobgrant.service.accounts import sign_in_actions
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.accounts.second_factor import needs_second_factor
from jobgrant.service.accounts.sessions import take_ended_reason
from jobgrant.service.people.organizations import awaits_verification, send_verification_again
from jobgrant.service.web.limits import limited


def landing(request: HttpRequest) -> HttpResponse:
    """The public page: what the grant pays, who can apply, how."""
    return render(request, "web/landing.html")


class SignInForm(AuthenticationForm):
    error_messages = {  # noqa: RUF012 - Django's own class attribute
        "invalid_login": _("The username or the password is wrong."),
        "inactive": _("This account is inactive."),
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].error_messages["required"] = _("Enter your username.")
        self.fields["password"].error_messages["required"] = _("Enter your password.")

    def get_invalid_login_error(self) -> ValidationError:
        """The right password of an account whose email is not confirmed yet: say so (anyone
        else learns nothing more than "wrong")."""
        username, password = self.cleaned_data.get("username"), self.cleaned_data.get("password")
        found = User.objects.filter(username=username).first() if username else None
        if found and awaits_verification(found) and found.check_password(password or ""):
            send_verification_again(found)
            return ValidationError(
                _("Confirm your email address first: we sent the link to it again."),
                code="unverified",
            )
        return super().get_invalid_login_error()


SESSION_ENDED = {
    "idle": _("You were signed out after a while without activity. Sign in again to go on."),
    "absolute": _("Your session reached its longest length. Sign in again to go on."),
}


class SignInView(LoginView):
    """The password step. Past the address's rate limit: the 429 page; an account or address
    locked out (django-axes): the lockout page (AxesMiddleware, accounts/lockout.py)."""

    template_name = "web/sign_in.html"
    form_class = SignInForm
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if too_many := limited(request, "sign_in"):
            return too_many
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        """Signed in (a new session id): complete now for whoever owes no second factor."""
        response = super().form_valid(form)
        user = form.get_user()
        if not needs_second_factor(user):
            sign_in_actions.record_sign_in(self.request, user, "password")
        return response

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["title"] = _("Sign in")
        context["ended"] = SESSION_ENDED.get(take_ended_reason(self.request))
        form = context["form"]
        links = [
            (f"#id_{name if name in form.fields else 'username'}", str(message))
            for name, messages in form.errors.items()
            for message in messages
        ]
        context["error_links"] = links
        context["error_links_json"] = json.dumps(dict(links), ensure_ascii=False)
        return context


@require_POST
def sign_out(request: HttpRequest) -> HttpResponse:
    logout(request)
    return redirect("web:landing")


#: Each role's own start page.
HOME_PAGES: dict[str, str] = {
    Role.EMPLOYER: "web:employer-dashboard",
    Role.OFFICER: "web:officer-queue",
    Role.FINANCE: "web:finance-budgets",
    Role.ANALYST: "web:analyst-scenarios",
    Role.AUDITOR: "web:auditor-trail",
    Role.ADMIN: "web:staff-list",
    Role.PROGRAM_MANAGER: "web:program-list",
}


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Where a signed-in person starts: their role's own page."""
    page = HOME_PAGES.get(getattr(request.user, "role", ""))
    if page is not None:
        return redirect(page)
    return render(request, "web/home.html")
