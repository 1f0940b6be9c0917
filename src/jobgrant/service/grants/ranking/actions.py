"""Ranking a closed intake, and asking for, signing off and refusing an override.

Each is one transaction with its audit entry. `rank_intake` is what the worker calls when a
ranked stream's intake closes; a ranking is made once (the intake is then "ranked", and ranking
it again is refused): a file's place never moves under the officers' feet.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import transaction
from django.utils import timezone

from jobgrant.rules.scoring.criteria import UnknownCriteriaSetError, criteria_set
from jobgrant.rules.scoring.ranking import rank_order, within_budget
from jobgrant.rules.scoring.score import score
from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.audit.codes import WORKER
from jobgrant.service.grants.core.input import ReasonRule, checked_reason
from jobgrant.service.grants.models.applications import (
    Application,
    Intake,
    IntakeState,
    Selection,
    State,
)
from jobgrant.service.grants.models.ranking import (
    IntakeRank,
    OverrideDecision,
    OverrideState,
    RankOverride,
)
from jobgrant.service.grants.ranking import access
from jobgrant.service.grants.ranking.inputs import rankable, scoring_inputs, submission_instants
from jobgrant.service.grants.ranking.refusals import refused, side_of
from jobgrant.service.language import current_language, long_date
from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.refusals import illegal_transition


@dataclass(frozen=True)
class _Worker:
    """The worker, as the first argument of an audited action (it has no account)."""

    username: str = WORKER
    is_authenticated: bool = True


def rank_intake(
    intake: Intake, by: User | None = None, allowed: Callable[[Intake], None] | None = None
) -> list[IntakeRank]:
    """Rank a closed intake of a ranked stream (the worker's call, or a person's). `allowed`:
    the caller's check of who may (it raises its refusal), run first, so that its refusal is
    audited once, as the ranking's own are."""
    return _rank(by or _Worker(), intake, allowed)


@audited_refusals_of("intake", action="rank_intake")
def _rank(by: Any, intake: Intake, allowed: Callable[[Intake], None] | None) -> list[IntakeRank]:
    if allowed is not None:
        allowed(intake)
    with transaction.atomic():
        intake = (
            Intake.objects.select_for_update().select_related("stream__program").get(pk=intake.pk)
        )
        check_rankable(intake)
        applications = rankable(intake.pk)
        ranks = _ranks(intake, applications)
        IntakeRank.objects.bulk_create(ranks)
        intake.state, intake.ranked_at = IntakeState.RANKED, timezone.now()
        intake.save(update_fields=["state", "ranked_at"])
        record(by.username, "intake.rank", "intake", intake.pk, _summary(intake, ranks))
    return ranks


def check_rankable(intake: Intake) -> None:
    """409 unless the intake is a closed intake of a ranked stream, not ranked yet, whose
    stream names a known criteria set (a page asks before it offers to rank)."""
    if intake.state == IntakeState.RANKED:
        ranked_on = intake.ranked_at or timezone.now()
        raise refused(
            409,
            "INTAKE_ALREADY_RANKED",
            lambda: {"date": long_date(timezone.localdate(ranked_on), current_language())},
            extra={"state": intake.state},
        )
    ranked = intake.stream.selection == Selection.RANKED
    if intake.state != IntakeState.CLOSED or not ranked:
        state = IntakeState(intake.state)
        raise refused(
            409,
            "INTAKE_NOT_RANKABLE",
            lambda: {"state": state.label},
            extra={"state": intake.state},
        )
    try:
        criteria_set(intake.stream.scoring)
    except UnknownCriteriaSetError:
        raise refused(409, "SCORING_UNKNOWN", lambda: {"scoring": intake.stream.scoring}) from None


def _ranks(intake: Intake, applications: list[Application]) -> list[IntakeRank]:
    program = intake.stream.program
    scores = score(
        scoring_inputs(applications),
        criteria_set(intake.stream.scoring),
        program.jurisdiction,
        intake.closes_on,
        explain=True,
    )
    order = rank_order(
        scores.total,
        submission_instants(applications),
        np.array([a.pk for a in applications], dtype=np.int64),
    )
    federal = np.array([applications[i].federal_cents for i in order], dtype=np.int64)
    provincial = np.array([applications[i].provincial_cents for i in order], dtype=np.int64)
    fits = within_budget(federal, provincial, *budgets(intake))
    running = zip(np.cumsum(federal).tolist(), np.cumsum(provincial).tolist(), strict=True)
    return [
        IntakeRank(
            intake=intake,
            application=applications[int(row)],
            rank=place + 1,
            score=int(scores.total[row]),
            points={step["criterion"]: step for step in scores.explanations[int(row)]},
            within_budget=bool(fits[place]),
            federal_running_cents=federal_total,
            provincial_running_cents=provincial_total,
        )
        for place, (row, (federal_total, provincial_total)) in enumerate(
            zip(order, running, strict=True)
        )
    ]


def budgets(intake: Intake) -> tuple[int, int]:
    """What the intake may commit per funder: its own budget, or, where it has none for a
    funder (zero), what that funder's budget account still has available."""
    program = intake.stream.program
    own: dict[str, int] = {
        Funder.FEDERAL: intake.federal_budget_cents,
        Funder.PROVINCIAL: intake.provincial_budget_cents,
    }

    def of(funder: str) -> int:
        if own[funder]:
            return own[funder]
        account = BudgetAccount.objects.filter(
            funder=funder,
            jurisdiction=program.jurisdiction,
            fiscal_year=program.fiscal_year,
            stream=intake.stream.code,
        ).first()
        return account.available_cents if account else 0

    return of(Funder.FEDERAL), of(Funder.PROVINCIAL)


def _summary(intake: Intake, ranks: list[IntakeRank]) -> dict[str, Any]:
    federal, provincial = budgets(intake)
    return {
        "scoring": intake.stream.scoring,
        "ranked": len(ranks),
        "within_budget": sum(1 for r in ranks if r.within_budget),
        "federal_budget_cents": federal,
        "provincial_budget_cents": provincial,
        # The order itself: file, score, above the cut-off.
        "order": [[r.application.pk, r.score, r.within_budget] for r in ranks],
    }


#: Why an officer asks to decide against the ranking, and why a sign-off is refused.
OVERRIDE_REASON = ReasonRule(
    4000,
    missing=(
        "is required: say why the decision goes against the ranking",
        "est obligatoire : dites pourquoi la décision va à l'encontre du classement",
    ),
)


@audited_refusals_of("application", action="request_override")
def request_override(
    user: User, application: Application, decision: str, reason: str
) -> RankOverride:
    """An officer asks to approve a file below the cut-off, or to deny one above it."""
    access.check_requester(user, application)
    why = checked_reason(reason, OVERRIDE_REASON)
    wanted = OverrideDecision(decision)
    with transaction.atomic():
        locked = Application.objects.select_for_update().get(pk=application.pk)
        rank = _against_rank(locked, wanted)
        _check_none_open(locked)
        override = RankOverride.objects.create(
            application=locked,
            decision=wanted,
            reason=why,
            requested_by=user,
            requested_at=timezone.now(),
        )
        record(
            user.username,
            "rank_override.request",
            "rankoverride",
            override.pk,
            {
                "application": locked.pk,
                "decision": wanted.value,
                "reason": why,
                "rank": rank.rank,
                "within_budget": rank.within_budget,
            },
        )
    return override


def _against_rank(application: Application, wanted: OverrideDecision) -> IntakeRank:
    """The file's rank, refused unless `wanted` goes against it while a decision is possible."""
    if application.state not in (State.SUBMITTED, State.RECOMMENDED):
        raise illegal_transition(wanted.value, application.state, State(application.state).label)
    rank = IntakeRank.objects.filter(application=application).first()
    if rank is None:
        raise refused(409, "NOT_RANKED")
    if (wanted == OverrideDecision.APPROVE) != (not rank.within_budget):
        raise refused(409, "IN_RANK", lambda: {"rank": rank.rank, "side": side_of(rank)})
    return rank


def _check_none_open(application: Application) -> None:
    open_one = RankOverride.objects.filter(
        application=application, state__in=(OverrideState.REQUESTED, OverrideState.SIGNED_OFF)
    ).first()
    if open_one is not None:
        raise refused(409, "OVERRIDE_ALREADY_OPEN", lambda: {"id": open_one.pk})


@audited_refusals_of("rankoverride", action="sign_off_override")
def sign_off_override(user: User, override: RankOverride, note: str = "") -> RankOverride:
    """The second signature: a program manager or an administrator agrees to the override."""
    return _settle(user, override, OverrideState.SIGNED_OFF, note.strip() if note else "")


@audited_refusals_of("rankoverride", action="refuse_override")
def refuse_override(user: User, override: RankOverride, reason: str) -> RankOverride:
    """The second person does not agree: the decision must follow the ranking."""
    why = checked_reason(reason, OVERRIDE_REASON)
    return _settle(user, override, OverrideState.REFUSED, why)


def _settle(user: User, override: RankOverride, state: OverrideState, note: str) -> RankOverride:
    access.check_signatory(user, override)
    with transaction.atomic():
        locked = RankOverride.objects.select_for_update().get(pk=override.pk)
        if locked.state != OverrideState.REQUESTED:
            current = OverrideState(locked.state)
            raise refused(
                409,
                "OVERRIDE_NOT_AWAITING",
                lambda: {"state": current.label},
                extra={"state": locked.state},
            )
        locked.state, locked.signed_off_by, locked.signed_off_at = state, user, timezone.now()
        locked.sign_off_note = note
        locked.save(update_fields=["state", "signed_off_by", "signed_off_at", "sign_off_note"])
        action = (
            "rank_override.sign_off"
            if state == OverrideState.SIGNED_OFF
            else "rank_override.refuse"
        )
        record(
            user.username,
            action,
            "rankoverride",
            locked.pk,
            {
                "application": locked.application_id,
                "decision": locked.decision,
                "requested_by": locked.requested_by.username,
                "note": note,
            },
        )
    return locked
