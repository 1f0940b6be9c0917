"""A change request as the pages show it: each changed field before and after, and the money.

The diff is stored as the service wrote it (`training.start_date`, `trainees[1]`,
`trainees[0].costs.tuition`, values as the request has them); here each row gets its label and
its values written for people, in the page's language. Nothing here writes to the database.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext as _

from jobgrant.rules.batch import COST_CATEGORIES
from jobgrant.rules.money import AmountError, parse_amount
from jobgrant.service.grants.models.applications import Application
from jobgrant.service.grants.models.changes import ChangeKind, ChangeRequest, ChangeState
from jobgrant.service.web import labels
from jobgrant.service.web.labels import Labels
from jobgrant.service.web.templatetags.jobgrant import longdate, money

CHANGE_KIND_LABELS = Labels(ChangeKind)
CHANGE_STATE_LABELS = Labels(ChangeState)
_TRAINEE = re.compile(r"^trainees\[(\d+)\]$")
_COST = re.compile(r"^trainees\[(\d+)\]\.costs\.(\w+)$")


def employer_names(application: Application) -> dict[str, str]:
    """Each employer's name by the reference the application's trainees use."""
    links = application.employers.select_related("employer").order_by("position")
    return {link.reference: link.employer.name for link in links}


def trainee_text(trainee: Any, names: dict[str, str]) -> str:
    """A trainee in one line: employer, status and costs."""
    if not isinstance(trainee, dict):
        return ""
    found = trainee.get("costs")
    costs: dict[str, Any] = found if isinstance(found, dict) else {}
    total = sum(_cents(costs.get(category)) for category in COST_CATEGORIES)
    status = labels.status_labels().get(str(trainee.get("status")), str(trainee.get("status")))
    employer = names.get(str(trainee.get("employer_id")), str(trainee.get("employer_id")))
    return _("%(employer)s, %(status)s, %(costs)s in costs") % {
        "employer": employer,
        "status": status,
        "costs": money(total),
    }


def trainee_choices(request: dict[str, Any], names: dict[str, str]) -> list[tuple[str, str]]:
    """The agreement's trainees as a form offers them: ("0", "Trainee 1: …")."""
    trainees = request.get("trainees") if isinstance(request.get("trainees"), list) else []
    return [
        (
            str(index),
            _("Trainee %(number)s: %(who)s") % {"number": index + 1, "who": trainee_text(t, names)},
        )
        for index, t in enumerate(trainees or [])
    ]


def trainee_names(request: dict[str, Any]) -> list[tuple[int, str]]:
    trainees = request.get("trainees") if isinstance(request.get("trainees"), list) else []
    return [
        (index, _("Trainee %(number)s") % {"number": index + 1})
        for index in range(len(trainees or []))
    ]


def diff_rows(diff: list[dict[str, Any]], names: dict[str, str]) -> list[dict[str, str]]:
    """One row per changed field: what it is, before and after (a dash where there is none)."""
    return [_row(entry, names) for entry in diff]


def field_label(path: str) -> str:
    """What a changed field is, in words ("Training end date" for `training.end_date`)."""
    return _row({"field": path}, {})["label"]


def _row(entry: dict[str, Any], names: dict[str, str]) -> dict[str, str]:
    path, before, after = str(entry.get("field")), entry.get("before"), entry.get("after")
    fixed: dict[str, tuple[str, Callable[[Any], str]]] = {
        "training.start_date": (_("Training start date"), longdate),
        "training.end_date": (_("Training end date"), longdate),
        "training.provider.name": (_("Training provider"), str),
        "training.provider.third_party": (_("Third-party provider"), _yes_no),
    }
    if path in fixed:
        label, show = fixed[path]
        return _shown(
            label,
            show(before) if before is not None else "",
            show(after) if after is not None else "",
        )
    cost = _COST.match(path)
    if cost:
        what = labels.cost_labels().get(cost[2], cost[2])
        label = _("Trainee %(number)s: %(cost)s") % {"number": int(cost[1]) + 1, "cost": what}
        return _shown(label, money(_cents(before)), money(_cents(after)))
    trainee = _TRAINEE.match(path)
    change = str(entry.get("change") or "")
    if trainee:
        number = int(trainee[1]) + 1
        label = {
            "remove": _("Trainee %(number)s removed"),
            "replace": _("Trainee %(number)s replaced"),
        }.get(change, _("Trainee %(number)s")) % {"number": number}
    else:
        label = _("Trainee added")
    return _shown(label, trainee_text(before, names), trainee_text(after, names))


def _shown(label: str, before: str, after: str) -> dict[str, str]:
    return {"label": label, "before": before or "—", "after": after or "—"}


def _yes_no(value: object) -> str:
    return _("Yes") if value is True else _("No")


def _cents(value: object) -> int:
    try:
        return parse_amount(value)
    except AmountError:
        return 0


def figure_rows(figures: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
    """The money before and after, per funder and for the employer."""
    before, after = figures.get("before", {}), figures.get("after", {})
    rows = [
        ("federal", _("Federal share")),
        ("provincial", _("Provincial or territorial share")),
        ("employer", _("Employer share")),
    ]
    shown = [
        {
            "key": key,
            "label": label,
            "before": money(int(before.get(key, 0))),
            "after": money(int(after.get(key, 0))),
            "changed": before.get(key) != after.get(key),
        }
        for key, label in rows
    ]
    government = [
        sum(int(side.get(k, 0)) for k in ("federal", "provincial")) for side in (before, after)
    ]
    shown.insert(
        2,
        {
            "key": "government",
            "label": _("Government share"),
            "before": money(government[0]),
            "after": money(government[1]),
            "changed": government[0] != government[1],
        },
    )
    return shown


def change_summary(change: ChangeRequest, names: dict[str, str]) -> dict[str, Any]:
    """Everything the change's pages show, in the page's language."""
    return {
        "change": change,
        "kind_label": labels.label(CHANGE_KIND_LABELS, change.kind),
        "state_label": labels.label(CHANGE_STATE_LABELS, change.state),
        "rows": diff_rows(change.diff, names),
        "figures": figure_rows(change.figures),
        "version_number": change.version.number if change.version else None,
    }
