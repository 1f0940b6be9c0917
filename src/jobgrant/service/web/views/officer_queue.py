"""The program officer's queue: the applications they may act on, filtered, searched and sorted.

Each row says whether the application is eligible (its stored quote) and names every employer
of a consortium. Column headings are sort links (aria-sort on the current one); the filter form
is a GET that works without JavaScript and is enhanced by htmx.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Count, F, OuterRef, Prefetch, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from jobgrant.rules.business_days import calendar
from jobgrant.service.accounts.models import User
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import (
    Application,
    ApplicationEmployer,
    Selection,
    State,
    Stream,
)
from jobgrant.service.language import in_language
from jobgrant.service.web import queue_rows
from jobgrant.service.web.clock_display import due_in
from jobgrant.service.web.forms.officer import DEFAULT_SORT, QUEUE_STATES, SORTS, QueueFilter
from jobgrant.service.web.labels import STATE_LABELS, jurisdiction_name, stream_label
from jobgrant.service.web.pages import error_context, officer_required, query_params

PAGE_SIZE = 50
OPEN_STATES = (State.SUBMITTED, State.RECOMMENDED)
COLUMNS = (
    ("id", gettext_lazy("Application")),
    ("rank", gettext_lazy("Rank")),
    ("employer", gettext_lazy("Employer")),
    ("jurisdiction", gettext_lazy("Jurisdiction")),
    ("stream", gettext_lazy("Stream")),
    ("received", gettext_lazy("Received")),
    ("waiting", gettext_lazy("Days waiting")),
    ("due", gettext_lazy("Decision due")),
    ("state", gettext_lazy("State")),
    ("government", gettext_lazy("Government share")),
)
NUMERIC_COLUMNS = ("id", "rank", "waiting", "government")
#: Where a file of no ranking sorts in the rank order: after every ranked one.
UNRANKED = 2**31 - 1


def _stream_choices() -> list[tuple[str, str]]:
    """The streams by name: every jurisdiction's "Canada Job Grant" is one choice, and a stream
    of its own (Ontario's ranked selection) another. By code they were all one: every stream
    that draws on a jurisdiction's grant budget has the budget's code, CJG."""
    names: dict[str, str] = {}
    for name_en, name_fr in Stream.objects.values_list("name_en", "name_fr"):
        names.setdefault(name_en, in_language(en=name_en, fr=name_fr))
    return sorted(names.items(), key=lambda choice: choice[1])


def actionable(user: User) -> QuerySet[Application]:
    """What the officer may act on: their files, past the draft, with no conflict of interest."""
    return (
        access.visible_applications(user)
        .exclude(state=State.DRAFT)
        .exclude(employers__employer__in=user.employers.all())
    )


def searched(found: QuerySet[Application], words: str) -> QuerySet[Application]:
    """Applications whose number, an employer's name or an employer's business number match.

    A business number is compared without its spaces and hyphens, as the registry keeps it."""
    if not words:
        return found
    matches = Q(employers__employer__name__icontains=words)
    digits = re.sub(r"[\s-]", "", words)
    if digits.isdigit():
        matches |= Q(employers__employer__business_number__startswith=digits)
        if len(digits) < 10:
            matches |= Q(pk=int(digits))
    return found.filter(pk__in=found.filter(matches).values("pk"))


def filtered(user: User, chosen: dict[str, Any], today: dt.date) -> QuerySet[Application]:
    """Every filter but the state (the counts by state are taken before it)."""
    found = searched(actionable(user), chosen["search"])
    if chosen["jurisdiction"]:
        found = found.filter(jurisdiction=chosen["jurisdiction"])
    if chosen["stream"]:
        found = found.filter(stream__name_en=chosen["stream"])
    if chosen["age"]:
        found = found.filter(received_on__lt=today - dt.timedelta(days=int(chosen["age"])))
    if chosen["assigned"] == "me":
        found = found.filter(assigned_to=user)
    elif chosen["assigned"] == "nobody":
        found = found.filter(assigned_to__isnull=True)
    if chosen["due"] == "overdue":
        found = _overdue(found, today)
    return found


def in_state(found: QuerySet[Application], state: str) -> QuerySet[Application]:
    if state == "":
        return found.filter(state__in=OPEN_STATES)
    return found if state == "all" else found.filter(state=state)


def due_first(found: QuerySet[Application]) -> QuerySet[Application]:
    """The files with the day their decision is due (`due_first`), to sort the queue by."""
    return found.annotate(due_first=Coalesce("decide_by", "received_on"))


def _ordering(sort: str) -> list[str]:
    """The fields of a sort key; "-key" is the same order reversed. Every order the queue
    offers is a key of SORTS (one place to add another, as a ranked intake's rank)."""
    fields = SORTS[sort.lstrip("-")]
    if not sort.startswith("-"):
        return list(fields)
    return [f[1:] if f.startswith("-") else f"-{f}" for f in fields]


@require_GET
@officer_required
def queue(request: HttpRequest, user: User) -> HttpResponse:
    form = QueueFilter(request.GET, user, _stream_choices())
    if not form.is_valid():
        context = {"title": _("Applications to review"), "form": form, **error_context(form)}
        return render(request, "web/officer/queue.html", context)
    chosen, today = form.cleaned_data, timezone.localdate()
    found = filtered(user, chosen, today)
    counts = dict(found.order_by().values_list("state").annotate(n=Count("id", distinct=True)))
    sort = chosen["sort"] or default_sort(in_state(found, chosen["state"]))
    rows = (
        _with_columns(in_state(found, chosen["state"]))
        # Only what a row shows: not the request, the quote nor the explanation (decoded for
        # nothing, every row of every page).
        .only(*QUEUE_COLUMNS)
        .order_by(*_ordering(sort))
    )
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    said = queue_rows.words()
    context = {
        "title": _("Applications to review"),
        "form": form,
        "page": page,
        "rows": [queue_rows.row_html(_row(a, today), said) for a in page.object_list],
        "total": page.paginator.count,
        "state_counts": [
            (state, STATE_LABELS[state], counts.get(state, 0)) for state in QUEUE_STATES
        ],
        "open_count": sum(counts.get(s, 0) for s in OPEN_STATES),
        "overdue_count": _overdue(found, today).count(),
        "columns": _sortable_columns(request, sort),
        "page_links": _page_links(request, page),
    }
    return render(request, "web/officer/queue.html", context)


def default_sort(found: QuerySet[Application]) -> str:
    """The order the queue opens in: a ranked intake's order when a file shown is ranked (the
    officers take the files as the ranking put them), else the decision due first."""
    return "rank" if found.filter(intake_rank__isnull=False).exists() else DEFAULT_SORT


def _overdue(found: QuerySet[Application], today: dt.date) -> QuerySet[Application]:
    """The files awaiting a decision past the day it was due."""
    return found.filter(state__in=OPEN_STATES, decide_by__lt=today)


#: The application's columns a row of the queue reads (the others are annotated).
QUEUE_COLUMNS = (
    "id",
    "jurisdiction",
    "stream__code",
    "stream__selection",
    "received_on",
    "decide_by",
    "state",
    "eligible",
)


def _with_columns(found: QuerySet[Application]) -> QuerySet[Application]:
    lead = ApplicationEmployer.objects.filter(application=OuterRef("pk"), position=0)
    partners = (
        ApplicationEmployer.objects.filter(position__gt=0)
        .select_related("employer")
        .only("application_id", "employer__name")
    )
    return (
        due_first(found)
        .select_related("stream")
        .prefetch_related(Prefetch("employers", queryset=partners, to_attr="partners"))
        .annotate(
            lead_name=Subquery(lead.values("employer__name")[:1]),
            assignee_name=F("assigned_to__username"),
            government_cents=F("federal_cents") + F("provincial_cents"),
            rank=F("intake_rank__rank"),
            rank_order=Coalesce(F("intake_rank__rank"), Value(UNRANKED)),
            within_budget=F("intake_rank__within_budget"),
        )
    )


def _row(application: Any, today: dt.date) -> dict[str, Any]:
    return {
        "id": application.pk,
        # Written here, not by a {% url %} and a {% blocktranslate %} on each of 50 rows (a
        # third of the rows' rendering: docs/benchmarks.md, "The crowd").
        "href": reverse("web:officer-review", args=[application.pk]),
        "label": _("Application %(id)s") % {"id": application.pk},
        "employer": application.lead_name or "",
        "partners": [link.employer.name for link in application.partners],
        "jurisdiction": application.jurisdiction,
        "jurisdiction_name": jurisdiction_name(application.jurisdiction),
        # The budget's code, short as the column is; a ranked stream says so, since it shares
        # the code of its jurisdiction's plain stream (the filter names each stream in full).
        "stream": stream_label(application.stream.code),
        "ranked_stream": application.stream.selection == Selection.RANKED,
        "received_on": application.received_on,
        "age": (today - application.received_on).days,
        "state": application.state,
        "state_label": STATE_LABELS.get(application.state, application.state),
        "eligible": application.eligible,
        "government_cents": application.government_cents,
        "assignee": application.assignee_name or "",
        "rank": application.rank,
        "within_budget": application.within_budget,
        "decide_by": application.decide_by,
        "decision_due": _decision_due(application, today),
    }


def _decision_due(application: Any, today: dt.date) -> dict[str, Any] | None:
    """How long is left to decide a file awaiting a decision, or how late it is; None for a
    decided file, or one from before the due day was stored."""
    if application.state not in OPEN_STATES or application.decide_by is None:
        return None
    return due_in(calendar(application.jurisdiction).between(today, application.decide_by))


def _query(request: HttpRequest, **changes: str) -> str:
    params = {**query_params(request, without=("page",)), **changes}
    return "?" + urlencode({k: v for k, v in params.items() if v})


def _sortable_columns(request: HttpRequest, sort: str) -> list[dict[str, Any]]:
    """Each column heading links to the table sorted by it (again: the other way round)."""
    columns = []
    for key, label in COLUMNS:
        current = sort.lstrip("-") == key
        descending = current and sort.startswith("-")
        target = key if not current or descending else f"-{key}"
        columns.append(
            {
                "key": key,
                "label": label,
                "href": _query(request, sort=target),
                "aria_sort": ("descending" if descending else "ascending") if current else "",
                "numeric": key in NUMERIC_COLUMNS,
            }
        )
    return columns


def _page_links(request: HttpRequest, page: Any) -> dict[str, str]:
    links = {}
    if page.has_previous():
        links["previous"] = _query(request, page=str(page.previous_page_number()))
    if page.has_next():
        links["next"] = _query(request, page=str(page.next_page_number()))
    return links
