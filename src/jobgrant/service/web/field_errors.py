"""The field errors an employer's or a trainee's page showed, counted for the burden meter.

Every form page builds its error summary with `pages.error_context`, which notes here each error
it lists: the form's name, the field's name and the error's code, never the value typed. Once the
page is answered, the middleware records them if the page was refused (422) to someone who is
not staff (an employer, or a trainee by their link): the burden on the people the program serves.
The officers' and other staff's forms are not the employer's burden and are not counted.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from django import forms
from django.http import HttpRequest, HttpResponse

from jobgrant.service.accounts.models import Role
from jobgrant.service.grants.burden.actions import field_errors_shown

_NOTED: ContextVar[list[tuple[str, str, str]] | None] = ContextVar("field_errors", default=None)

#: The code of an error added without one (a message added by hand).
NO_CODE = "invalid"


def note(form: forms.BaseForm, names: list[str]) -> None:
    """The errors of `form` on these fields (`__all__`: the whole form), if a request is being
    answered."""
    noted = _NOTED.get()
    if noted is None:
        return
    found = form.errors.as_data()
    for name in names:
        for error in found.get(name, []):
            noted.append((form_name(type(form)), name, str(error.code or NO_CODE)))


def note_problems(form: str, fields: list[str], code: str = NO_CODE) -> None:
    """Errors of a page whose checks are the service's own rather than a Django form's (the
    completion report): each field named once per error, with the code the service gives."""
    noted = _NOTED.get()
    if noted is not None:
        noted.extend((form, field, code) for field in fields)


def form_name(form_class: type) -> str:
    """A form's name as recorded: its module's last part and its class ("claims.ReasonForm"),
    since two forms of different pages may share a class name."""
    return f"{form_class.__module__.rsplit('.', 1)[-1]}.{form_class.__name__}"


def counted(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return True
    return getattr(user, "role", "") == Role.EMPLOYER


class FieldErrorsMiddleware:
    """Collects what `note` hears while a request is answered; records it on a 422."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        noted: list[tuple[str, str, str]] = []
        token = _NOTED.set(noted)
        try:
            response = self.get_response(request)
        finally:
            _NOTED.reset(token)
        if noted and response.status_code == 422 and counted(request):
            field_errors_shown(noted)
        return response
