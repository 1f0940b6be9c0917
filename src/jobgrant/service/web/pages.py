"""What every page shares: who may open it (the role gate), notices and the error summary.

Each role has its own pages (web/views/<area>.py). Anonymous visitors
are sent to the sign-in page; people of another role get a 403 page in their language. Every
back-office page is sent with Cache-Control: no-store (ASVS 14.3.2).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any, Concatenate, ParamSpec, cast

from django import forms
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext_lazy as _

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import record_refusal
from jobgrant.service.web.labels import ROLE_LABELS, label

P = ParamSpec("P")
View = Callable[Concatenate[HttpRequest, P], HttpResponse]


def set_choices(form: forms.Form, name: str, choices: list[tuple[str, str]]) -> None:
    cast(forms.ChoiceField, form.fields[name]).choices = choices


def query_params(request: HttpRequest, *, without: tuple[str, ...] = ()) -> dict[str, str]:
    """The request's query parameters that have a value (one value each)."""
    found = {key: request.GET.get(key) or "" for key in request.GET if key not in without}
    return {key: value for key, value in found.items() if value}


def role_required(*roles: str) -> Callable[[View[P]], View[P]]:
    """Anonymous: to the sign-in page. Another role: a 403 page. Never cached."""

    def decorate(view: View[P]) -> View[P]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
            user = request.user
            if not user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not isinstance(user, User) or user.role not in roles:
                response = forbidden(request, roles)
            else:
                response = view(request, *args, **kwargs)
            add_never_cache_headers(response)
            return response

        return cast(View[P], wrapper)

    return decorate


def forbidden(request: HttpRequest, roles: tuple[str, ...]) -> HttpResponse:
    """The 403 page, the refusal recorded in the audit trail (what page, which role)."""
    role = str(getattr(request.user, "role", ""))
    page = request.resolver_match.view_name if request.resolver_match else request.path
    actor = str(getattr(request.user, "username", ""))
    record_refusal(actor, "open_page", "page", page, "ROLE_NOT_ALLOWED", 403)
    context = {
        "title": _("You cannot open this page"),
        "page_roles": [label(ROLE_LABELS, r) for r in roles],
        "your_role": label(ROLE_LABELS, role),
    }
    return render(request, "web/backoffice/forbidden.html", context, status=403)


def error_context(form: forms.Form) -> dict[str, Any]:
    """What web/errors.html shows at the top of a form in error: one link per field error."""
    error_list = [
        (name if name in form.fields else next(iter(form.fields)), str(message))
        for name, messages in form.errors.items()
        for message in messages
    ]
    links = {f"#id_{name}": message for name, message in error_list}
    return {"error_list": error_list, "error_links_json": json.dumps(links, ensure_ascii=False)}


# A notice for the next page (POST, redirect, GET): kept language-neutral in the session, and
# written in the language of the page that shows it.
NOTICE_KEY = "jobgrant.backoffice.notice"


def set_notice(request: HttpRequest, kind: str, **values: Any) -> None:
    request.session[NOTICE_KEY] = {"kind": kind, **values}


def take_notice(request: HttpRequest) -> dict[str, Any] | None:
    notice = request.session.pop(NOTICE_KEY, None)
    return notice if isinstance(notice, dict) else None
