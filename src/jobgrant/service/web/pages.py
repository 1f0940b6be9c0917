"""What every page shares: who may open it (one gate per role), the 404 for a file the user
may not see (visible_or_404), notices and the error summary.

Each role has its own pages (web/views/<area>.py). Anonymous visitors
are sent to the sign-in page; people of another role get a 403 page in their language. Every
back-office page is sent with Cache-Control: no-store (ASVS 14.3.2).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from django import forms
from django.contrib.auth.views import redirect_to_login
from django.forms.utils import ErrorDict
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext_lazy as _

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import record_refusal
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.refusals import forbidden_for
from jobgrant.service.web import field_errors
from jobgrant.service.web.labels import ROLE_LABELS, label

P = ParamSpec("P")
FetchArgs = ParamSpec("FetchArgs")
Found = TypeVar("Found")
View = Callable[Concatenate[HttpRequest, P], HttpResponse]


# --- The language button of a form -------------------------------------------------------------

#: The name of a form's language button (web/switch_language.html), a name of its own so that
#: no field or button of the form shares it: it posts what was typed
#: to the same page in the other language, and the header's toggle presses it
#: (static/web/language-toggle.js). The page answers with what was typed, checking nothing and
#: writing nothing (a wizard step keeps it in its draft first).
SWITCH_LANGUAGE = "switch-language"
FormType = TypeVar("FormType", bound=forms.BaseForm)


def switching_language(request: HttpRequest) -> bool:
    """Whether this POST is a form's language button, not a submission."""
    return request.method == "POST" and request.POST.get(SWITCH_LANGUAGE) == "yes"


def typed_back(form_class: type[FormType], request: HttpRequest, **kwargs: Any) -> FormType:
    """An unbound `form_class` showing what the POST typed into it: the values, no error."""
    posted = form_class(request.POST, request.FILES, **kwargs)
    typed = {name: posted[name].data for name in posted.fields}
    return form_class(initial=typed, **kwargs)


def shown_back(form: FormType) -> FormType:
    """`form`, bound to what the POST typed, shown back without being checked (for a form
    whose fields are built from its arguments, where typed_back cannot pass them): no error,
    and not to be saved."""
    # Django checks a bound form when its errors are first read, unless they are already set.
    setattr(form, "_errors", ErrorDict())  # noqa: B010 (django-stubs do not declare it)
    return form


def files_not_kept(request: HttpRequest) -> list[str]:
    """The names of the files a language button's POST carried: a page cannot choose a file
    again for its user, so the page says which to choose again (web/files_not_kept.html)."""
    return [upload.name or "" for name in request.FILES for upload in request.FILES.getlist(name)]


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


UserView = Callable[Concatenate[HttpRequest, User, P], HttpResponse]


def user_required(*roles: str) -> Callable[[UserView[P]], View[P]]:
    """role_required, with the signed-in user handed to the view as its second argument."""

    def decorate(view: UserView[P]) -> View[P]:
        def with_user(request: HttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
            return view(request, cast(User, request.user), *args, **kwargs)

        return role_required(*roles)(cast(View[P], wraps(view)(with_user)))

    return decorate


# The gate of each role's own pages: the one definition every view module imports.
employer_required = user_required(Role.EMPLOYER)
officer_required = user_required(Role.OFFICER)
finance_required = user_required(Role.FINANCE)
analyst_required = user_required(Role.ANALYST)
auditor_required = user_required(Role.AUDITOR)
admin_required = user_required(Role.ADMIN)
# Programs, streams and intakes: a program manager's, and the administrator's too.
program_manager_required = user_required(Role.PROGRAM_MANAGER, Role.ADMIN)
#: The report of the decisions taken against an intake's ranking: who signs them off, the
#: officers who take them, and the auditors.
out_of_rank_readers_required = user_required(
    Role.PROGRAM_MANAGER, Role.ADMIN, Role.AUDITOR, Role.OFFICER
)


def visible_or_404(
    fetch: Callable[FetchArgs, Found], *args: FetchArgs.args, **kwargs: FetchArgs.kwargs
) -> Found:
    """What `fetch(*args, **kwargs)` finds for the user, or the page's 404 for any refusal: a
    page never tells a file that is not there from one that is not the user's. The refusal
    stays the 404's context, so the 404 handler does not record again what the fetch's audit
    recorded (service/not_found.py)."""
    try:
        return fetch(*args, **kwargs)
    except ServiceError:
        raise Http404 from None


def not_found_is_404(refusal: ServiceError) -> None:
    """An action's 404 refusal is the page's 404 (called while handling it, so the refusal stays
    the 404's context and is not recorded twice); any other refusal is the caller's to show."""
    if refusal.status == 404:
        raise Http404 from None


def applicant_file_or_404(user: User, application_id: int) -> Application:
    """The application, if the user acts for its applicant; the page's 404 otherwise (the
    access check records the refusal)."""
    application = visible_or_404(
        access.get_visible_application, user, application_id, without=("explanation",)
    )
    visible_or_404(access.check_applicant, user, application)
    return application


def forbidden(request: HttpRequest, roles: tuple[str, ...]) -> HttpResponse:
    """The 403 page, the refusal recorded in the audit trail (what page, which role).

    The role gate refuses before any action runs, so it records the refusal itself, through
    the same `record_refusal` as the actions' decorator."""
    role = str(getattr(request.user, "role", ""))
    page = request.resolver_match.view_name if request.resolver_match else request.path
    actor = str(getattr(request.user, "username", ""))
    record_refusal(actor, "open_page", "page", page, forbidden_for("ROLE_NOT_ALLOWED"))
    context = {
        "title": _("You cannot open this page"),
        "page_roles": [label(ROLE_LABELS, r) for r in roles],
        "your_role": label(ROLE_LABELS, role),
    }
    return render(request, "web/backoffice/forbidden.html", context, status=403)


def error_context(
    *forms_in_page_order: forms.BaseForm,
    hrefs: Mapping[str, str] | None = None,
    first: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """What web/errors.html shows at the top of a form in error: one link per field error, in
    the order the fields appear on the page. `hrefs` sends a field's link elsewhere (e.g. to the
    part of a review page where that field is changed); `first` are (href, message) links that
    come before the forms' own (problems found in an earlier part of the page)."""
    targets = hrefs or {}
    for form in forms_in_page_order:
        field_errors.note(form, _in_page_order(form))
    error_list = [
        (name, f"#{_anchor(form, name)}", str(message))
        for form in forms_in_page_order
        for name in _in_page_order(form)
        for message in form.errors[name]
    ]
    links = [*first, *((targets.get(name) or href, text) for name, href, text in error_list)]
    return {
        "error_list": [(name, text) for name, _href, text in error_list],
        "error_links": links,
        "error_links_json": json.dumps(dict(links), ensure_ascii=False),
    }


def form_page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    in_error: Sequence[forms.BaseForm] = (),
    first: Sequence[tuple[str, str]] = (),
    status: int = 200,
) -> HttpResponse:
    """A page with forms: the error summary of `in_error` (in page order) after the `first`
    links (what `show_problems` found outside the forms' fields), 422 when it lists anything."""
    errors = error_context(*in_error, first=first)
    if errors["error_links"]:
        status = 422
    return render(request, template, {**context, **errors}, status=status)


def _in_page_order(form: forms.BaseForm) -> list[str]:
    """Errors added in clean() come last in form.errors; the page shows its fields in order."""
    fields = [name for name in form.fields if name in form.errors]
    return [name for name in form.errors if name not in form.fields] + fields


def _anchor(form: forms.BaseForm, name: str) -> str:
    """The id of the control an error link moves to: the field's own, a radio group's first
    button, or (for an error on the whole form) its first field."""
    if name not in form.fields:
        name = next(iter(form.fields))
    field = form[name]
    first_option = getattr(field.field.widget, "first_option_id", None)
    return str(first_option(field.auto_id)) if first_option else str(field.auto_id)


# A notice for the next page (POST, redirect, GET): kept language-neutral in the session, and
# written in the language of the page that shows it.
NOTICE_KEY = "jobgrant.backoffice.notice"


def set_notice(request: HttpRequest, kind: str, **values: Any) -> None:
    request.session[NOTICE_KEY] = {"kind": kind, **values}


def take_notice(request: HttpRequest) -> dict[str, Any] | None:
    notice = request.session.pop(NOTICE_KEY, None)
    return notice if isinstance(notice, dict) else None


# The language toggle of a page rendered by a POST-only address (a form in error, a refusal)
# leads to the page's GET address in the other language, never to the POST-only one (a 405).
PAGE_PATH = "jobgrant_page_path"


def shown_as(request: HttpRequest, path: str) -> None:
    """Say that what this request renders is the page at `path` (the GET address): the
    language toggle leads there (web/context.py)."""
    setattr(request, PAGE_PATH, path)
