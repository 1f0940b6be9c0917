"""One page for each setting an organization's administrator gives alone (its direct-deposit
account, its telephone number): shown with a form, checked and saved by the setting's action,
audited there, and a notice after saving. A member who is not the administrator sees no such
page (404), as for the invitations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.functional import Promise

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.people import organizations
from jobgrant.service.registry.models import Employer
from jobgrant.service.web.forms import organizations as forms
from jobgrant.service.web.pages import form_page, set_notice, switching_language, take_notice
from jobgrant.service.web.views.organizations import acting_for


@dataclass(frozen=True)
class Setting:
    form: type[Any]  # a form with typed(): what the action takes
    save: Callable[[User, Employer, Any], object]  # the action: checks, saves, audits
    page: str  # the page's URL name (it redirects to itself after saving)
    template: str
    title: Promise  # "… %(name)s", the organization's name
    saved: Promise  # the notice after saving
    initial: Callable[[Employer], dict[str, str]] = lambda employer: {}
    #: What a bound form shows back (the bank account's number is typed again, never shown).
    shown_back: Callable[[dict[str, str]], dict[str, str]] = field(default=lambda data: data)


def setting_page(
    request: HttpRequest, user: User, employer_id: int, setting: Setting
) -> HttpResponse:
    employer = acting_for(user, employer_id)
    if not organizations.is_admin(user, employer):
        raise Http404
    bound = request.POST if request.method == "POST" else None
    form = setting.form(bound, initial=setting.initial(employer))
    first: list[tuple[str, str]] = []
    if request.method == "POST" and not switching_language(request):
        try:
            setting.save(user, employer, form.typed())
        except ServiceError as error:
            first = forms.show_problems(form, error)
        else:
            set_notice(request, setting.page)
            return redirect(f"web:{setting.page}", employer_id=employer.pk)
    if form.is_bound:
        form.data = setting.shown_back(request.POST.dict())
    context = {
        "title": str(setting.title) % {"name": employer.name},
        "employer": employer,
        "form": form,
        "notice": setting.saved if take_notice(request) else "",
    }
    return form_page(request, setting.template, context, [form], first)
