"""The rows of the officer's queue, each `<tr>` written here rather than by the template's
two dozen tags and conditions on each of a page's 50 files (ADR 0055): the same HTML, escaped as
the template escaped it (tests/web/test_queue_rows.py holds it to the template it replaced).
`officer_queue._row` gives each row's values."""

from __future__ import annotations

from typing import Any

from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from jobgrant.service.web.clock_display import days_left_html
from jobgrant.service.web.templatetags.jobgrant import longdate, money, number


def words() -> dict[str, str]:
    """The words every row may show, in the page's language, translated once a page."""
    return {
        "with": _("With:"),
        "nobody": _("Nobody"),
        "eligible": _("Eligible"),
        "not_eligible": _("Not eligible"),
        "below_cut_off": _("Below the cut-off"),
        "not_ranked": _("Not ranked"),
        "ranked_selection": _("ranked selection"),
    }


def row_html(row: dict[str, Any], said: dict[str, str]) -> SafeString:
    """One file's `<tr>`; `said` is `words()`. Each value is escaped as `{{ }}` escapes it
    (`conditional_escape`: what is already safe HTML is kept)."""
    pk = row["id"]
    assignee = _e(row["assignee"]) if row["assignee"] else _hint(said["nobody"])
    eligibility = (
        _e(said["eligible"]) if row["eligible"] else f"<strong>{_e(said['not_eligible'])}</strong>"
    )
    return mark_safe(  # every value above escaped
        f'\n      <tr>\n        <td class="jg-num"><a href="{_e(row["href"])}" id="open-{pk}">'
        f"{_e(row['label'])}</a></td>"
        f'\n        <td class="jg-num" id="rank-{pk}">{_rank(row, said)}</td>'
        f"\n        <td>{_employer(row, said)}</td>"
        f'\n        <td><abbr title="{_e(row["jurisdiction_name"])}">{_e(row["jurisdiction"])}'
        "</abbr></td>"
        f"\n        <td>{_stream(row, said)}</td>"
        f"\n        <td>{_e(longdate(row['received_on']))}</td>"
        f'\n        <td class="jg-num">{_e(number(row["age"]))}</td>'
        f'\n        <td id="due-{pk}">{_due(row)}</td>'
        f"\n        <td>{_e(row['state_label'])}</td>"
        f'\n        <td class="jg-num">{_e(money(row["government_cents"]))}</td>'
        f'\n        <td id="assignee-{pk}">{assignee}</td>'
        f'\n        <td id="eligibility-{pk}">{eligibility}</td>'
        "\n      </tr>\n    "
    )


def _e(value: Any) -> str:
    return str(conditional_escape(value))


def _hint(text: str) -> str:
    return f'<span class="jg-hint">{_e(text)}</span>'


def _rank(row: dict[str, Any], said: dict[str, str]) -> str:
    if not row["rank"]:
        return _hint(said["not_ranked"])
    below = "" if row["within_budget"] else f"<br>{_hint(said['below_cut_off'])}"
    return f"{_e(number(row['rank']))}{below}"


def _employer(row: dict[str, Any], said: dict[str, str]) -> str:
    if not row["partners"]:
        return _e(row["employer"])
    partners = ", ".join(_e(name) for name in row["partners"])
    with_ = _e(said["with"])
    return f'{_e(row["employer"])}<br><span class="jg-hint">{with_} {partners}</span>'


def _stream(row: dict[str, Any], said: dict[str, str]) -> str:
    ranked = f"<br>{_e(said['ranked_selection'])}" if row["ranked_stream"] else ""
    return f"{_e(row['stream'])}{ranked}"


def _due(row: dict[str, Any]) -> str:
    decide_by = _e(longdate(row["decide_by"])) if row["decide_by"] else "—"
    due = f"<br>{days_left_html(row['decision_due'])}" if row["decision_due"] else ""
    return f"{decide_by}{due}"
