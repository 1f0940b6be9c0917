"""The employer's pages: dashboard, the step-by-step application with its live quote, an
application's detail, and withdrawal.

Views stay thin: employer_forms checks what was typed and builds the payload; reads go through
grants.access and changes through grants.actions. Until the applicant submits, the application
lives in the session only; nothing is written to the application tables.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from jobgrant.rules.money import AmountError
from jobgrant.service.accounts.models import Role, User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants import access, actions
from jobgrant.service.grants.models import Application
from jobgrant.service.grants.workflow import TRANSITIONS
from jobgrant.service.registry.identifiers import normalize_business_number
from jobgrant.service.registry.models import Employer
from jobgrant.service.web import labels
from jobgrant.service.web.forms import employer as forms
from jobgrant.service.web.forms.employer import Problems, control

P = ParamSpec("P")
STEP_URLS = {
    "organizations": "web:employer-apply-organizations",
    "training": "web:employer-apply-training",
    "trainees": "web:employer-apply-trainees",
    "review": "web:employer-apply-review",
}
WITHDRAWABLE = TRANSITIONS["withdraw"].sources


def employer_only(
    view: Callable[Concatenate[HttpRequest, User, P], HttpResponse],
) -> Callable[Concatenate[HttpRequest, P], HttpResponse]:
    """Signed in, as an employer: the view gets the user as its second argument. The pages
    hold an organization's business, so browsers and proxies must not keep them (no-store)."""

    def wrapper(request: HttpRequest, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        user = request.user
        if not isinstance(user, User) or user.role != Role.EMPLOYER:
            raise PermissionDenied
        return view(request, user, *args, **kwargs)

    wrapper.__name__, wrapper.__doc__ = view.__name__, view.__doc__
    return login_required(never_cache(wrapper))


# --- The draft in the session -----------------------------------------------------------------


def _draft(request: HttpRequest) -> dict[str, Any]:
    draft = request.session.get(forms.SESSION_KEY)
    return draft if isinstance(draft, dict) else {}


def _save(request: HttpRequest, step: str, raw: Any) -> None:
    draft = _draft(request)
    draft[step] = raw
    request.session[forms.SESSION_KEY] = draft


def _checked(request: HttpRequest, user: User) -> forms.Checked:
    return forms.check_draft(
        _draft(request), access.employers_acted_for(user), timezone.localdate()
    )


def _gate(checked: forms.Checked, step: str) -> HttpResponse | None:
    """Back to the first step still to complete, when `step` comes after it."""
    first = checked.first_incomplete
    if first is not None and forms.STEPS.index(first) < forms.STEPS.index(step):
        return redirect(reverse(STEP_URLS[first]) + "?check=1")
    return None


def _page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    problems: Problems | None = None,
    *,
    hrefs: dict[str, str] | None = None,
) -> HttpResponse:
    problems = problems or Problems()
    links = forms.error_links(problems, href=hrefs)
    context = {
        **context,
        "problems": problems,
        "error_links": links,
        "error_links_json": json.dumps(dict(links), ensure_ascii=False),
    }
    return render(request, template, context, status=422 if problems else 200)


def _removed(request: HttpRequest, name: str, rows: list[Any]) -> bool:
    """Drop the row a "Remove" button named; True when one was pressed."""
    index = request.POST.get(name)
    if index is None:
        return False
    position = forms.small_index(index)
    if position is not None and position < len(rows):
        rows.pop(position)
    return True


def _try_quote(
    checked: forms.Checked, rows: list[forms.TraineeRow] | None
) -> tuple[dict[str, Any] | None, Problems]:
    """The kernel's quote of the draft with these trainees, or the problems it reports."""
    if checked.organizations is None or checked.training is None or not rows:
        return None, Problems()
    body = forms.payload(checked.organizations, checked.training, rows)
    try:
        return forms.preview_quote(body, timezone.localdate()), Problems()
    except ServiceError as error:
        return None, forms.service_problems(error)


def _employers_by_id(organizations: forms.Organizations) -> dict[str, Employer]:
    return {e.business_number: e for e in organizations.all}


# --- Dashboard --------------------------------------------------------------------------------


@employer_only
def dashboard(request: HttpRequest, user: User) -> HttpResponse:
    """The applications of the organizations the user acts for: as applicant, and as partner."""
    mine = set(access.employers_acted_for(user).values_list("pk", flat=True))
    found = access.visible_applications(user).prefetch_related("employers__employer")
    led, partnered = [], []
    for application in found.order_by("-id"):
        links = list(application.employers.all())
        if links and links[0].employer_id in mine:
            led.append(_row(application, links, None))
        else:
            own = {link.reference for link in links if link.employer_id in mine}
            partnered.append(_row(application, links, own))
    return render(request, "web/employer/dashboard.html", {
        "title": _("Your applications"),
        "led": led,
        "partnered": partnered,
        "has_draft": bool(_draft(request)),
        "states": labels.state_labels(),
    })  # fmt: skip


def _row(application: Application, links: list[Any], own: set[str] | None) -> dict[str, Any]:
    """A dashboard row: the application's totals, or (for a partner) its own share only."""
    training = application.request.get("training") if isinstance(application.request, dict) else {}
    figures: dict[str, Any] = {
        "federal": application.federal_cents,
        "provincial": application.provincial_cents,
        "employer": application.employer_cents,
    }
    if own is not None:
        shares = [e for e in application.quote.get("employers", []) if e.get("id") in own]
        figures = {k: sum(forms.parse_money(str(e.get(k, "0"))) for e in shares) for k in figures}
    return {
        "application": application,
        "lead": links[0].employer if links else None,
        "partners": len(links) - 1,
        "state": labels.state_labels().get(application.state, application.state),
        "jurisdiction": labels.jurisdiction_name(application.jurisdiction),
        "start_date": (training or {}).get("start_date", ""),
        **figures,
    }


# --- Step 1: organizations --------------------------------------------------------------------


@employer_only
def apply_start(request: HttpRequest, user: User) -> HttpResponse:
    first = _checked(request, user).first_incomplete or "review"
    return redirect(STEP_URLS[first])


@employer_only
@require_http_methods(["GET", "POST"])
def apply_organizations(request: HttpRequest, user: User) -> HttpResponse:
    acted_for = access.employers_acted_for(user)
    problems, focus = Problems(), ""
    if request.method == "POST":
        raw = forms.read_organizations(request.POST)
        if _removed(request, "remove-partner", raw["partners"]):
            _save(request, "organizations", raw)
            focus = "add-partner"
        elif request.POST.get("action") == "add-partner":
            if len(raw["partners"]) < forms.MAX_PARTNERS:
                raw["partners"].append("")
            _save(request, "organizations", raw)
            focus = f"partner-{len(raw['partners']) - 1}"
        else:
            organizations, problems = forms.check_organizations(raw, acted_for)
            if organizations is not None:
                _save(request, "organizations", forms.cleaned_organizations(organizations))
                return redirect(STEP_URLS["training"])
            _save(request, "organizations", raw)
    else:
        only = list(acted_for[:2])
        default = {"lead": str(only[0].pk) if len(only) == 1 else "", "partners": []}
        raw = _draft(request).get("organizations") or default
        if request.GET.get("check"):
            problems = forms.check_organizations(raw, acted_for)[1]
    partners = []
    for i, typed in enumerate(raw.get("partners") or []):
        key = f"partner-{i}"
        bn = normalize_business_number(typed) if typed else None
        registered = Employer.objects.filter(business_number=bn).first() if bn else None
        field = control(key, forms.field_label(key), typed, problems=problems, hint=_("9 digits"))
        partners.append({**field, "registered": registered, "number": i + 1})
    options = [(str(e.pk), f"{e.name} ({e.business_number})") for e in acted_for]
    lead = control(
        "lead", forms.field_label("lead"), str(raw.get("lead", "")), problems=problems,
        hint=_("The organization that applies and signs the agreement."), options=options,
    )  # fmt: skip
    return _page(request, "web/employer/apply_organizations.html", {
        "title": _("Organizations"),
        "step_number": 1,
        "lead": lead,
        "partners": partners,
        "max_partners": forms.MAX_PARTNERS,
        "focus": focus,
    }, problems)  # fmt: skip


# --- Step 2: training and provider ------------------------------------------------------------


@employer_only
@require_http_methods(["GET", "POST"])
def apply_training(request: HttpRequest, user: User) -> HttpResponse:
    checked = _checked(request, user)
    if (gate := _gate(checked, "training")) is not None:
        return gate
    assert checked.organizations is not None
    jurisdiction = checked.organizations.lead.jurisdiction
    problems = Problems()
    if request.method == "POST":
        raw = forms.read_training(request.POST)
        _save(request, "training", raw)
        if request.POST.get("action") == "back":
            return redirect(STEP_URLS["organizations"])
        training, problems = forms.check_training(raw, jurisdiction, timezone.localdate())
        if training is not None:
            return redirect(STEP_URLS["trainees"])
    else:
        raw = _draft(request).get("training") or {}
        if request.GET.get("check"):
            problems = checked.problems.get("training") or Problems()
    quote, _problems = _try_quote(checked, checked.trainees)
    reasons = forms.place_reasons(quote["reasons"]) if quote else {}
    return _page(request, "web/employer/apply_training.html", {
        "title": _("Training and provider"),
        "step_number": 2,
        "fields": _training_controls(raw, problems, reasons),
    }, problems)  # fmt: skip


def _training_controls(
    raw: dict[str, str], problems: Problems, reasons: dict[str, list[str]]
) -> dict[str, Any]:
    def label(key: str) -> str:
        return forms.field_label(key)

    example = _("For example, %(example)s") % {"example": "2027-01-11"}
    return {
        "setting": control(
            "setting", label("setting"), raw.get("setting", ""), problems=problems,
            options=labels.setting_labels().items(), reason="setting", reasons=reasons,
        ),
        "start_date": control(
            "start_date", label("start_date"), raw.get("start_date", ""), problems=problems,
            hint=_("Training must start after you apply.") + " " + example, reason="start_date",
            reasons=reasons,
        ),
        "end_date": control(
            "end_date", label("end_date"), raw.get("end_date", ""), problems=problems,
            hint=example, reason="end_date", reasons=reasons,
        ),
        "hours": control(
            "hours", label("hours"), raw.get("hours", ""), problems=problems,
            hint=_("Hours of instruction for each trainee."), reason="hours",
            reasons=reasons,
        ),
        "provider_name": control(
            "provider_name", label("provider_name"), raw.get("provider_name", ""),
            problems=problems, hint=_("The college, school or trainer who gives the training."),
        ),
        "third_party": control(
            "third_party", _("Is the trainer a third party, independent of your organization?"),
            raw.get("third_party", ""), problems=problems,
            options=[("yes", _("Yes")), ("no", _("No, the training is given in house"))],
            reason="third_party", reasons=reasons,
        ),
    }  # fmt: skip


# --- Step 3: trainees and costs, with the live quote ------------------------------------------


@employer_only
@require_http_methods(["GET", "POST"])
def apply_trainees(request: HttpRequest, user: User) -> HttpResponse:
    checked = _checked(request, user)
    if (gate := _gate(checked, "trainees")) is not None:
        return gate
    organizations = checked.organizations
    assert organizations is not None
    lead_bn = organizations.lead.business_number
    numbers = [e.business_number for e in organizations.all]
    problems, focus, calculate = Problems(), "", False
    if request.method == "POST":
        rows = forms.read_trainees(request.POST)
        action = request.POST.get("action")
        if _removed(request, "remove-trainee", rows):
            rows = rows or [forms.blank_trainee(lead_bn)]
            focus = "add-trainee"
        elif action == "add-trainee":
            if len(rows) < forms.MAX_TRAINEES:
                rows.append(forms.blank_trainee(lead_bn))
            focus = f"trainee-{len(rows) - 1}-employer"
        elif action == "back":
            _save(request, "trainees", rows)
            return redirect(STEP_URLS["training"])
        else:
            valid, problems = forms.check_trainees(rows, numbers)
            calculate = True
            if valid is not None and action != "calculate":
                _save(request, "trainees", rows)
                return redirect(STEP_URLS["review"])
        _save(request, "trainees", rows)
    else:
        rows = _draft(request).get("trainees") or [forms.blank_trainee(lead_bn)]
        if request.GET.get("check"):
            problems = checked.problems.get("trainees") or Problems()
        calculate = checked.trainees is not None
    quote_context = _live_quote(checked, rows, numbers) if calculate and not problems else {}
    return _page(request, "web/employer/apply_trainees.html", {
        "title": _("Trainees and costs"),
        "step_number": 3,
        "training": checked.training,
        "trainees": _trainee_controls(
            rows, organizations, problems, quote_context.get("reasons") or {}
        ),
        "max_trainees": forms.MAX_TRAINEES,
        "focus": focus,
        **_training_summary(checked),
        **quote_context,
    }, problems)  # fmt: skip


@employer_only
@require_POST
def apply_quote(request: HttpRequest, user: User) -> HttpResponse:
    """The live quote (htmx): the costs form in, the grant's split out, nothing written."""
    checked = _checked(request, user)
    if checked.organizations is None or checked.training is None:
        return render(request, "web/employer/_quote_live.html", {"incomplete": True})
    numbers = [e.business_number for e in checked.organizations.all]
    rows = forms.read_trainees(request.POST)
    context = _live_quote(checked, rows, numbers)
    reasons = context.get("reasons") or {}
    slots = [*forms.REASON_SLOTS, *(f"trainee-{i}" for i in range(len(rows)))]
    context["oob_slots"] = [(slot, reasons.get(slot, [])) for slot in slots]
    return render(request, "web/employer/_quote_live.html", context)


def _live_quote(
    checked: forms.Checked, rows: list[dict[str, str]], numbers: list[str]
) -> dict[str, Any]:
    valid, problems = forms.check_trainees(rows, numbers)
    quote, quote_problems = _try_quote(checked, valid) if valid else (None, problems)
    if quote is None:
        return {"quote_problems": forms.error_links(quote_problems or problems)}
    assert checked.organizations is not None
    tables = forms.quote_tables(
        quote, _employers_by_id(checked.organizations),
        lead_id=checked.organizations.lead.business_number,
    )  # fmt: skip
    return {"quote": quote, **tables}


def _training_summary(checked: forms.Checked) -> dict[str, Any]:
    training = checked.training
    if training is None:
        return {}
    return {
        "setting_label": labels.setting_labels().get(training.setting, training.setting),
        "hours_label": forms.show_hours(training.hours),
    }


def _trainee_controls(
    rows: list[dict[str, str]],
    organizations: forms.Organizations,
    problems: Problems,
    reasons: dict[str, list[str]],
) -> list[dict[str, Any]]:
    employers = [(e.business_number, e.name) for e in organizations.all]
    statuses = list(labels.status_labels().items())
    costs = labels.cost_labels()
    shown = []
    for i, row in enumerate(rows):
        reason = f"trainee-{i}"
        amounts = [
            control(
                f"trainee-{i}-{part}", costs[part], row.get(part, ""), problems=problems,
                reason=reason,
                hint=_("Counted only for small employers, where the program allows it.")
                if part == "wages_in_kind" else "",
            )
            for part in forms.AMOUNTS
        ]  # fmt: skip
        shown.append({
            "index": i,
            "number": i + 1,
            "employer": control(f"trainee-{i}-employer", _("Employer"), row.get("employer", ""),
                                problems=problems, options=employers),
            "status": control(f"trainee-{i}-status", _("Status"), row.get("status", ""),
                              problems=problems, options=statuses),
            "costs": amounts[:4],
            "wages_in_kind": amounts[4],
            "reason_slot": reason,
            "reasons": reasons.get(reason, []),
        })  # fmt: skip
    return shown


# --- Step 4: review and submit ----------------------------------------------------------------


@employer_only
@require_http_methods(["GET", "POST"])
def apply_review(request: HttpRequest, user: User) -> HttpResponse:
    checked = _checked(request, user)
    if (gate := _gate(checked, "review")) is not None:
        return gate
    organizations, training, trainees = checked.organizations, checked.training, checked.trainees
    assert organizations is not None and training is not None and trainees is not None
    body = forms.payload(organizations, training, trainees)
    problems = Problems()
    if request.method == "POST":
        if request.POST.get("confirm") != "yes":
            problems.add("confirm", _("Confirm that the information is true and complete."))
        else:
            try:
                application = actions.create_application(user, body)
                actions.submit_application(user, application)
            except ServiceError as error:
                problems = forms.service_problems(error)
            else:
                request.session.pop(forms.SESSION_KEY, None)
                messages.success(request, _(
                    "Application %(number)s was submitted. An officer will review it."
                ) % {"number": application.pk})  # fmt: skip
                return redirect("web:employer-application", application_id=application.pk)
    quote, quote_problems = _try_quote(checked, trainees)
    problems.extend(quote_problems)
    tables = (
        forms.quote_tables(quote, _employers_by_id(organizations),
                           lead_id=organizations.lead.business_number)
        if quote else {}
    )  # fmt: skip
    hrefs = {key: f"#change-{forms.step_of(key)}" for key, _m in problems.items if key != "confirm"}
    return _page(request, "web/employer/apply_review.html", {
        "title": _("Review and submit"),
        "step_number": 4,
        "organizations": organizations,
        "training": training,
        "trainees": _review_trainees(trainees, organizations),
        "jurisdiction": labels.jurisdiction_name(organizations.lead.jurisdiction),
        "quote": quote,
        "confirm": control("confirm", _("I confirm that the information in this application is "
                                        "true and complete."), problems=problems),
        **_training_summary(checked),
        **tables,
    }, problems, hrefs=hrefs)  # fmt: skip


def _review_trainees(
    trainees: list[forms.TraineeRow], organizations: forms.Organizations
) -> list[dict[str, Any]]:
    names = _employers_by_id(organizations)
    statuses = labels.status_labels()
    return [
        {
            "number": i + 1,
            "employer": names.get(t.employer),
            "status": statuses.get(t.status, t.status),
            "costs": [t.amounts[part] for part in forms.AMOUNTS],
        }
        for i, t in enumerate(trainees)
    ]


@employer_only
@require_POST
def apply_cancel(request: HttpRequest, user: User) -> HttpResponse:
    request.session.pop(forms.SESSION_KEY, None)
    messages.info(request, _("The application you had started was discarded."))
    return redirect("web:employer-dashboard")


# --- An application: detail, submit (drafts made through the API), withdraw ------------------


def _hours(raw: object) -> str:
    try:
        return forms.show_hours(forms.parse_money(str(raw)))
    except AmountError:
        return str(raw)


def _visible(user: User, application_id: int) -> Application:
    try:
        return access.get_visible(user, application_id)
    except ServiceError:
        raise Http404 from None


def _detail_context(user: User, application: Application) -> dict[str, Any]:
    links = list(application.employers.select_related("employer").order_by("position"))
    mine = set(access.employers_acted_for(user).values_list("pk", flat=True))
    by_id = {link.reference: link.employer for link in links}
    lead = links[0] if links else None
    is_applicant = lead is not None and lead.employer_id in mine
    own = None if is_applicant else {link.reference for link in links if link.employer_id in mine}
    request_body = application.request if isinstance(application.request, dict) else {}
    training = request_body.get("training") or {}
    provider = training.get("provider") or {}
    statuses = labels.status_labels()
    states = labels.state_labels()
    trainees = [
        {
            "number": i + 1,
            "employer": by_id.get(t.get("employer_id", "")),
            "status": statuses.get(t.get("status", ""), t.get("status", "")),
        }
        for i, t in enumerate(request_body.get("trainees") or [])
        if own is None or t.get("employer_id") in own
    ]
    history = [
        {
            "at": timezone.localtime(change.at).date(),
            "from": states.get(change.from_state, change.from_state),
            "to": states.get(change.to_state, change.to_state),
        }
        for change in application.history.all()
    ]
    tables = forms.quote_tables(
        application.quote, by_id, lead_id=lead.reference if lead else "", only=own
    )
    return {
        "title": _("Application %(number)s") % {"number": application.pk},
        "application": application,
        "state": states.get(application.state, application.state),
        "jurisdiction": labels.jurisdiction_name(application.jurisdiction),
        "delivery": labels.delivery_labels().get(application.delivery, application.delivery),
        "lead": lead.employer if lead else None,
        "partners": [link.employer for link in links[1:]],
        "is_applicant": is_applicant,
        "training": training,
        "provider": provider,
        "setting_label": labels.setting_labels().get(training.get("setting", ""), ""),
        "hours_label": _hours(training.get("hours")),
        "trainees": trainees,
        "history": history,
        "may_withdraw": is_applicant and application.state in WITHDRAWABLE,
        "may_submit": is_applicant and application.state == "draft",
        **tables,
    }


@employer_only
def application_detail(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    application = _visible(user, application_id)
    return render(request, "web/employer/detail.html", _detail_context(user, application))


@employer_only
@require_POST
def application_submit(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """Submit a draft (one saved through the API: the web form submits as it creates)."""
    application = _visible(user, application_id)
    try:
        actions.submit_application(user, application)
    except ServiceError as error:
        messages.error(request, _message(error))
    else:
        messages.success(request, _("Application %(number)s was submitted.") % {
            "number": application.pk})  # fmt: skip
    return redirect("web:employer-application", application_id=application.pk)


@employer_only
@require_http_methods(["GET", "POST"])
def application_withdraw(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """Withdraw, after confirmation: the GET page asks, the POST does it."""
    application = _visible(user, application_id)
    problems = Problems()
    note = ""
    if request.method == "GET" and not _detail_context(user, application)["may_withdraw"]:
        messages.error(request, _("This application cannot be withdrawn."))
        return redirect("web:employer-application", application_id=application.pk)
    if request.method == "POST":
        note = forms.normalize_note(request.POST.get("note", ""))
        if len(note) > forms.NOTE_MAX:
            problems.add("note", _("The reason must have at most %(most)s characters.") % {
                "most": forms.NOTE_MAX})  # fmt: skip
        elif forms.has_control_characters(note):
            problems.add("note", _(
                "The reason must hold only letters, digits, spaces and punctuation."
            ))  # fmt: skip
        else:
            try:
                actions.withdraw_application(user, application, note)
            except ServiceError as error:
                problems.add("withdraw", _message(error))
            else:
                messages.success(request, _("Application %(number)s was withdrawn.") % {
                    "number": application.pk})  # fmt: skip
                return redirect("web:employer-application", application_id=application.pk)
    context = _detail_context(user, application)
    context["title"] = _("Withdraw application %(number)s") % {"number": application.pk}
    context["note"] = control(
        "note", _("Reason for withdrawing (optional)"), note, problems=problems,
        hint=_("At most %(most)s characters.") % {"most": forms.NOTE_MAX},
    )  # fmt: skip
    return _page(request, "web/employer/withdraw.html", context, problems)


def _message(error: ServiceError) -> str:
    return labels.service_message(error)
