"""The risk flags: per intake and per provider, on one file, and clearing one.

Officers read the flags of their files, auditors all of them; an analyst reads the counts only.
Clearing is for an officer who may decide the file (grants/integrity/actions.py)."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Path, Query, Router

from jobgrant.service.api.bodies import json_object
from jobgrant.service.api.flag_schemas import ClearFlagBody, RiskFlagListOut, RiskFlagOut
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import MAX_DATABASE_ID
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.grants.core import access
from jobgrant.service.grants.integrity import access as flag_access
from jobgrant.service.grants.integrity.actions import clear_flag
from jobgrant.service.grants.integrity.listing import listing
from jobgrant.service.grants.integrity.sentences import sentence
from jobgrant.service.grants.models.integrity import RiskFlag
from jobgrant.service.language import in_both_languages

router = Router(tags=["integrity"], auth=bearer)
Id = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]


def flag_json(flag: RiskFlag) -> dict[str, Any]:
    why_en, why_fr = in_both_languages(lambda: sentence(flag))
    return {
        "id": flag.pk,
        "application": flag.application_id,
        "claim": flag.claim_id,
        "kind": flag.kind,
        "subject": flag.subject,
        "state": flag.state,
        "why_en": why_en,
        "why_fr": why_fr,
        "figures": flag.figures,
        "raised_at": flag.raised_at.isoformat(),
        "cleared_by": flag.cleared_by.username if flag.cleared_by else None,
        "cleared_at": flag.cleared_at.isoformat() if flag.cleared_at else None,
        "clear_reason": flag.clear_reason,
    }


@router.get("/risk-flags", response={200: RiskFlagListOut, **problems(401, 404, 422)})
def list_risk_flags(
    request: HttpRequest,
    intake: Annotated[int | None, Query(ge=1, le=MAX_DATABASE_ID)] = None,
    provider: Annotated[str, Query(max_length=120, pattern=r"^[^\x00-\x1f\x7f]*$")] = "",
) -> HttpResponse:
    """The flags of an intake (the files it received) and of a training
    provider (by its name, case and punctuation aside), or of every file: the counts per kind,
    the providers with the most flags, and the flags the caller may read (officers: their
    files; auditors: all; analysts: none, the counts only). 404 for an unknown intake."""
    user = caller(request)
    chosen = flag_access.get_visible_intake(user, intake) if intake else None
    found = listing(user, chosen, provider)
    providers = [
        {"name": p["name"], "total": p["total"], "open": p["open"]} for p in found.providers
    ]
    return json_response(
        {
            "counts": found.counts,
            "providers": providers,
            "total": found.total,
            "flags": [flag_json(flag) for flag in found.flags],
        }
    )


@router.get(
    "/applications/{application_id}/risk-flags",
    response={200: list[RiskFlagOut], **problems(401, 404, 422)},
)
def list_application_risk_flags(request: HttpRequest, application_id: Id) -> HttpResponse:
    """One file's flags, open ones first (404 for a file the caller may not read; an employer
    reads no flag, so their own file answers an empty list)."""
    user = caller(request)
    application = access.get_visible_application(user, application_id, without=("explanation",))
    flags = flag_access.visible_risk_flags(user).filter(application_id=application.pk)
    ordered = sorted(flags, key=lambda f: (f.state != "open", f.pk))
    return json_response([flag_json(flag) for flag in ordered])


@router.post(
    "/risk-flags/{flag_id}/clear",
    response={200: RiskFlagOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(ClearFlagBody),
)
def clear_risk_flag(request: HttpRequest, flag_id: Id) -> HttpResponse:
    """Clear an open flag with what the officer checked (an officer who may decide the file;
    409 when it is not open; 422 without a reason). Audited, as its refusals are."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        flag = flag_access.get_visible_risk_flag(user, flag_id)
        return json_response(flag_json(clear_flag(user, flag, body.get("reason"))))

    return idempotent(request, user, work)
