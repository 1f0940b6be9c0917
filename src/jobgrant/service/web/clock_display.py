"""A file's service-standard clocks as the pages show them (web/standards/_clocks.html): each
standard with its number of business days, the day it is due, the business days left or how
late it is, and its result."""

from __future__ import annotations

from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy

from jobgrant.service.grants.applications.service_standards import Standard
from jobgrant.service.outcomes.clocks import Clock

STATUS_LABELS = {
    "met": pgettext_lazy("service standard result", "Met"),
    "missed": pgettext_lazy("service standard result", "Missed"),
    "overdue": pgettext_lazy("service standard result", "Not met: overdue"),
    "running": pgettext_lazy("service standard result", "In progress"),
}


def due_in(left: int) -> dict[str, Any]:
    """Business days left (0: due today), or the business days late when `left` is negative."""
    if left < 0:
        return {"kind": "overdue", "days": -left}
    return {"kind": "today" if left == 0 else "left", "days": left}


def days_left_html(due: dict[str, Any]) -> SafeString:
    """What `due_in` says, as a page shows it (the `days_left` filter): "Overdue by 3 business
    days" in bold, "Due today" in bold, or "12 business days left" as a hint. Written here
    rather than in a template: the queue shows it on every row of 50, where an include and its
    translation cost about 0.1 ms a row (docs/benchmarks.md, "The crowd")."""
    days = due["days"]
    if due["kind"] == "overdue":
        # As {% blocktranslate %} does: the translation as written, the number in it.
        late = ngettext(
            "Overdue by %(days)s business day", "Overdue by %(days)s business days", days
        )
        return format_html("<strong>{}</strong>", mark_safe(late % {"days": days}))
    if due["kind"] == "today":
        return format_html("<strong>{}</strong>", _("Due today"))
    left = ngettext("%(days)s business day left", "%(days)s business days left", days)
    return format_html('<span class="jg-hint">{}</span>', mark_safe(left % {"days": days}))


def _label(clock: Clock) -> str:
    days = clock.terms.business_days
    within = ngettext("within %(days)s business day", "within %(days)s business days", days) % {
        "days": days
    }
    if clock.standard is Standard.PAY and clock.version > 1:
        return _("Pay claim %(number)s, version %(version)s, %(within)s") % {
            "number": clock.claim,
            "version": clock.version,
            "within": within,
        }
    if clock.standard is Standard.PAY:
        return _("Pay claim %(number)s, %(within)s") % {"number": clock.claim, "within": within}
    return f"{clock.label}, {within}"


def _key(clock: Clock) -> str:
    if clock.claim is None:
        return clock.standard.value
    return f"{clock.standard.value}-{clock.claim}-{clock.version}"


def clock_rows(clocks: list[Clock]) -> list[dict[str, Any]]:
    return [
        {
            "key": _key(clock),
            "label": _label(clock),
            "status": clock.status,
            "status_label": STATUS_LABELS[clock.status],
            "started_on": clock.started_on,
            "due_on": clock.due_on,
            "done_on": clock.done_on,
            "due": due_in(clock.days_left) if clock.days_left is not None else None,
            "days_late": clock.days_late,
        }
        for clock in clocks
    ]
