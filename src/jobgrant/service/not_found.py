"""handler404: a page (or an API path) that is not found, recorded in the audit trail when a
signed-in person meets it; under /api/, as problem+json.

A view that turns an action's refusal into a 404 (`raise Http404 from None`) leaves that
refusal as the exception's context: the action recorded it already, so it is not recorded again.
What no action saw is recorded here: an address that matches no page, an id that cannot exist.
It is an HTTP-level net, not the actions' decorator, because no action ran: only the path says
what was asked. It writes through `record_refusal`, as the actions do.
Anonymous visitors' 404s go to the request log only (see api/refusal_audit.py for why), and the
participant link's token never reaches the trail (log_redaction).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views import defaults

from jobgrant.service.api.problems import problem_response
from jobgrant.service.audit.actions import record_refusal
from jobgrant.service.errors import ServiceError
from jobgrant.service.log_redaction import redact


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    user = request.user
    if user.is_authenticated and not _recorded(exception):
        path = redact(request.path)[:64]
        record_refusal(str(user.get_username()), "open_page", "page", path, no_such_path())
    if request.path.startswith("/api/"):
        return problem_response(no_such_path())
    return defaults.page_not_found(request, exception)


def no_such_path() -> ServiceError:
    return ServiceError(
        404, "NOT_FOUND", "No such address in the API.", "Aucune adresse de ce genre dans l'API."
    )


def _recorded(exception: BaseException | None) -> bool:
    while exception is not None:
        if isinstance(exception, ServiceError):
            return exception.audited
        exception = exception.__cause__ or exception.__context__
    return False
