"""The employer's pages outside the wizard: the dashboard with the drafts being written, an
application's detail, submitting a draft saved through the API, and withdrawal.

Reads go through grants.access and changes through grants.actions. Notices for the next page are
kept language-neutral in the session (pages.set_notice) and written in the page's language here.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from django.db.models.fields.json import KT, KeyTransform
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from jobgrant.rules.money import AmountError
from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.applications import actions
from jobgrant.service.grants.applications import partners as partner_actions
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.applications import (
    Application,
    ApplicationEmployer,
    FormDraft,
)
from jobgrant.service.grants.payments.paid import application_payments
from jobgrant.service.language import localized
from jobgrant.service.outcomes.clocks import file_clocks
from jobgrant.service.web import claim_display, labels
from jobgrant.service.web.clock_display import clock_rows
from jobgrant.service.web.dashboard_rows import COLUMNS, row, row_html
from jobgrant.service.web.declaration_display import declarations_context
from jobgrant.service.web.employer_stage import (
    STAGE_PREFETCH,
    has_claims_page,
    may_withdraw,
    stage_of,
)
from jobgrant.service.web.forms import employer as forms
from jobgrant.service.web.limits import limited
from jobgrant.service.web.pages import (
    employer_required,
    error_context,
    set_notice,
    switching_language,
    take_notice,
    typed_back,
    visible_or_404,
)
from jobgrant.service.web.views.employer_apply import DRAFT_KEY


def notice_text(notice: dict[str, Any] | None) -> str:
    """The notice a previous page left, in this page's language."""
    if notice is None:
        return ""
    number = {"number": notice.get("application", "")}
    texts = {
        "submitted": _("Application %(number)s was submitted. An officer will review it."),
        "submitted-draft": _("Application %(number)s was submitted."),
        "waiting-partners": _(
            "Application %(number)s is saved as a draft: each consortium partner's "
            "administrators were asked to accept being named. Submit it here once they all "
            "accept."
        ),
        "withdrawn": _("Application %(number)s was withdrawn."),
        "not-withdrawable": _("This application cannot be withdrawn."),
        "discarded": _("The application you had started was discarded."),
        "not-understood": _(
            "This application is not eligible as entered. To submit it anyway, confirm that you "
            "understand it will likely be refused."
        ),
    }
    kind = str(notice.get("kind", ""))
    if kind == "refused":
        return localized(notice)
    return texts[kind] % number if kind in texts else ""


def set_refusal(request: HttpRequest, error: ServiceError) -> None:
    set_notice(request, "refused", message_en=error.message_en, message_fr=error.message_fr)


# --- Dashboard and drafts ---------------------------------------------------------------------


@employer_required
def dashboard(request: HttpRequest, user: User) -> HttpResponse:
    """The applications of the organizations the user acts for: as applicant, and as partner;
    and the applications the user is still writing."""
    mine = set(access.employers_acted_for(user).values_list("pk", flat=True))
    # Only the columns a row shows or its stage reads: not the explanation (every trainee's
    # computation, the largest column), nor the request and the quote, of which a row reads
    # one date and the employers' shares (read in the database, not decoded whole per row).
    found = (
        access.visible_applications(user)
        .select_related("agreement", "completion_report")
        .only(*COLUMNS)
        .annotate(
            start_date=KT("request__training__start_date"),
            quote_employers=KeyTransform("employers", "quote"),
        )
        .prefetch_related(
            Prefetch(
                "employers",
                queryset=ApplicationEmployer.objects.select_related("employer").only(
                    "application_id", "employer_id", "reference", "employer__name"
                ),
                to_attr="listed_employers",
            ),
            *STAGE_PREFETCH,
        )
    )
    states = labels.state_labels()  # once, in the page's language, not once a row
    led, partnered = [], []
    for application in found.order_by("-id"):
        links = application.listed_employers
        if links and links[0].employer_id in mine:
            led.append(row_html(row(application, links, None, states)))
        else:
            own = {link.reference for link in links if link.employer_id in mine}
            partnered.append(row_html(row(application, links, own, states)))
    return render(
        request,
        "web/employer/dashboard.html",
        {
            "title": _("Your applications"),
            "notice": notice_text(take_notice(request)),
            "led": led,
            "partnered": partnered,
            "drafts": [
                _draft_row(d) for d in access.visible_form_drafts(user).order_by("-updated_at")
            ],
            "partner_requests_waiting": access.visible_partner_requests(user)
            .filter(state="pending", link__application__state="draft")
            .count(),
            "steps": _step_labels(),
        },
    )


def _step_labels() -> dict[str, str]:
    return {
        "organizations": _("Organizations"),
        "training": _("Training and provider"),
        "trainees": _("Trainees and costs"),
    }


def _draft_row(draft: FormDraft) -> dict[str, Any]:
    return {
        "draft": draft,
        "lead": draft.lead,
        "step": _step_labels().get(draft.step, ""),
        "updated": timezone.localtime(draft.updated_at).date(),
    }


def _own_draft(user: User, draft_id: int) -> FormDraft:
    return visible_or_404(access.get_visible_form_draft, user, draft_id)


@employer_required
@require_POST
def draft_resume(request: HttpRequest, user: User, draft_id: int) -> HttpResponse:
    """Open a draft again: the wizard goes on at its first step still to complete."""
    request.session[DRAFT_KEY] = _own_draft(user, draft_id).pk
    return redirect("web:employer-apply")


@employer_required
@require_http_methods(["GET", "POST"])
def draft_delete(request: HttpRequest, user: User, draft_id: int) -> HttpResponse:
    """Delete a draft, after confirmation: the GET page asks, the POST deletes."""
    draft = _own_draft(user, draft_id)
    if request.method == "POST":
        actions.delete_form_draft(user, draft)
        if request.session.get(DRAFT_KEY) == draft_id:
            request.session.pop(DRAFT_KEY)
        set_notice(request, "discarded")
        return redirect("web:employer-dashboard")
    return render(
        request,
        "web/employer/draft_delete.html",
        {
            "title": _("Delete this draft?"),
            "draft": draft,
            **_draft_row(draft),
        },
    )


# --- An application: detail, submit (drafts made through the API), withdraw ------------------


def _hours(raw: object) -> str:
    try:
        return forms.show_hours(forms.parse_money(str(raw)))
    except AmountError:
        return str(raw)


def _visible(user: User, application_id: int) -> Application:
    return visible_or_404(access.get_visible_application, user, application_id)


def _detail_context(user: User, application: Application) -> dict[str, Any]:
    links = list(application.employers.select_related("employer").order_by("position"))
    mine = set(access.employers_acted_for(user).values_list("pk", flat=True))
    by_id = {link.reference: link.employer for link in links}
    lead = links[0] if links else None
    is_applicant = lead is not None and lead.employer_id in mine
    own = None if is_applicant else {link.reference for link in links if link.employer_id in mine}
    request_body = application.request if isinstance(application.request, dict) else {}
    training = request_body.get("training") or {}
    tables = forms.quote_tables(
        application.quote, by_id, lead_id=lead.reference if lead else "", only=own
    )
    waiting = partner_actions.unconsented_partners(application) if is_applicant else []
    may_submit = is_applicant and application.state == "draft" and not waiting
    return {
        "title": _("Application %(number)s") % {"number": application.pk},
        "application": application,
        "state": labels.state_labels().get(application.state, application.state),
        "stage": stage_of(application),
        "claims_page": has_claims_page(application),
        "jurisdiction": labels.jurisdiction_name(application.jurisdiction),
        "delivery": labels.delivery_labels().get(application.delivery, application.delivery),
        "lead": lead.employer if lead else None,
        "partners": [link.employer for link in links[1:]],
        "is_applicant": is_applicant,
        "training": training,
        "provider": training.get("provider") or {},
        "setting_label": labels.setting_labels().get(training.get("setting", ""), ""),
        "hours_label": _hours(training.get("hours")),
        "trainees": _trainees(request_body, by_id, own),
        "history": _history(application),
        "clocks": clock_rows(file_clocks(application)),
        "may_withdraw": is_applicant and may_withdraw(application),
        "waiting_partners": [
            {"employer": link.employer, "declined": link.consent.state == "declined"}
            for link in waiting
        ]
        if application.state == "draft"
        else [],
        "may_submit": may_submit,
        # What was paid for the file (the payee is the applicant: partners see their share).
        "payments": claim_display.payment_rows(application_payments(application))
        if is_applicant
        else [],
        "warning": forms.all_reasons(application.quote)
        if may_submit and not application.eligible
        else None,
        **tables,
        # The applicant's own answers: a partner sees neither its fees nor its ties.
        **(declarations_context(application) if is_applicant else {}),
    }


def _trainees(body: dict[str, Any], by_id: dict[str, Any], own: set[str] | None) -> list[Any]:
    statuses = labels.status_labels()
    return [
        {
            "number": i + 1,
            "employer": by_id.get(t.get("employer_id", "")),
            "status": statuses.get(t.get("status", ""), t.get("status", "")),
        }
        for i, t in enumerate(body.get("trainees") or [])
        if own is None or t.get("employer_id") in own
    ]


def _history(application: Application) -> list[dict[str, Any]]:
    states = labels.state_labels()
    return [
        {
            "at": timezone.localtime(change.at).date(),
            "from": states.get(change.from_state, change.from_state),
            "to": states.get(change.to_state, change.to_state),
        }
        for change in application.history.all()
    ]


@employer_required
def application_detail(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    application = _visible(user, application_id)
    context = _detail_context(user, application)
    context["notice"] = notice_text(take_notice(request))
    return render(request, "web/employer/detail.html", context)


@employer_required
@require_POST
def application_submit(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """Submit a draft (one saved through the API: the web form submits as it creates). A draft
    that is not eligible is submitted only once the applicant says they understand it will
    likely be refused."""
    application = _visible(user, application_id)
    if too_many := limited(request, "submit", user):
        return too_many
    if not application.eligible and request.POST.get("understood") != "yes":
        set_notice(request, "not-understood")
        return redirect("web:employer-application", application_id=application.pk)
    try:
        actions.submit_application(user, application)
    except ServiceError as error:
        set_refusal(request, error)
    else:
        set_notice(request, "submitted-draft", application=application.pk)
    return redirect("web:employer-application", application_id=application.pk)


@employer_required
@require_http_methods(["GET", "POST"])
def application_withdraw(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """Withdraw, after confirmation: the GET page asks, the POST does it."""
    application = _visible(user, application_id)
    if request.method == "GET" and not _detail_context(user, application)["may_withdraw"]:
        set_notice(request, "not-withdrawable")
        return redirect("web:employer-application", application_id=application.pk)
    form = forms.WithdrawForm(request.POST if request.method == "POST" else None)
    refusal: list[tuple[str, str]] = []
    if switching_language(request):  # what was typed, shown back in this language
        form = typed_back(forms.WithdrawForm, request)
    elif form.is_valid():
        try:
            actions.withdraw_application(user, application, form.cleaned_data["note"])
        except ServiceError as error:
            refusal = [("#withdraw", labels.service_message(error))]
        else:
            set_notice(request, "withdrawn", application=application.pk)
            return redirect("web:employer-application", application_id=application.pk)
    context = _detail_context(user, application)
    context["title"] = _("Withdraw application %(number)s") % {"number": application.pk}
    context["form"] = form
    errors = error_context(form, first=refusal) if form.is_bound else error_context()
    status = 422 if errors["error_links"] else 200
    return render(request, "web/employer/withdraw.html", {**context, **errors}, status=status)
