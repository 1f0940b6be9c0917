"""The administrator's pages: staff accounts (create, change, deactivate, reactivate), and the
page where a new staff member chooses their password from the link they were sent."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.language import current_language, localized
from jobgrant.service.people import access as people_access
from jobgrant.service.people import staff as staff_actions
from jobgrant.service.web import labels
from jobgrant.service.web.forms import organizations as forms
from jobgrant.service.web.pages import (
    admin_required,
    form_page,
    set_notice,
    switching_language,
    take_notice,
    visible_or_404,
)


def _notice(notice: dict[str, Any] | None) -> str:
    if notice is None:
        return ""
    texts = {
        "created": _("The account %(username)s was created; a link to choose a password was sent."),
        "changed": _("The account %(username)s was changed."),
        "deactivated": _("The account %(username)s was deactivated: it can no longer sign in."),
        "reactivated": _("The account %(username)s was reactivated."),
        "refused": "%(message)s",
    }
    values = {k: v for k, v in notice.items() if k != "kind"}
    if notice.get("kind") == "refused":
        values["message"] = localized(notice)
    text = texts.get(str(notice.get("kind")), "")
    return text % values if text else ""


@admin_required
def staff_list(request: HttpRequest, user: User) -> HttpResponse:
    roles = labels.ROLE_LABELS
    rows = [
        {
            "account": a,
            "role": labels.label(roles, a.role),
            "jurisdiction": labels.jurisdiction_name(a.jurisdiction) if a.jurisdiction else "",
            "invited": staff_actions.awaits_setup(a),
        }
        for a in staff_actions.staff_accounts()
    ]
    context = {
        "title": _("Staff accounts"),
        "rows": rows,
        "notice": _notice(take_notice(request)),
        "me": user,
    }
    return render(request, "web/staff/list.html", context)


@admin_required
@require_http_methods(["GET", "POST"])
def staff_new(request: HttpRequest, user: User) -> HttpResponse:
    form = forms.StaffForm(
        request.POST if request.method == "POST" else None, initial={"language": current_language()}
    )
    first: list[tuple[str, str]] = []
    if switching_language(request):
        pass  # what was typed, shown back in this language
    elif request.method == "POST":
        try:
            created = staff_actions.create_staff(user, form.typed())
        except ServiceError as error:
            first = forms.show_problems(form, error)
        else:
            set_notice(request, "created", username=created.username)
            return redirect("web:staff-list")
    return form_page(
        request,
        "web/staff/form.html",
        {"title": _("New staff account"), "form": form, "editing": None},
        [form],
        first,
    )


def _staff(user: User, user_id: int) -> User:
    return visible_or_404(people_access.get_visible_staff_account, user, user_id)


@admin_required
@require_http_methods(["GET", "POST"])
def staff_edit(request: HttpRequest, user: User, user_id: int) -> HttpResponse:
    account = _staff(user, user_id)
    initial = {
        "first_name": account.first_name,
        "last_name": account.last_name,
        "role": account.role,
        "jurisdiction": account.jurisdiction,
        "federal": account.federal,
        "may_view_sin": account.may_view_sin,
        "affiliations": " ".join(e.business_number for e in account.employers.all()),
        "language": account.preferred_language,
    }
    form = forms.StaffForm(
        request.POST if request.method == "POST" else None, initial=initial, editing=True
    )
    first: list[tuple[str, str]] = []
    if switching_language(request):
        pass  # what was typed, shown back in this language
    elif request.method == "POST":
        try:
            staff_actions.change_staff(user, account, form.typed())
        except ServiceError as error:
            first = forms.show_problems(form, error)
        else:
            set_notice(request, "changed", username=account.username)
            return redirect("web:staff-list")
    context = {
        "title": _("Staff account %(username)s") % {"username": account.username},
        "form": form,
        "editing": account,
        "own": account.pk == user.pk,
    }
    return form_page(request, "web/staff/form.html", context, [form], first)


@admin_required
@require_http_methods(["GET", "POST"])
def staff_deactivate(request: HttpRequest, user: User, user_id: int) -> HttpResponse:
    """Deactivate, after confirmation: the GET page asks, the POST does it."""
    account = _staff(user, user_id)
    first: list[tuple[str, str]] = []
    if request.method == "POST":
        try:
            staff_actions.deactivate_staff(user, account)
        except ServiceError as error:
            first = [("#confirm-deactivate", labels.service_message(error))]
        else:
            set_notice(request, "deactivated", username=account.username)
            return redirect("web:staff-list")
    context = {
        "title": _("Deactivate the account %(username)s?") % {"username": account.username},
        "account": account,
    }
    return form_page(request, "web/staff/deactivate.html", context, first=first)


@admin_required
@require_POST
def staff_reactivate(request: HttpRequest, user: User, user_id: int) -> HttpResponse:
    account = _staff(user, user_id)
    try:
        staff_actions.reactivate_staff(user, account)
    except ServiceError as error:
        set_notice(request, "refused", message_en=error.message_en, message_fr=error.message_fr)
    else:
        set_notice(request, "reactivated", username=account.username)
    return redirect("web:staff-list")


@require_http_methods(["GET", "POST"])
def account_setup(request: HttpRequest, token: str) -> HttpResponse:
    """A new staff member chooses their password (the link works once)."""
    account = staff_actions.setup_user(token)
    if account is None:
        context: dict[str, Any] = {
            "title": _("This link does not work"),
            "text": _(
                "It was already used, it expired, or it is incomplete: ask an administrator "
                "for a new one."
            ),
            "next_url": reverse("web:landing"),
            "next_text": _("Go to the home page"),
        }
        return render(request, "web/organizations/done.html", context, status=404)
    form = forms.SetPasswordForm(request.POST if request.method == "POST" else None)
    first: list[tuple[str, str]] = []
    if request.method == "POST":
        typed = form.typed()
        try:
            staff_actions.complete_setup(token, typed["password"], typed["password_again"])
        except ServiceError as error:
            first = forms.show_problems(form, error)
        else:
            context = {
                "title": _("Your password is set"),
                "text": _("Sign in with your username, %(username)s, and your new password.")
                % {"username": account.username},
                "next_url": reverse("web:sign-in"),
                "next_text": _("Sign in"),
            }
            return render(request, "web/organizations/done.html", context)
    context = {"title": _("Choose your password"), "form": form, "account": account}
    return form_page(request, "web/staff/setup.html", context, [form], first)
