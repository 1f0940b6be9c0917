"""While the database cannot be reached: 503 with Retry-After, never a 500 "Server Error".

A passing outage (PostgreSQL restarting, a failover, the network to it cut) and a bug looked the
same to a client: `500 text/html`. Now the API answers 503 application/problem+json with a
Retry-After, and the pages a short page in both official languages that says to try again
shortly (the language cannot be read from a session the database holds). Any other unexpected
error on the API is 500 problem+json too, so a program always gets the shape it reads.

Django sends every exception a view or a middleware did not handle to `handler500` (the
project's urls.py names `server_error`), still inside the `except`, so the error is at hand. The
page is rendered without the request's context processors: they read the session and the user,
which live in the database.
"""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views import defaults

from jobgrant.service.api.problems import problem_response
from jobgrant.service.errors import ServiceError

RETRY_AFTER_SECONDS = 30
API_PREFIX = "/api/"
#: What a database that does not answer raises through Django: a refused or dropped connection,
#: a server shutting down, a connection found closed.
UNREACHABLE = (OperationalError, InterfaceError)


def database_unreachable(error: BaseException | None) -> bool:
    while error is not None:
        if isinstance(error, UNREACHABLE):
            return True
        error = error.__cause__ or error.__context__
    return False


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: 503 when the database cannot be reached, else the 500 in the caller's shape."""
    error = sys.exc_info()[1]
    api = request.path.startswith(API_PREFIX)
    if database_unreachable(error):
        response = problem_response(unavailable()) if api else unavailable_page()
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        response["Cache-Control"] = "no-store"
        return response
    if api:
        return problem_response(internal_error())
    return defaults.server_error(request)


def unavailable() -> ServiceError:
    return ServiceError(
        503,
        "SERVICE_UNAVAILABLE",
        f"The service cannot reach its database for now; nothing was saved. Try again in "
        f"{RETRY_AFTER_SECONDS} seconds.",
        f"Le service ne peut joindre sa base de données pour l'instant; rien n'a été "
        f"enregistré. Réessayez dans {RETRY_AFTER_SECONDS} secondes.",
        extra={"retry_after": RETRY_AFTER_SECONDS},
    )


def internal_error() -> ServiceError:
    return ServiceError(
        500,
        "INTERNAL_ERROR",
        "The service failed to answer this request. The error was logged.",
        "Le service n'a pas pu répondre à cette requête. L'erreur a été consignée.",
    )


def unavailable_page() -> HttpResponse:
    return HttpResponse(render_to_string("web/unavailable.html"), status=503)
