"""A closed intake of a ranked stream is handed to the ranking (grants/ranking): by the worker
when the intake closes, or by a program manager's hand when the worker has not ranked it yet
or its ranking failed. An intake the ranking refuses (its stream names no known criteria set,
say) stays closed: the refusal is in the audit trail and the log, and the worker goes on with
the other intakes; a person is shown it."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from jobgrant.rules.scoring.criteria import UnknownCriteriaSetError, criteria_set
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError, bad_input, problem
from jobgrant.service.grants.intakes import access
from jobgrant.service.grants.models.applications import Intake
from jobgrant.service.grants.models.ranking import IntakeRank
from jobgrant.service.grants.ranking.actions import budgets, check_rankable, rank_intake
from jobgrant.service.grants.ranking.inputs import rankable

log = logging.getLogger(__name__)
NOT_CONFIRMED = (
    "must be true: a ranking, once made, is never made again",
    "doit être true\u00a0: un classement, une fois établi, ne se refait jamais",
)


def hand_to_ranking(intake: Intake) -> bool:
    """The worker: rank the closed intake; False (logged) when the ranking refuses it."""
    try:
        rank_intake(intake)
    except ServiceError as refusal:
        log.warning("intake %s closed but not ranked: %s", intake.pk, refusal.message_en)
        return False
    return True


def rank_by_hand(user: User, intake: Intake, *, confirmed: object) -> list[IntakeRank]:
    """A program manager of the intake's jurisdiction (or the administrator) ranks it now,
    as the worker would have: the ranking is audited under their name (`intake.rank`). 403
    for anyone else; 409 when the intake is not a closed intake of a ranked stream, or is
    ranked already; 422 unless `confirmed` is True (the page's confirmation, the API's
    `confirm`). Each refusal is audited once (`refused.rank_intake`)."""

    def manager(found: Intake) -> None:
        access.check_manager(user, found.stream.program)
        if confirmed is not True:
            raise bad_input([problem("confirm", *NOT_CONFIRMED)])

    ranks = rank_intake(intake, by=user, allowed=manager)
    log.info("intake %s ranked by hand by %s: %s files", intake.pk, user.username, len(ranks))
    return ranks


@dataclass(frozen=True)
class Waiting:
    """What ranking an intake by hand would do: how many files it puts in order, under which
    criteria (their titles), against which budget per funder (cents)."""

    files: int
    scoring_en: str
    scoring_fr: str
    federal_cents: int
    provincial_cents: int


def waiting(user: User, intake: Intake) -> Waiting:
    """What the confirmation page shows before `rank_by_hand`; the refusal rank_by_hand would
    give (403 or 409), raised, not audited: nothing was asked yet."""
    access.check_manager(user, intake.stream.program)
    check_rankable(intake)
    try:
        criteria = criteria_set(intake.stream.scoring)
        names = criteria.title_en, criteria.title_fr
    except UnknownCriteriaSetError:  # check_rankable refused it already
        names = intake.stream.scoring, intake.stream.scoring
    federal, provincial = budgets(intake)
    return Waiting(len(rankable(intake.pk)), *names, federal, provincial)
