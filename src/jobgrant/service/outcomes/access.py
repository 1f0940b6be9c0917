"""Who may read the KPIs, of which jurisdiction, and whether suppressed.

Analysts, finance and auditors read every jurisdiction and Canada. Officers are scoped as their
files are (`grants.access.visible_applications`): a provincial officer reads their own
jurisdiction; a federal officer reads their jurisdiction if they have one, else any (federal-
direct files are anywhere) and Canada. Employers and staff administrators are refused. Everyone
but an auditor reads the suppressed figures: an auditor checks the records behind them. Only an
analyst asks for the stored figures to be computed again now.
"""

from __future__ import annotations

from django.db import transaction

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.audit.actions import audited_refusals_of
from jobgrant.service.audit.chain import record
from jobgrant.service.outcomes import burden, evaluation_export, snapshot_actions, snapshots
from jobgrant.service.outcomes.replay import Replay, replay
from jobgrant.service.outcomes.report import source
from jobgrant.service.outcomes.tables import KpiReport
from jobgrant.service.refusals import forbidden_for, refused

KPI_READERS = (Role.ANALYST, Role.OFFICER, Role.FINANCE, Role.AUDITOR)


def may_read(user: User, jurisdiction: str | None) -> bool:
    if user.role not in KPI_READERS:
        return False
    if user.role != Role.OFFICER:
        return True
    if user.federal and not user.jurisdiction:
        return True
    return jurisdiction is not None and jurisdiction == user.jurisdiction


def default_jurisdiction(user: User) -> str | None:
    """What a reader's page opens on: an officer's own jurisdiction, else Canada."""
    return user.jurisdiction or None if user.role == Role.OFFICER else None


def sees_unsuppressed(user: User) -> bool:
    return user.role == Role.AUDITOR


def _refuse_unless_reader(user: User, jurisdiction: str | None) -> None:
    if user.role not in KPI_READERS:
        raise forbidden_for("ROLE_NOT_ALLOWED")
    if not may_read(user, jurisdiction):
        raise forbidden_for("NOT_YOUR_JURISDICTION")


@audited_refusals_of("kpis")
def read_kpis(user: User, jurisdiction: str | None, fiscal_year: str) -> KpiReport:
    """The KPIs `user` may read, suppressed unless they are an auditor; 403 (audited) else."""
    _refuse_unless_reader(user, jurisdiction)
    return snapshots.read(jurisdiction, fiscal_year, suppress=not sees_unsuppressed(user))


@audited_refusals_of("kpis")
def read_annual_report(user: User, jurisdiction: str | None, fiscal_year: str) -> KpiReport:
    """The published (suppressed) report of a jurisdiction (None: Canada) for a reader of its
    KPIs; 403 (audited) else, as `read_kpis`."""
    _refuse_unless_reader(user, jurisdiction)
    return source.annual_report(jurisdiction, fiscal_year)


@audited_refusals_of("kpis", action="refresh_kpis")
def refresh_kpis(user: User, jurisdiction: str | None, fiscal_year: str) -> int:
    """An analyst's "Refresh now": hand the scope's stored cells to the worker to compute again
    (audited); how many jurisdictions. 403 (audited) for anyone else."""
    if user.role != Role.ANALYST:
        raise forbidden_for("ROLE_NOT_ALLOWED")
    return snapshot_actions.ask_for_refresh(user, jurisdiction, fiscal_year)


@audited_refusals_of("kpis", action="read_burden")
def read_burden(user: User, jurisdiction: str | None, fiscal_year: str) -> KpiReport:
    """The burden on employers (time per step, steps sent back, the fields in error) for a
    reader of the KPIs of that scope, suppressed as the KPIs are; 403 (audited) else."""
    _refuse_unless_reader(user, jurisdiction)
    return burden.compute(jurisdiction, fiscal_year, suppressed=not sees_unsuppressed(user))


@audited_refusals_of("evaluation", action="export_evaluation")
def export_evaluation(user: User, fiscal_year: str) -> str:
    """The evaluator's de-identified, linkable CSV of one fiscal year (`evaluation_export`):
    analysts only; audited with the year, the number of people and the key's id (never a
    row). 409 when the service has no evaluation key."""
    if user.role != Role.ANALYST:
        raise forbidden_for("ROLE_NOT_ALLOWED")
    try:
        text, people = evaluation_export.csv_text(fiscal_year)
        key_id = evaluation_export.current_key()[0]
    except evaluation_export.NoEvaluationKey:
        raise refused(409, "NO_EVALUATION_KEY") from None
    summary = {"fiscal_year": fiscal_year, "people": people, "key": key_id}
    with transaction.atomic():
        record(user.username, "evaluation.export", "evaluation", fiscal_year, summary)
    return text


@audited_refusals_of("intake")
def replay_intake(user: User, intake_id: int, policy: str) -> Replay:
    """A closed intake replayed under another policy, for an analyst; 403 (audited) for anyone
    else, and 404 or 422 (audited) for an intake or a policy that cannot be replayed."""
    if user.role != Role.ANALYST:
        raise forbidden_for("ROLE_NOT_ALLOWED")
    return replay(intake_id, policy)
