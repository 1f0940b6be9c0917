"""Every change to programs, streams and intakes: each one transaction with its audit entry.

An intake's budget per funder is an earmark on the jurisdiction's budget account, taken and
given back by the ledger (`ledger.operations.set_earmark`): the database decides whether the
account holds it (ADR 0048). The windows of one stream never overlap: the stream's row is
locked while a window is checked and written, so two program managers cannot both place one.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils import timezone

from jobgrant.rules.evaluate import default_library
from jobgrant.rules.money import format_amount
from jobgrant.service.accounts.models import User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.audit.codes import WORKER
from jobgrant.service.errors import bad_input, problem
from jobgrant.service.grants.intakes import access, workflow
from jobgrant.service.grants.intakes.input import (
    IntakeInput,
    checked_closing_reason,
    checked_intake,
)
from jobgrant.service.grants.intakes.ranking_handoff import hand_to_ranking
from jobgrant.service.grants.intakes.scoring import scoring_sets
from jobgrant.service.grants.models.applications import (
    Application,
    Intake,
    IntakeState,
    Selection,
    Stream,
)
from jobgrant.service.ledger import operations
from jobgrant.service.ledger.models import BudgetAccount, Funder
from jobgrant.service.refusals import refused

BUDGET_FIELDS = {Funder.FEDERAL: "federal_budget", Funder.PROVINCIAL: "provincial_budget"}


# --- Intakes ----------------------------------------------------------------------------


@audited_refusals_of("stream", action="intake.create")
def create_intake(user: User, stream: Stream, data: dict[str, Any]) -> Intake:
    """A new intake of `stream`, scheduled (or open, from today), with its budget earmarked."""
    access.check_manager(user, stream.program)
    typed = checked_intake(data, stream.program.fiscal_year)
    with transaction.atomic():
        Stream.objects.select_for_update().filter(pk=stream.pk).first()  # one window at a time
        _refuse_bad_window(stream, typed, None)
        intake = Intake.objects.create(
            stream=stream,
            name_en=typed.name_en,
            name_fr=typed.name_fr,
            opens_on=typed.opens_on,
            closes_on=typed.closes_on,
            state=_state_on(typed.opens_on),
        )
        _set_budgets(intake, typed, user.username)
        record(user.username, "intake.create", "intake", intake.pk, _summary(intake))
    return intake


@audited_refusals_of("intake", action="intake.change")
def change_intake(user: User, intake: Intake, data: dict[str, Any]) -> Intake:
    """Change a scheduled intake's names, window and budget (409 once it has opened)."""
    stream = intake.stream
    access.check_manager(user, stream.program)
    typed = checked_intake(data, stream.program.fiscal_year)
    with transaction.atomic():
        Stream.objects.select_for_update().filter(pk=stream.pk).first()
        locked = Intake.objects.select_for_update().get(pk=intake.pk)
        workflow.move(locked, "change")
        _refuse_bad_window(stream, typed, locked.pk)
        before = _summary(locked)
        locked.name_en, locked.name_fr = typed.name_en, typed.name_fr
        locked.opens_on, locked.closes_on = typed.opens_on, typed.closes_on
        locked.state = _state_on(typed.opens_on)
        locked.save()
        _set_budgets(locked, typed, user.username)
        record(
            user.username,
            "intake.change",
            "intake",
            locked.pk,
            {"before": before, **_summary(locked)},
        )
    return locked


@audited_refusals_of("intake", action="intake.close")
def close_intake(user: User, intake: Intake, reason: object) -> Intake:
    """Close a scheduled or open intake before its date, for a reason: it receives no more
    applications. A ranked stream's intake is then ranked by the worker."""
    access.check_manager(user, intake.stream.program)
    why = checked_closing_reason(reason)
    with transaction.atomic():
        locked = Intake.objects.select_for_update().get(pk=intake.pk)
        locked.state = workflow.move(locked, "close")
        locked.closed_on, locked.closing_reason = timezone.localdate(), why
        locked.save(update_fields=["state", "closed_on", "closing_reason"])
        record(
            user.username, "intake.close", "intake", locked.pk, {**_summary(locked), "reason": why}
        )
    return locked


def _state_on(opens_on: dt.date) -> str:
    return IntakeState.OPEN if opens_on <= timezone.localdate() else IntakeState.SCHEDULED


def _refuse_bad_window(stream: Stream, typed: IntakeInput, own: int | None) -> None:
    """422 for a window that opens in the past or overlaps another of the stream's."""
    problems = []
    if typed.opens_on < timezone.localdate():
        problems.append(
            problem(
                "opens_on",
                "must be today or later: an intake does not open in the past",
                "doit être aujourd'hui ou plus tard\u00a0: un appel ne s'ouvre pas dans le passé",
            )
        )
    others = stream.intakes.exclude(pk__in=[own] if own else []).filter(
        opens_on__lte=typed.closes_on, closes_on__gte=typed.opens_on
    )
    for other in others.order_by("opens_on"):
        problems.append(
            problem(
                "opens_on",
                f"the window overlaps the intake “{other.name_en}” ({other.opens_on} to"
                f" {other.closes_on}): the windows of one stream never overlap",
                f"la période chevauche celle de l'appel «\u00a0{other.name_fr}\u00a0»"
                f" (du {other.opens_on} au {other.closes_on})\u00a0: les périodes d'un même"
                " volet ne se chevauchent pas",
            )
        )
    if problems:
        raise bad_input(problems)


def _set_budgets(intake: Intake, typed: IntakeInput, actor: str) -> None:
    """Earmark each funder's budget on the jurisdiction's account: the ledger decides; a
    refusal names the field (422), and the caller's transaction rolls back."""
    wanted = {
        Funder.FEDERAL: typed.federal_budget_cents,
        Funder.PROVINCIAL: typed.provincial_budget_cents,
    }
    problems = []
    for funder, cents in wanted.items():
        found = _earmark_problem(intake, str(funder), cents, actor)
        if found:
            problems.append(found)
    if problems:
        raise bad_input(problems)
    Intake.objects.filter(pk=intake.pk).update(
        federal_budget_cents=wanted[Funder.FEDERAL],
        provincial_budget_cents=wanted[Funder.PROVINCIAL],
    )
    intake.federal_budget_cents = wanted[Funder.FEDERAL]
    intake.provincial_budget_cents = wanted[Funder.PROVINCIAL]


def _earmark_problem(intake: Intake, funder: str, cents: int, actor: str) -> dict[str, str] | None:
    program = intake.stream.program
    account = BudgetAccount.objects.filter(
        funder=funder,
        jurisdiction=program.jurisdiction,
        fiscal_year=program.fiscal_year,
        stream=intake.stream.code,
    ).first()
    field = BUDGET_FIELDS[Funder(funder)]
    if account is None:
        if not cents:
            return None
        return problem(
            field,
            f"cannot be set: there is no such budget account in {program.fiscal_year}",
            "ne peut être fixé\u00a0: il n'existe pas de tel compte budgétaire en"
            f" {program.fiscal_year}",
        )
    if not cents and not account.earmarks.filter(intake=intake).exists():
        return None
    try:
        with transaction.atomic():
            operations.set_earmark(intake.pk, account, cents, actor=actor)
    except operations.InsufficientBudget as short:
        left = format_amount(short.account.available_cents)
        return problem(
            field,
            f"is more than the budget account holds: {left} $ is available in it",
            f"dépasse ce que contient le compte budgétaire\u00a0: {left} $ y est disponible",
        )
    except operations.EarmarkBelowCommitted as below:
        spent = format_amount(below.earmark.committed_cents)
        return problem(
            field,
            f"is less than what this intake's files already committed: {spent} $",
            f"est inférieur à ce que les dossiers de cet appel ont déjà engagé\u00a0: {spent} $",
        )
    return None


def _summary(intake: Intake) -> dict[str, Any]:
    return {
        "name_en": intake.name_en,
        "name_fr": intake.name_fr,
        "opens_on": intake.opens_on.isoformat(),
        "closes_on": intake.closes_on.isoformat(),
        "intake_state": intake.state,
        "federal_budget_cents": intake.federal_budget_cents,
        "provincial_budget_cents": intake.provincial_budget_cents,
    }


# --- A stream's rules --------------------------------------------------------------------


@audited_refusals_of("stream", action="stream.change")
def change_stream(user: User, stream: Stream, data: dict[str, Any]) -> Stream:
    """Change a stream's selection and scoring set, and its program's policy. The selection
    stays while an intake of the stream is open or waits to be ranked (409); the policy once
    the program has applications (409)."""
    program = stream.program
    access.check_manager(user, program)
    selection, scoring, policy = _checked_rules(data, program.policy)
    with transaction.atomic():
        locked = Stream.objects.select_for_update().select_related("program").get(pk=stream.pk)
        if (selection, scoring) != (locked.selection, locked.scoring) and _in_use(locked):
            raise refused(409, "STREAM_IN_USE")
        if policy != program.policy:
            if Application.objects.filter(stream__program=program).exists():
                raise refused(409, "POLICY_IN_USE")
            type(program).objects.filter(pk=program.pk).update(policy=policy)
            locked.program.policy = policy
        before = {
            "selection": locked.selection,
            "scoring": locked.scoring,
            "policy": program.policy,
        }
        locked.selection, locked.scoring = selection, scoring
        locked.save(update_fields=["selection", "scoring"])
        after = {"selection": selection, "scoring": scoring, "policy": policy}
        record(user.username, "stream.change", "stream", locked.pk, {"before": before, **after})
    return locked


def _in_use(stream: Stream) -> bool:
    return stream.intakes.filter(
        state__in=[IntakeState.OPEN, IntakeState.CLOSED], ranked_at__isnull=True
    ).exists()


def policy_names() -> list[str]:
    """The policies of the rules kernel's library a program may use."""
    return sorted(default_library().policies)


def _checked_rules(data: dict[str, Any], current_policy: str) -> tuple[str, str, str]:
    problems = []
    selection = str(data.get("selection") or "")
    if selection not in Selection.values:
        problems.append(
            problem(
                "selection",
                "must be first come or ranked",
                "doit être «\u00a0premier arrivé\u00a0» ou «\u00a0classé\u00a0»",
            )
        )
    scoring = str(data.get("scoring") or "")
    sets = scoring_sets()
    if selection != Selection.RANKED:
        scoring = ""
    elif scoring and scoring not in sets:
        problems.append(
            problem(
                "scoring",
                "is not a scoring criteria set of the rules kernel",
                "n'est pas un ensemble de critères de pointage du noyau de règles",
            )
        )
    elif sets and not scoring:
        problems.append(
            problem(
                "scoring", "is required for a ranked stream", "est obligatoire pour un volet classé"
            )
        )
    policy = str(data.get("policy") or current_policy)
    if policy not in policy_names():
        problems.append(
            problem(
                "policy",
                "is not a policy of the rules kernel",
                "n'est pas une politique du noyau de règles",
            )
        )
    if problems:
        raise bad_input(problems)
    return selection, scoring, policy


# --- The worker: opening and closing at the dates ---------------------------------------------


def open_and_close_due(today: dt.date | None = None) -> dict[str, list[int]]:
    """Close the intakes whose window has passed, open those whose window holds today, and hand
    each closed intake of a ranked stream not yet ranked to the ranking. Idempotent, and safe in
    two workers at once (each intake is taken with a row lock, skipping one another holds)."""
    day = today or timezone.localdate()
    due_to_close = Intake.objects.filter(
        state__in=[IntakeState.SCHEDULED, IntakeState.OPEN], closes_on__lt=day
    )
    closed = [i for i in due_to_close.values_list("pk", flat=True) if _worker_move(i, "close")]
    due_to_open = Intake.objects.filter(
        state=IntakeState.SCHEDULED, opens_on__lte=day, closes_on__gte=day
    )
    opened = [i for i in due_to_open.values_list("pk", flat=True) if _worker_move(i, "open")]
    ranked = [intake.pk for intake in _waiting_for_ranking() if hand_to_ranking(intake)]
    return {"closed": closed, "opened": opened, "ranked": ranked}


def _worker_move(intake_id: int, action: str) -> bool:
    sources, target = workflow.TRANSITIONS[action]
    with transaction.atomic():
        intake = (
            Intake.objects.select_for_update(skip_locked=True)
            .filter(pk=intake_id, state__in=sources)
            .first()
        )
        if intake is None:
            return False  # another worker moved it, or a person did
        intake.state = target
        if action == "close":
            intake.closed_on = intake.closes_on
        intake.save(update_fields=["state", "closed_on"])
        record(
            WORKER,
            f"intake.{action}",
            "intake",
            intake.pk,
            _summary(intake),
        )
    return True


def _waiting_for_ranking() -> list[Intake]:
    return list(
        Intake.objects.filter(
            state=IntakeState.CLOSED, stream__selection=Selection.RANKED, ranked_at__isnull=True
        ).select_related("stream__program")
    )
