"""Programs, streams and intakes: read by every staff role, created, changed, closed and ranked by
a program manager of the jurisdiction (or the administrator), through grants/intakes."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Path, Query, Router

from jobgrant.rules.codes import JURISDICTION_CODES
from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import STAFF_ROLES, User
from jobgrant.service.api.bodies import json_object
from jobgrant.service.api.idempotency import idempotent
from jobgrant.service.api.intake_schemas import (
    CloseIntakeBody,
    IntakeBody,
    IntakeOut,
    ProgramOut,
    RankIntakeBody,
)
from jobgrant.service.api.openapi import problems, read_by_hand
from jobgrant.service.api.problems import json_response
from jobgrant.service.api.schemas import FISCAL_YEAR, MAX_DATABASE_ID, one_of
from jobgrant.service.api.security import bearer, caller
from jobgrant.service.grants.core import access as core_access
from jobgrant.service.grants.intakes import access
from jobgrant.service.grants.intakes import actions as intake_actions
from jobgrant.service.grants.intakes.ranking_handoff import rank_by_hand
from jobgrant.service.grants.models.applications import Intake, Program
from jobgrant.service.ledger.models import Earmark

router = Router(tags=["programs"], auth=bearer)
Id = Annotated[int, Path(ge=1, le=MAX_DATABASE_ID)]
JurisdictionQuery = Annotated[str | None, Query(pattern=one_of(JURISDICTION_CODES))]
YearQuery = Annotated[str | None, Query(pattern=FISCAL_YEAR)]
WRITES = {200: IntakeOut, **problems(400, 401, 403, 404, 409, 422)}


def _reader(request: HttpRequest) -> User:
    """The caller, if a staff role (403 otherwise, recorded by the API's refusal net)."""
    user = caller(request)
    core_access.require_role(user, *STAFF_ROLES)
    return user


def program_json(program: Program) -> dict[str, Any]:
    return {
        "id": program.pk,
        "jurisdiction": program.jurisdiction,
        "fiscal_year": program.fiscal_year,
        "policy": program.policy,
        "delivery": program.delivery,
        "streams": [
            {
                "id": s.pk,
                "code": s.code,
                "name_en": s.name_en,
                "name_fr": s.name_fr,
                "selection": s.selection,
                "scoring": s.scoring,
            }
            for s in program.streams.order_by("id")
        ],
    }


def intake_json(intake: Intake) -> dict[str, Any]:
    committed = {
        earmark.account.funder: earmark.committed_cents
        for earmark in Earmark.objects.filter(intake=intake).select_related("account")
    }
    program = intake.stream.program
    return {
        "id": intake.pk,
        "stream": intake.stream_id,
        "jurisdiction": program.jurisdiction,
        "fiscal_year": program.fiscal_year,
        "name_en": intake.name_en,
        "name_fr": intake.name_fr,
        "opens_on": intake.opens_on.isoformat(),
        "closes_on": intake.closes_on.isoformat(),
        "state": intake.state,
        "federal_budget": format_amount(intake.federal_budget_cents),
        "provincial_budget": format_amount(intake.provincial_budget_cents),
        "federal_committed": format_amount(committed.get("federal", 0)),
        "provincial_committed": format_amount(committed.get("provincial", 0)),
        "closed_on": intake.closed_on.isoformat() if intake.closed_on else None,
        "closing_reason": intake.closing_reason,
    }


@router.get("/programs", response={200: list[ProgramOut], **problems(401, 403, 422)})
def list_programs(
    request: HttpRequest, jurisdiction: JurisdictionQuery = None, fiscal_year: YearQuery = None
) -> HttpResponse:
    """The programs by jurisdiction and fiscal year, with their streams (staff roles)."""
    programs = access.visible_programs(_reader(request)).prefetch_related("streams")
    if jurisdiction:
        programs = programs.filter(jurisdiction=jurisdiction)
    if fiscal_year:
        programs = programs.filter(fiscal_year=fiscal_year)
    return json_response([program_json(p) for p in programs])


@router.get("/intakes", response={200: list[IntakeOut], **problems(401, 403, 422)})
def list_intakes(
    request: HttpRequest, jurisdiction: JurisdictionQuery = None, fiscal_year: YearQuery = None
) -> HttpResponse:
    """The intakes, with their windows, states, budgets and what their files committed."""
    intakes = access.visible_intakes(_reader(request)).order_by("opens_on", "id")
    if jurisdiction:
        intakes = intakes.filter(stream__program__jurisdiction=jurisdiction)
    if fiscal_year:
        intakes = intakes.filter(stream__program__fiscal_year=fiscal_year)
    return json_response([intake_json(i) for i in intakes])


@router.get("/intakes/{intake_id}", response={200: IntakeOut, **problems(401, 403, 404, 422)})
def get_intake(request: HttpRequest, intake_id: Id) -> HttpResponse:
    """One intake (staff roles; 404 for anyone else)."""
    return json_response(intake_json(access.get_visible_intake(_reader(request), intake_id)))


@router.post(
    "/streams/{stream_id}/intakes", response=WRITES, openapi_extra=read_by_hand(IntakeBody)
)
def create_intake(request: HttpRequest, stream_id: Id) -> HttpResponse:
    """A new intake of the stream, its budget per funder taken from the jurisdiction's budget
    accounts by the ledger (422 naming the field when the account does not hold it, or when its
    window overlaps another of the stream's)."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        stream = access.get_visible_stream(user, stream_id)
        return json_response(intake_json(intake_actions.create_intake(user, stream, body)))

    return idempotent(request, user, work)


@router.put("/intakes/{intake_id}", response=WRITES, openapi_extra=read_by_hand(IntakeBody))
def update_intake(request: HttpRequest, intake_id: Id) -> HttpResponse:
    """Change an intake that has not opened yet (409 once it has)."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        intake = access.get_visible_intake(user, intake_id)
        return json_response(intake_json(intake_actions.change_intake(user, intake, body)))

    return idempotent(request, user, work)


@router.post(
    "/intakes/{intake_id}/close", response=WRITES, openapi_extra=read_by_hand(CloseIntakeBody)
)
def close_intake(request: HttpRequest, intake_id: Id) -> HttpResponse:
    """Close a scheduled or open intake before its date, with a reason (it cannot be undone)."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        intake = access.get_visible_intake(user, intake_id)
        closed = intake_actions.close_intake(user, intake, body.get("reason"))
        return json_response(intake_json(closed))

    return idempotent(request, user, work)


@router.post(
    "/intakes/{intake_id}/rank", response=WRITES, openapi_extra=read_by_hand(RankIntakeBody)
)
def rank_intake(request: HttpRequest, intake_id: Id) -> HttpResponse:
    """Rank a closed intake of a ranked stream now, as the worker does when it closes (for an
    intake the worker has not ranked yet, or whose ranking failed): a program manager of the
    jurisdiction or the administrator. 409 when the intake is not closed, is ranked already, or
    its stream ranks nothing; 422 unless the body confirms it ({"confirm": true}): it cannot
    be undone. The ranks are at GET /intakes/{intake_id}/ranking."""
    user = caller(request)

    def work() -> HttpResponse:
        body = json_object(request)
        intake = access.get_visible_intake(user, intake_id)
        rank_by_hand(user, intake, confirmed=body.get("confirm"))
        return json_response(intake_json(Intake.objects.get(pk=intake.pk)))

    return idempotent(request, user, work)
