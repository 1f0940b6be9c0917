"""The words of the details that the entries of programs, streams and intakes record, and of
the comparison group their unfunded files join (the auditor's page reads them with the others':
web/audit_entries.py)."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from jobgrant.service.grants.models.applications import IntakeState, Selection
from jobgrant.service.grants.models.comparison import ComparisonSource
from jobgrant.service.grants.models.ranking import OverrideDecision
from jobgrant.service.web.labels import Labels

INTAKE_FIELD_LABELS: dict[str, Promise] = {
    "name_en": gettext_lazy("Name in English"),
    "name_fr": gettext_lazy("Name in French"),
    "intake_state": gettext_lazy("State"),
    "federal_budget_cents": gettext_lazy("Federal budget"),
    "provincial_budget_cents": gettext_lazy("Provincial or territorial budget"),
    "selection": gettext_lazy("Selection"),
    "scoring": gettext_lazy("Scoring criteria"),
    "policy": gettext_lazy("Policy"),
    # the ranking of an intake (grants/ranking)
    "ranked": gettext_lazy("Files ranked"),
    "within_budget": gettext_lazy("Within the budget"),
    "order": gettext_lazy("Order (file, score, within the budget)"),
    # a file joining the comparison group (grants/completion/comparison)
    "source": gettext_lazy("Why the file is compared"),
    # a decision taken against the ranking: the file's rank and the override it applied
    "rank": gettext_lazy("Rank"),
    "override": gettext_lazy("Decision against the ranking"),
}
#: The details whose values are codes, and their labels.
INTAKE_CODED_FIELDS: dict[str, Mapping[str, object]] = {
    "intake_state": Labels(IntakeState),
    "selection": Labels(Selection),
    "source": Labels(ComparisonSource),
    # a decision against the ranking (rank_override.request): approve or deny; a decision's
    # number elsewhere has no label and stays a number
    "decision": Labels(OverrideDecision),
}
