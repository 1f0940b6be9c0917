"""Every refusal the API answers a signed-in caller is in the audit trail, whatever its status.

The actions record their own refusals (audit.actions.audited_refusals_of), with what was asked
for. What they never see is refused here, once the answer is made: a parameter or body that
fails its schema (422), a body that cannot be read (400), a refusal of the handler itself. A
refusal that an action already recorded is marked `audited` and is not recorded twice. This net
stays at the HTTP level, not in the actions' decorator, because no action runs before these
refusals: only the request can say what was asked (its route and the first id in its path).
Both write through `record_refusal`, so an entry holds the same things whichever recorded it.

Anonymous refusals (no token, or a token that is not valid) go to the request log, not to the
chain: every entry takes the chain's one lock, and a client with no account could otherwise
queue every officer's decision behind a flood of its own requests (they are counted in the
metrics' `jobgrant_refusals_total` all the same). Failed sign-ins are the accounts' to record
(lockout).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import record_refusal
from jobgrant.service.errors import ServiceError
from jobgrant.service.observability.metrics import REFUSALS

API_PREFIX = "/api/"


class AuditApiRefusals:
    """Listed in MIDDLEWARE: records the refusals no action recorded."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        refusal = getattr(response, "refusal", None)
        caller = getattr(request, "auth", None)
        if isinstance(refusal, ServiceError) and isinstance(caller, User):
            operation, target = _operation(request), _target(request)
            record_refusal(caller.username, operation, "request", target, refusal)
        elif isinstance(refusal, ServiceError) and not refusal.audited:
            REFUSALS.labels(refusal.code, str(refusal.status)).inc()  # counted, not chained
        return response


def _operation(request: HttpRequest) -> str:
    """The operation's name (`get_application`), or the path when no route matched."""
    match = request.resolver_match
    name = match.url_name if match and match.url_name else request.path
    return str(name)[:55]


def _target(request: HttpRequest) -> str:
    """The first id in the path, if any (the application, change request or participant)."""
    match = request.resolver_match
    values = [str(value) for value in (match.kwargs.values() if match else ())]
    return values[0][:64] if values else ""
