"""handler404: a page (or an API path) that is not found, recorded in the audit trail when a
signed-in person meets it; under /api/, as problem+json.

A view that turns an action's refusal into a 404 (`raise Http404 from None`) leaves that
refusal as the exception's context: the action recorded it already, so it is not recorded again.
What no action saw is recorded here: an address that matches no page, an id that cannot exist.
It is an HTTP-level net, not the actions' decorator, because no action ran: only the path says
what was asked. It writes through `record_refusal`, as the actions do.
Anonymous visitors' 404s go to the request log only (see api/refusal_audit.py for why), and the
participant link's token never reaches the trail (log_redaction).

A French address written with the English words of the paths (/fr/employer/…, as every French
address was until the paths were translated: bookmarks, links in messages already sent) is no
page: it is answered with a permanent redirect to the same page's French address, and nothing
is recorded.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.urls import Resolver404, resolve, reverse
from django.utils import translation
from django.views import defaults

from jobgrant.service.api.problems import problem_response
from jobgrant.service.audit.actions import record_refusal
from jobgrant.service.errors import ServiceError
from jobgrant.service.log_redaction import redact


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    moved = isinstance(exception, Resolver404) and french_address(request.path_info)
    if moved:
        query = request.META.get("QUERY_STRING", "")
        target = f"{moved}?{query}" if query else moved  # reverse() wrote the script's prefix
        # 301 for a link followed; 308 for a form posted to the old address keeps its method.
        answer = HttpResponsePermanentRedirect(target)
        if request.method not in ("GET", "HEAD"):
            answer.status_code = 308
        return answer
    user = request.user
    if user.is_authenticated and not _recorded(exception):
        path = redact(request.path)[:64]
        record_refusal(str(user.get_username()), "open_page", "page", path, no_such_path())
    if request.path.startswith("/api/"):
        return problem_response(no_such_path())
    return defaults.page_not_found(request, exception)


def french_address(path: str) -> str | None:
    """The French address of a page given by its old French address, /fr/ followed by the
    English path (/fr/employer/claims/3/ -> /fr/employeur/demandes-de-remboursement/3/); None
    when the path is no such address."""
    if not path.startswith("/fr/"):
        return None
    with translation.override("en"):
        try:
            match = resolve(f"/en/{path[len('/fr/') :]}")
        except Resolver404:
            return None
    with translation.override("fr"):
        return reverse(match.view_name, args=match.args, kwargs=match.kwargs)


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
