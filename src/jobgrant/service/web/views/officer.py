"""The program officer's pages: the queue, and the review of one application with its decision.

Thin views: applications are read through grants.access and changed only through grants.actions
(recommend, approve, deny). A refusal (separation of duties, conflict of interest, budget,
eligibility, a decision already taken) is explained on the review page and nothing is written.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.core.paginator import Paginator
from django.db.models import Count, F, OuterRef, QuerySet, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from jobgrant.service import refusals
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants import access, actions
from jobgrant.service.grants.models import Application, ApplicationEmployer, State, Stream
from jobgrant.service.grants.workflow import TRANSITIONS
from jobgrant.service.language import in_language, localized
from jobgrant.service.web import explanations
from jobgrant.service.web.labels import (
    DELIVERY_LABELS,
    STATE_LABELS,
    jurisdiction_choices,
    jurisdiction_name,
)
from jobgrant.service.web.pages import (
    error_context,
    query_params,
    role_required,
    set_choices,
    set_notice,
    take_notice,
)

PAGE_SIZE = 50
OPEN_STATES = (State.SUBMITTED, State.RECOMMENDED)
QUEUE_STATES = (State.SUBMITTED, State.RECOMMENDED, State.APPROVED, State.DENIED, State.WITHDRAWN)
AGES = (7, 14, 30)
DECISIONS = ("recommend", "approve", "deny")
MAX_TEXT = 4000
SORTS = {
    "id": ("id",),
    "employer": ("lead_name", "id"),
    "jurisdiction": ("jurisdiction", "id"),
    "stream": ("stream__code", "id"),
    "received": ("received_on", "id"),
    "state": ("state", "id"),
    "government": ("government_cents", "id"),
}
COLUMNS = (
    ("id", gettext_lazy("Application")),
    ("employer", gettext_lazy("Employer")),
    ("jurisdiction", gettext_lazy("Jurisdiction")),
    ("stream", gettext_lazy("Stream")),
    ("received", gettext_lazy("Received")),
    ("state", gettext_lazy("State")),
    ("government", gettext_lazy("Government share")),
)


class QueueFilter(forms.Form):
    state = forms.ChoiceField(label=gettext_lazy("State"), required=False)
    jurisdiction = forms.ChoiceField(label=gettext_lazy("Jurisdiction"), required=False)
    stream = forms.ChoiceField(label=gettext_lazy("Stream"), required=False)
    age = forms.ChoiceField(label=gettext_lazy("Days since received"), required=False)
    sort = forms.ChoiceField(required=False, widget=forms.HiddenInput)

    def __init__(self, data: Any, user: User, streams: list[tuple[str, str]]) -> None:
        super().__init__(data)
        states: list[tuple[str, str]] = [("", _("Awaiting a decision")), ("all", _("Any state"))]
        states += [(s, str(STATE_LABELS[s])) for s in QUEUE_STATES]
        set_choices(self, "state", states)
        codes = _jurisdictions_of(user)
        set_choices(self, "jurisdiction", [("", _("All jurisdictions")), *(
            (code, name) for code, name in jurisdiction_choices() if code in codes
        )])  # fmt: skip
        set_choices(self, "stream", [("", _("All streams")), *streams])
        set_choices(self, "age", [("", _("Any")), *(
            (str(days), _("More than %(days)s days") % {"days": days}) for days in AGES
        )])  # fmt: skip
        sorts = [(key, key) for key in SORTS] + [(f"-{key}", key) for key in SORTS]
        set_choices(self, "sort", [("", ""), *sorts])


def _jurisdictions_of(user: User) -> set[str]:
    if user.jurisdiction:
        return {user.jurisdiction}
    return {code for code, _name in jurisdiction_choices()}


def _stream_choices() -> list[tuple[str, str]]:
    names: dict[str, str] = {}
    for code, name_en, name_fr in Stream.objects.values_list("code", "name_en", "name_fr"):
        names.setdefault(code, in_language(en=name_en, fr=name_fr))
    return sorted(names.items())


def actionable(user: User) -> QuerySet[Application]:
    """What the officer may act on: their files, past the draft, with no conflict of interest."""
    return (
        access.visible_applications(user)
        .exclude(state=State.DRAFT)
        .exclude(employers__employer__in=user.employers.all())
    )


@require_GET
@role_required(Role.OFFICER)
def queue(request: HttpRequest) -> HttpResponse:
    user = request.user
    assert isinstance(user, User)
    form = QueueFilter(request.GET, user, _stream_choices())
    if not form.is_valid():
        context = {"title": _("Applications to review"), "form": form, **error_context(form)}
        return render(request, "web/officer/queue.html", context)
    chosen = form.cleaned_data
    found = actionable(user)
    if chosen["jurisdiction"]:
        found = found.filter(jurisdiction=chosen["jurisdiction"])
    if chosen["stream"]:
        found = found.filter(stream__code=chosen["stream"])
    today = timezone.localdate()
    if chosen["age"]:
        found = found.filter(received_on__lt=today - dt.timedelta(days=int(chosen["age"])))
    counts = dict(found.order_by().values_list("state").annotate(n=Count("id", distinct=True)))
    if chosen["state"] == "":
        found = found.filter(state__in=OPEN_STATES)
    elif chosen["state"] != "all":
        found = found.filter(state=chosen["state"])
    sort = chosen["sort"] or "received"
    rows = _with_columns(found).order_by(
        *(f"-{f}" if sort.startswith("-") else f for f in SORTS[sort.lstrip("-")])
    )
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "title": _("Applications to review"),
        "form": form,
        "page": page,
        "rows": [_row(a, today) for a in page.object_list],
        "total": page.paginator.count,
        "state_counts": [
            (state, STATE_LABELS[state], counts.get(state, 0)) for state in QUEUE_STATES
        ],
        "open_count": sum(counts.get(s, 0) for s in OPEN_STATES),
        "columns": _sortable_columns(request, sort),
        "page_links": _page_links(request, page),
    }
    return render(request, "web/officer/queue.html", context)


def _with_columns(found: QuerySet[Application]) -> QuerySet[Application]:
    lead = ApplicationEmployer.objects.filter(application=OuterRef("pk"), position=0)
    return found.select_related("stream").annotate(
        lead_name=Subquery(lead.values("employer__name")[:1]),
        government_cents=F("federal_cents") + F("provincial_cents"),
    )


def _row(application: Any, today: dt.date) -> dict[str, Any]:
    return {
        "id": application.pk,
        "employer": application.lead_name or "",
        "jurisdiction": application.jurisdiction,
        "jurisdiction_name": jurisdiction_name(application.jurisdiction),
        "stream": application.stream.code,
        "received_on": application.received_on,
        "age": (today - application.received_on).days,
        "state": application.state,
        "state_label": STATE_LABELS.get(application.state, application.state),
        "government_cents": application.government_cents,
    }


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
        columns.append({
            "key": key, "label": label, "href": _query(request, sort=target),
            "aria_sort": ("descending" if descending else "ascending") if current else "",
            "numeric": key in ("id", "government"),
        })  # fmt: skip
    return columns


def _page_links(request: HttpRequest, page: Any) -> dict[str, str]:
    links = {}
    if page.has_previous():
        links["previous"] = _query(request, page=str(page.previous_page_number()))
    if page.has_next():
        links["next"] = _query(request, page=str(page.next_page_number()))
    return links


class DecisionForm(forms.Form):
    note = forms.CharField(
        label=gettext_lazy("Note"),
        help_text=gettext_lazy("Optional. Kept in the application's history with your decision."),
        required=False,
        max_length=MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class DenyForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason for the denial"),
        help_text=gettext_lazy("The applicant will read this reason."),
        max_length=MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": gettext_lazy("Enter the reason for the denial.")},
    )


def _application(request: HttpRequest, application_id: int) -> Application:
    user = request.user
    assert isinstance(user, User)
    try:
        return access.get_visible(user, application_id)
    except ServiceError:
        raise Http404 from None


@require_GET
@role_required(Role.OFFICER)
def review(request: HttpRequest, application_id: int) -> HttpResponse:
    application = _application(request, application_id)
    return _render_review(request, application, DecisionForm(), DenyForm())


def _render_review(
    request: HttpRequest,
    application: Application,
    decision_form: DecisionForm,
    deny_form: DenyForm,
    *,
    refusal: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    user = request.user
    assert isinstance(user, User)
    possible = [a for a in DECISIONS if application.state in TRANSITIONS[a].sources]
    errors = deny_form if deny_form.errors else decision_form
    context = {
        "title": _("Application %(id)s") % {"id": application.pk},
        "application": application,
        "state_label": STATE_LABELS.get(application.state, application.state),
        "delivery_label": DELIVERY_LABELS.get(application.delivery, application.delivery),
        "jurisdiction_label": jurisdiction_name(application.jurisdiction),
        "employers": list(application.employers.select_related("employer")),
        "groups": explanations.groups(application),
        "employer_rows": explanations.employer_rows(application),
        "eligibility": explanations.eligibility(application),
        "history": [
            {
                **vars(change),
                "actor_name": change.actor.username,
                "from_label": STATE_LABELS.get(change.from_state, change.from_state),
                "to_label": STATE_LABELS.get(change.to_state, change.to_state),
            }
            for change in application.history.select_related("actor")
        ],
        "possible": possible,
        "you_recommended": application.recommended_by_id == user.pk,
        "decision_form": decision_form,
        "deny_form": deny_form,
        "form": errors,
        **error_context(errors),
        "refusal": refusal,
        "notice": _notice_text(take_notice(request), application),
    }
    return render(request, "web/officer/review.html", context, status=status)


def _notice_text(notice: dict[str, Any] | None, application: Application) -> str:
    if not notice or notice.get("application") != application.pk:
        return ""
    return {
        "recommend": _("You recommended application %(id)s. Another officer must approve it."),
        "approve": _(
            "You approved application %(id)s. The government shares are committed against "
            "the budgets."
        ),
        "deny": _("You denied application %(id)s."),
    }.get(str(notice.get("kind")), "") % {"id": application.pk}


@require_http_methods(["GET", "POST"])
@role_required(Role.OFFICER)
def decide(request: HttpRequest, application_id: int) -> HttpResponse:
    """Recommend, approve or deny, through the actions; then back to the review (PRG).

    A GET (the language toggle of a page answered here, or a reload) goes to the review."""
    user = request.user
    assert isinstance(user, User)
    application = _application(request, application_id)
    if request.method != "POST":
        return redirect(reverse("web:officer-review", args=[application.pk]))
    action = request.POST.get("action", "")
    is_deny = action == "deny"
    decision_form = DecisionForm(None if is_deny else request.POST)
    deny_form = DenyForm(request.POST if is_deny else None)
    form: forms.Form = deny_form if is_deny else decision_form
    if action not in DECISIONS:
        unknown = {"title": _("Choose a decision"),
                   "text": _("Use one of the buttons: recommend, approve or deny.")}  # fmt: skip
        return _render_review(
            request, application, decision_form, deny_form, refusal=unknown, status=400
        )
    if not form.is_valid():
        return _render_review(request, application, decision_form, deny_form, status=422)
    try:
        if action == "recommend":
            actions.recommend_application(user, application, form.cleaned_data["note"])
        elif action == "approve":
            actions.approve_application(user, application, form.cleaned_data["note"])
        else:
            actions.deny_application(user, application, form.cleaned_data["reason"])
    except ServiceError as error:
        if error.status == 404:
            raise Http404 from None
        for found in error.problems:
            name = found.get("field", "")
            message = localized(found)
            form.add_error(name if name in form.fields else None, message)
        application.refresh_from_db()
        refusal = None if error.problems else refusal_of(error)
        return _render_review(request, application, decision_form, deny_form,
                              refusal=refusal, status=error.status)  # fmt: skip
    set_notice(request, action, application=application.pk)
    return redirect(reverse("web:officer-review", args=[application.pk]))


def refusal_of(error: ServiceError) -> dict[str, Any]:
    """A refusal in plain words, in the page's language (worded once, in `service.refusals`);
    an approval refused for eligibility also lists the rules the application no longer meets."""
    refusal: dict[str, Any] = refusals.shown(error)
    if error.code == "NOT_ELIGIBLE":
        codes = error.extra.get("reasons")
        listed = codes if isinstance(codes, list) else []
        refusal["reasons"] = [explanations.reason_text(str(code)) for code in listed]
    return refusal
