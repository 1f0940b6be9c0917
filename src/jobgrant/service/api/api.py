"""The JSON API, /api/v1 (Django Ninja): the routers of api/routers, mounted in one NinjaAPI.

Handlers are thin: they call the actions in grants.actions (and the quote in grants.quoting) and
answer with the shapes of api/schemas.py; api/errors.py turns every refusal into problem+json."""

from __future__ import annotations

from jobgrant.service.api import errors
from jobgrant.service.api.openapi import DocumentedApi
from jobgrant.service.api.query import OneValueEach
from jobgrant.service.api.routers import (
    agreements,
    applications,
    auth,
    budgets,
    burden,
    change_requests,
    claims,
    completion,
    employers,
    intakes,
    kpis,
    participants,
    partners,
    payments,
    quote,
    ranking,
    risk_flags,
)

api = DocumentedApi(
    title="jobgrant API",
    version="1",
    description="The Canada Job Grant service: applications, quotes, decisions and budgets. "
    "Refusals are application/problem+json (RFC 9457) naming each field, in English and French.",
    urls_namespace="api-v1",
    docs_url="/docs",
    openapi_url="/openapi.json",
    parser=OneValueEach(),
)
errors.install(api)
api.add_router("/auth", auth.router)
api.add_router("/employers", employers.router)
api.add_router("/applications", applications.router)
api.add_router("/applications", agreements.router)
api.add_router("/quote", quote.router)
api.add_router("/budgets", budgets.router)
api.add_router("/kpis", kpis.router)
api.add_router("", intakes.router)  # /programs, /intakes, /streams/{id}/intakes
api.add_router("/burden", burden.router)
api.add_router("", participants.router)
api.add_router("", partners.router)  # /partner-requests
api.add_router("", change_requests.router)  # /applications/{id}/change-requests, /change-requests
api.add_router("", claims.router)  # /applications/{id}/claims, /claims
api.add_router("", payments.router)  # /payment-batches, /receivables
api.add_router("", ranking.router)  # /intakes/{id}/ranking, /overrides
api.add_router("", risk_flags.router)  # /risk-flags, /applications/{id}/risk-flags
api.add_router("", completion.router)  # /applications/{id}/completion-report, .../follow-ups
