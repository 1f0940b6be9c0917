"""What the back-office pages share: who may open them, notices, error summaries, labels.

Officers, finance officers, analysts and auditors each have their own pages. Anonymous visitors
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
from django.utils import translation
from django.utils.cache import add_never_cache_headers
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from jobgrant.rules.codes import JURISDICTIONS
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.errors import ServiceError

P = ParamSpec("P")
View = Callable[Concatenate[HttpRequest, P], HttpResponse]

ROLE_LABELS: dict[str, Promise] = {
    Role.EMPLOYER: _("employer"),
    Role.OFFICER: _("program officer"),
    Role.FINANCE: _("finance officer"),
    Role.ANALYST: _("policy analyst"),
    Role.AUDITOR: _("auditor"),
    Role.ADMIN: _("administrator"),
}
STATE_LABELS: dict[str, Promise] = {
    "draft": pgettext_lazy("application state", "Draft"),
    "submitted": pgettext_lazy("application state", "Submitted"),
    "recommended": pgettext_lazy("application state", "Recommended"),
    "approved": pgettext_lazy("application state", "Approved"),
    "denied": pgettext_lazy("application state", "Denied"),
    "withdrawn": pgettext_lazy("application state", "Withdrawn"),
}
FUNDER_LABELS: dict[str, Promise] = {
    "federal": _("Federal"),
    "provincial": _("Provincial or territorial"),
}
DELIVERY_LABELS: dict[str, Promise] = {
    "provincial": _("Delivered by the province or territory"),
    "federal-direct": _("Delivered directly by the federal government"),
    "separate-agreement": _("Separate agreement, no grant"),
}


def label(labels: dict[str, Promise], key: str) -> str:
    """The label of a code in the page's language; the code itself when it has none."""
    found = labels.get(key)
    return key if found is None else str(found)


def set_choices(form: forms.Form, name: str, choices: list[tuple[str, str]]) -> None:
    cast(forms.ChoiceField, form.fields[name]).choices = choices


def query_params(request: HttpRequest, *, without: tuple[str, ...] = ()) -> dict[str, str]:
    """The request's query parameters that have a value (one value each)."""
    found = {key: request.GET.get(key) or "" for key in request.GET if key not in without}
    return {key: value for key, value in found.items() if value}


def language() -> str:
    return (translation.get_language() or "en")[:2]


def jurisdiction_name(code: str) -> str:
    for jurisdiction in JURISDICTIONS:
        if jurisdiction.code == code:
            return jurisdiction.name_fr if language() == "fr" else jurisdiction.name_en
    return code


def jurisdiction_choices() -> list[tuple[str, str]]:
    return [(j.code, jurisdiction_name(j.code)) for j in JURISDICTIONS]


def service_message(error: ServiceError) -> str:
    """The service's own explanation of a refusal, in the page's language."""
    return error.message_fr if language() == "fr" else error.message_en


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
    role = str(getattr(request.user, "role", ""))
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
