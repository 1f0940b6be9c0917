"""Ranked intakes: the ranking, decisions against it (overrides) and their report.

    GET  /intakes/{intake_id}/ranking            program managers, administrators, auditors,
                                                 the officers of the intake's files
    GET  /intakes/{intake_id}/out-of-rank        the same readers: each decision against the
                                                 ranking, its reason and its two signatories
    POST /applications/{application_id}/override an officer who may decide the file ({reason})
    GET  /overrides/{override_id}                whoever reads the intake
    POST /overrides/{override_id}/sign-off | /refuse   a program manager or an administrator

Handlers are thin: grants.ranking does the work (and refuses). Every POST takes an
Idempotency-Key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Path, Router

from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import User
from jobgrant.service.api.bodies import json_object, text_field
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.ranking_schemas import (
    AnswerBody,
    OutOfRankOut,
    OverrideBody,
    OverrideOut,
    RankingOut,
)
from jobgrant.service.api.schemas import MAX_DATABASE_ID
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.api.visibility import actor_name
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.ranking import IntakeRank, OverrideDecision, RankOverride
from jobgrant.service.grants.ranking import access as ranking_access
from jobgrant.service.grants.ranking import actions as ranking_actions
from jobgrant.service.grants.ranking.report import decisions_out_of_rank

router = Router(tags=["ranking"], auth=bearer)
Id = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]


@router.get("/intakes/{intake_id}/ranking", response={200: RankingOut, **problems(401, 404, 422)})
def get_ranking(request: HttpRequest, intake_id: Id) -> HttpResponse:
    """The intake's ranked files in rank order, each with its score and the reason of each
    point; empty before the intake is ranked."""
    user = caller(request)
    intake = ranking_access.get_visible_intake(user, intake_id)
    ranks = IntakeRank.objects.filter(intake=intake).order_by("rank")
    return json_response(
        {
            "intake": intake.pk,
            "state": intake.state,
            "ranked_at": intake.ranked_at.isoformat() if intake.ranked_at else None,
            "ranks": [_rank_json(r) for r in ranks],
        }
    )


def _rank_json(rank: IntakeRank) -> dict[str, Any]:
    return {
        "application": rank.application_id,
        "rank": rank.rank,
        "score": rank.score,
        "within_budget": rank.within_budget,
        "federal_running": format_amount(rank.federal_running_cents),
        "provincial_running": format_amount(rank.provincial_running_cents),
        "points": rank.points,
    }


@router.get(
    "/intakes/{intake_id}/out-of-rank",
    response={200: list[OutOfRankOut], **problems(401, 404, 422)},
)
def get_out_of_rank(request: HttpRequest, intake_id: Id) -> HttpResponse:
    """Every decision taken against the intake's ranking, in rank order, with the officer's
    reason and the two signatories."""
    user = caller(request)
    intake = ranking_access.get_visible_intake(user, intake_id)
    rows = decisions_out_of_rank(ranking_access.visible_overrides(user), intake.pk)
    return json_response([asdict(row) for row in rows])


def override_json(override: RankOverride, viewer: User) -> dict[str, Any]:
    return {
        "id": override.pk,
        "application": override.application_id,
        "decision": override.decision,
        "state": override.state,
        "reason": override.reason,
        "requested_by": actor_name(viewer, override.requested_by),
        "requested_at": override.requested_at.isoformat(),
        "signed_off_by": actor_name(viewer, override.signed_off_by),
        "signed_off_at": override.signed_off_at.isoformat() if override.signed_off_at else None,
        "sign_off_note": override.sign_off_note,
    }


@router.post(
    "/applications/{application_id}/override",
    response={201: OverrideOut, **problems(400, 401, 403, 404, 409, 422)},
    openapi_extra=read_by_hand(OverrideBody),
)
def request_override(request: HttpRequest, application_id: Id) -> HttpResponse:
    """Ask to approve the file below its intake's cut-off, or to deny it above (its side of the
    cut-off decides which); a program manager must sign it off before the decision."""
    user = caller(request)

    def work() -> HttpResponse:
        reason = text_field(json_object(request), "reason")
        application = access.get_visible_application(user, application_id, without=("explanation",))
        rank = IntakeRank.objects.filter(application=application).first()
        below = rank is not None and not rank.within_budget
        decision = OverrideDecision.APPROVE if below else OverrideDecision.DENY
        override = ranking_actions.request_override(user, application, decision, reason)
        fresh = ranking_access.get_visible_override(user, override.pk)
        return json_response(override_json(fresh, user), status=201)

    return idempotent(request, user, work)


@router.get("/overrides/{override_id}", response={200: OverrideOut, **problems(401, 404, 422)})
def get_override(request: HttpRequest, override_id: Id) -> HttpResponse:
    """One override: the decision asked for, its reason, its state and its signatories."""
    user = caller(request)
    return json_response(
        override_json(ranking_access.get_visible_override(user, override_id), user)
    )


Answer = Callable[[User, RankOverride, str], RankOverride]
ANSWERS = {200: OverrideOut, **problems(400, 401, 403, 404, 409, 422)}


@router.post(
    "/overrides/{override_id}/sign-off",
    response=ANSWERS,
    openapi_extra=read_by_hand(AnswerBody, required=False),
)
def sign_off_override(request: HttpRequest, override_id: Id) -> HttpResponse:
    """Sign the override off (a program manager or an administrator, never its requester)."""
    return _answer(request, override_id, ranking_actions.sign_off_override)


@router.post(
    "/overrides/{override_id}/refuse",
    response=ANSWERS,
    openapi_extra=read_by_hand(AnswerBody),
)
def refuse_override(request: HttpRequest, override_id: Id) -> HttpResponse:
    """Refuse the override, with a reason: the decision must follow the ranking."""
    return _answer(request, override_id, ranking_actions.refuse_override)


def _answer(request: HttpRequest, override_id: int, answer: Answer) -> HttpResponse:
    user = caller(request)

    def work() -> HttpResponse:
        reason = text_field(json_object(request), "reason")
        override = ranking_access.get_visible_override(user, override_id)
        answer(user, override, reason)
        return json_response(
            override_json(ranking_access.get_visible_override(user, override_id), user)
        )

    return idempotent(request, user, work)
