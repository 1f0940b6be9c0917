"""An application's agreement: read it (JSON, or a PDF in English or French), accept or decline
it (the applicant), withdraw the offer (an officer)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Path, Query, Router

from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import User
from jobgrant.service.api.agreement_schemas import (
    AcceptBody,
    AgreementOut,
    AgreementTransitioned,
    ReasonBody,
)
from jobgrant.service.api.bodies import json_object, text_field
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import MAX_DATABASE_ID
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.agreements import actions as agreement_actions
from jobgrant.service.grants.agreements.access import get_visible_agreement
from jobgrant.service.grants.agreements.pdf import agreement_pdf
from jobgrant.service.grants.models.agreements import Agreement, AgreementVersion

router = Router(tags=["agreements"], auth=bearer)
SHA256 = re.compile("[0-9a-f]{64}")
ApplicationId = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
PDF = {
    "responses": {
        "200": {
            "description": "The agreement's latest version as a PDF.",
            "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
        }
    }
}


def agreement_json(agreement: Agreement, version: AgreementVersion) -> dict[str, Any]:
    pdf = f"/api/v1/applications/{agreement.application_id}/agreement.pdf?lang="
    accepted = None
    if version.accepted_at is not None and version.accepted_by is not None:
        accepted = {
            "signatory": version.signatory_name,
            "title": version.signatory_title,
            "by": version.accepted_by.username,
            "at": version.accepted_at.isoformat(),
            "sha256": version.accepted_sha256,
        }
    return {
        "application": agreement.application_id,
        "state": agreement.state,
        "version": version.number,
        "accept_by": version.accept_by.isoformat(),
        "due": {
            "accept_by": version.accept_by.isoformat(),
            "participants_by": version.participants_by.isoformat(),
            "first_claim_by": version.first_claim_by.isoformat(),
            "completion_report_by": version.completion_report_by.isoformat(),
        },
        "cost_lines": [
            {
                **{k: line[k] for k in ("trainee", "employer_id", "category")},
                "amount": format_amount(line["cents"]),
            }
            for line in version.cost_lines
        ],
        "trainees": [
            {
                "trainee": row["trainee"],
                "employer_id": row["employer_id"],
                "status": row.get("status", ""),
                "eligible_cost": format_amount(row["eligible_cost_cents"]),
                "federal": format_amount(row["federal_cents"]),
                "provincial": format_amount(row["provincial_cents"]),
                "employer": format_amount(row["employer_cents"]),
            }
            for row in version.trainee_shares
        ],
        "shares": {
            "eligible_cost": format_amount(version.eligible_cents),
            "federal": format_amount(version.federal_cents),
            "provincial": format_amount(version.provincial_cents),
            "employer": format_amount(version.employer_cents),
        },
        "schedule": {
            k: str(version.schedule.get(k, ""))
            for k in ("course", "provider", "setting", "start_date", "end_date", "hours")
        },
        "policy": version.policy,
        "policy_version": version.policy_version,
        "sha256": version.content_sha256,
        "accepted": accepted,
        "links": {"pdf_en": pdf + "en", "pdf_fr": pdf + "fr"},
    }


@router.get(
    "/{application_id}/agreement", response={200: AgreementOut, **problems(401, 403, 404, 422)}
)
def get_agreement(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """The agreement of an approved application: its state, latest version, due dates, cost
    lines, shares and hash, with links to its PDF in English and in French."""
    user = caller(request)
    agreement = get_visible_agreement(user, application_id)
    return json_response(agreement_json(agreement, agreement_actions.version_read(user, agreement)))


@router.get(
    "/{application_id}/agreement.pdf",
    response=problems(401, 403, 404, 422),
    openapi_extra=PDF,
)
def get_agreement_pdf(
    request: HttpRequest,
    application_id: ApplicationId,
    lang: Annotated[str, Query(pattern="^(en|fr)$")] = "en",
) -> HttpResponse:
    """The agreement's latest version as a PDF, in English (lang=en) or French (lang=fr)."""
    user = caller(request)
    agreement = get_visible_agreement(user, application_id)
    version = agreement_actions.version_read(user, agreement)
    response = HttpResponse(agreement_pdf(version, lang), content_type="application/pdf")
    name = f"agreement-{agreement.application_id}-v{version.number}-{lang}.pdf"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


Answer = Callable[[User, Agreement, dict[str, Any]], Agreement]
TRANSITIONED = {200: AgreementTransitioned, **problems(400, 401, 403, 404, 409, 422)}


@router.post(
    "/{application_id}/agreement/accept",
    response=TRANSITIONED,
    openapi_extra=read_by_hand(AcceptBody),
)
def accept_agreement(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Accept the agreement offered (the applicant): the signatory's name and title and the
    three confirmations, and the `sha256` of the text read (the agreement's `sha256`);
    refused (409) once the offer has expired, or if the text offered is not that one any more."""
    return _answer(
        request,
        application_id,
        lambda u, a, b: agreement_actions.accept_agreement(
            u,
            a,
            text_field(b, "signatory"),
            text_field(b, "title"),
            _confirmations(b),
            _fingerprint(b),
        ),
    )


@router.post(
    "/{application_id}/agreement/decline",
    response=TRANSITIONED,
    openapi_extra=read_by_hand(ReasonBody),
)
def decline_agreement(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Decline the agreement offered (the applicant), with a reason; its commitment is released."""
    return _answer(
        request,
        application_id,
        lambda u, a, b: agreement_actions.decline_agreement(u, a, text_field(b, "reason")),
    )


@router.post(
    "/{application_id}/agreement/withdraw",
    response=TRANSITIONED,
    openapi_extra=read_by_hand(ReasonBody),
)
def withdraw_offer(request: HttpRequest, application_id: ApplicationId) -> HttpResponse:
    """Withdraw the offer (an officer of the file), with a reason; its commitment is released."""
    return _answer(
        request,
        application_id,
        lambda u, a, b: agreement_actions.withdraw_offer(u, a, text_field(b, "reason")),
    )


def _answer(request: HttpRequest, application_id: int, act: Answer) -> HttpResponse:
    """Answer the offer once per Idempotency-Key; the answer is the agreement's new state."""
    user = caller(request)

    def work() -> HttpResponse:
        fields = json_object(request)
        agreement = get_visible_agreement(user, application_id)
        changed = act(user, agreement, fields)
        return json_response(
            {
                "application": changed.application_id,
                "state": changed.state,
                "version": changed.version,
            }
        )

    return idempotent(request, user, work)


def _fingerprint(body: dict[str, Any]) -> str | None:
    """The `sha256` of the text the caller read, if they give it: 64 lowercase hexadecimal
    digits, else 422 naming the field."""
    if body.get("sha256") is None:
        return None
    value = body["sha256"]
    if not isinstance(value, str) or not SHA256.fullmatch(value):
        raise bad_input(
            [
                problem(
                    "sha256",
                    "must be the agreement's SHA-256 fingerprint: 64 lowercase hexadecimal digits",
                    "doit être l'empreinte SHA-256 de l'entente\u00a0: 64 chiffres hexadécimaux en"
                    " minuscules",
                )
            ]
        )
    return value


def _confirmations(body: dict[str, Any]) -> list[str]:
    given = body.get("confirmations", [])
    return [c for c in given if isinstance(c, str)] if isinstance(given, list) else []
