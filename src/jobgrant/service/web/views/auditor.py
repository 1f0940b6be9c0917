"""The auditor's page: the audit trail, filtered and paginated, and the chain's verification.

Verification walks the whole hash chain (audit.chain.verify) when the auditor presses the
button (a POST: it is work, though it writes nothing); the result is shown on the trail page.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Iterator
from typing import Any

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.audit.chain import verify
from jobgrant.service.audit.models import AuditEntry
from jobgrant.service.web.audit_entries import (
    action_label,
    actor_label,
    details,
    object_type_label,
)
from jobgrant.service.web.forms.auditor import TrailFilter
from jobgrant.service.web.pages import (
    auditor_required,
    error_context,
    query_params,
    set_notice,
    take_notice,
)

PAGE_SIZE = 50
CSV_INJECTION = ("=", "+", "-", "@")


def _start_of(day: dt.date) -> dt.datetime:
    """Midnight at the start of `day`, Ottawa time (the page's dates are local)."""
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def entries(chosen: dict[str, Any]) -> QuerySet[AuditEntry]:
    found = AuditEntry.objects.all()
    for name in ("actor", "action", "object_type", "object_id", "sequence"):
        if chosen.get(name) not in (None, ""):
            found = found.filter(**{name: chosen[name]})
    if chosen.get("since"):
        found = found.filter(at__gte=_start_of(chosen["since"]))
    if chosen.get("until") and chosen["until"] < dt.date.max:  # the calendar's last day: no end
        found = found.filter(at__lt=_start_of(chosen["until"] + dt.timedelta(days=1)))
    return found.order_by("-sequence")


@require_GET
@auditor_required
def trail(request: HttpRequest, user: User) -> HttpResponse:
    form = TrailFilter(request.GET)
    context: dict[str, Any] = {
        "title": _("Audit trail"),
        "form": form,
        "verification": _verification_text(take_notice(request)),
    }
    if not form.is_valid():
        context.update(error_context(form))
        return render(request, "web/auditor/trail.html", context)
    page = Paginator(entries(form.cleaned_data), PAGE_SIZE).get_page(request.GET.get("page"))
    context.update(
        {
            "page": page,
            "rows": [_row(entry) for entry in page.object_list],
            "page_links": _page_links(request, page),
            "csv_query": request.META.get("QUERY_STRING", ""),
        }
    )
    return render(request, "web/auditor/trail.html", context)


def _row(entry: AuditEntry) -> dict[str, Any]:
    return {
        "sequence": entry.sequence,
        "at": entry.at,
        "actor": actor_label(entry.actor),
        "action": entry.action,
        "action_label": action_label(entry.action),
        "object_type": object_type_label(entry.object_type),
        "object_id": entry.object_id,
        "details": details(entry),
        "hash": entry.hash,
    }


def csv_cell(value: str) -> str:
    """A cell a spreadsheet will not run as a formula (OWASP CSV injection): quoted with '."""
    return "'" + value if value.startswith(CSV_INJECTION) else value


def csv_line(cells: list[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerow([csv_cell(c) for c in cells])
    return buffer.getvalue()


def _csv_lines(found: QuerySet[AuditEntry]) -> Iterator[str]:
    yield "\ufeff" + csv_line(
        [
            _("Entry"),
            _("When (Ottawa time)"),
            _("Actor"),
            _("Action"),
            _("Object type"),
            _("Object number"),
            _("Details"),
            _("Hash"),
        ]
    )
    for entry in found.iterator(chunk_size=500):
        yield csv_line(
            [
                str(entry.sequence),
                timezone.localtime(entry.at).isoformat(timespec="seconds"),
                actor_label(entry.actor),
                action_label(entry.action),
                object_type_label(entry.object_type),
                entry.object_id,
                "; ".join(
                    _("%(name)s: %(value)s") % {"name": name, "value": value}
                    for name, value in details(entry)
                ),
                entry.hash,
            ]
        )


@require_GET
@auditor_required
def trail_csv(request: HttpRequest, user: User) -> HttpResponse:
    """The entries the filters choose (all of them, not one page), as CSV in the page's
    language: UTF-8 with a BOM, for Excel. Never cached (the role gate)."""
    form = TrailFilter(request.GET)
    if not form.is_valid():
        context = {"title": _("Audit trail"), "form": form, **error_context(form)}
        return render(request, "web/auditor/trail.html", context, status=400)
    response = StreamingHttpResponse(
        (line.encode("utf-8") for line in _csv_lines(entries(form.cleaned_data))),
        content_type="text/csv; charset=utf-8",
    )
    response["Content-Disposition"] = 'attachment; filename="audit-trail.csv"'
    return response  # type: ignore[return-value]


def _page_links(request: HttpRequest, page: Any) -> dict[str, str]:
    params = query_params(request, without=("page",))
    links = {}
    if page.has_previous():
        links["previous"] = "?" + urlencode({**params, "page": page.previous_page_number()})
    if page.has_next():
        links["next"] = "?" + urlencode({**params, "page": page.next_page_number()})
    return links


@require_http_methods(["GET", "POST"])
@auditor_required
def verify_chain(request: HttpRequest, user: User) -> HttpResponse:
    """Walk the whole chain; show the result on the trail page (POST, redirect, GET).

    Only a POST verifies; a GET (a bookmark, a reload) goes to the trail page."""
    if request.method != "POST":
        return redirect(reverse("web:auditor-trail"))
    result = verify()
    set_notice(
        request,
        "verification",
        checked=result.checked,
        first_broken=result.first_broken,
        problem=result.problem,
        at=timezone.now().isoformat(),
    )
    return redirect(reverse("web:auditor-trail") + "#verification")


PROBLEMS = (
    ("added after the chain head", gettext_lazy("an entry was added after the chain's head")),
    ("deleted from the end", gettext_lazy("entries were deleted from the end of the chain")),
    ("inserted", gettext_lazy("an entry was inserted there")),
    ("rewritten", gettext_lazy("an entry was rewritten")),
    ("missing", gettext_lazy("an entry is missing (deleted), or the entries were renumbered")),
    ("moved", gettext_lazy("its previous hash is not the hash of the entry before it (moved)")),
    ("edited", gettext_lazy("its content does not match its hash (edited)")),
    ("not chained to the start", gettext_lazy("the first entry is not chained to the start")),
)


def problem_text(problem: str) -> str:
    """What verify found wrong, said in the page's language."""
    for words, text in PROBLEMS:
        if re.search(re.escape(words), problem):
            return str(text)
    return _("the entry does not match the chain")


def _verification_text(notice: dict[str, Any] | None) -> dict[str, Any] | None:
    if not notice or notice.get("kind") != "verification":
        return None
    checked = int(notice.get("checked") or 0)
    broken = notice.get("first_broken")
    at = dt.datetime.fromisoformat(str(notice["at"])) if notice.get("at") else None
    if broken is None:
        return {"ok": True, "checked": checked, "at": at}
    return {
        "ok": False,
        "checked": checked,
        "first_broken": int(broken),
        "problem": problem_text(str(notice.get("problem") or "")),
        "at": at,
        "entry_href": "?" + urlencode({"sequence": int(broken)}),
    }
