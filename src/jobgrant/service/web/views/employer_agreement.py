"""The agreement, as the employer and the officer read it: the page, its PDF in English or in
French, and the employer's answer (accept with a confirmation step, or decline).

Reads go through grants.agreement_access; changes through grants.agreement_actions. The
document shown is the version's stored text in the page's language (what is hashed and
accepted), never rendered again.
"""

from __future__ import annotations

import re
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from jobgrant.service.accounts.models import Role, User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.agreements import actions as agreement_actions
from jobgrant.service.grants.agreements.access import get_visible_agreement
from jobgrant.service.grants.agreements.pdf import agreement_pdf
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.agreements import Agreement, AgreementState
from jobgrant.service.language import in_language
from jobgrant.service.refusals import message
from jobgrant.service.web.forms.agreement import AcceptForm, ReasonForm
from jobgrant.service.web.pages import (
    employer_required,
    error_context,
    set_notice,
    switching_language,
    take_notice,
    typed_back,
    visible_or_404,
)

LANGUAGES = ("en", "fr")


def visible(user: User, application_id: int) -> Agreement:
    return visible_or_404(get_visible_agreement, user, application_id)


def notice_text(notice: dict[str, Any] | None) -> str:
    if notice is None:
        return ""
    texts = {
        "accepted": _("The agreement is accepted. Its fingerprint is recorded with your name."),
        "declined": _("You declined the offer. The money set aside for it is released."),
        "withdrawn-offer": _("The offer is withdrawn. The money set aside for it is released."),
        "not-open": _("This offer is no longer open."),
        "refused": str(notice.get(in_language(en="message_en", fr="message_fr"), "")),
    }
    return texts.get(str(notice.get("kind")), "")


def page_context(user: User, agreement: Agreement) -> dict[str, Any]:
    version = agreement_actions.version_read(user, agreement)
    is_applicant = _is_applicant(user, agreement)
    is_open = agreement.state == AgreementState.ISSUED and timezone.now() <= version.accept_by
    return {
        "title": _("Agreement for application %(number)s") % {"number": agreement.application_id},
        "agreement": agreement,
        "version": version,
        "state": AgreementState(agreement.state).label,
        "document": mark_safe(
            scrolling_tables(in_language(en=version.content_en, fr=version.content_fr))
        ),
        "may_answer": is_applicant and is_open,
        "may_withdraw": user.role == Role.OFFICER
        and agreement.state == AgreementState.ISSUED
        and access.officer_covers(user, agreement.application),
        "pdf_route": "web:employer-agreement-pdf"
        if user.role == Role.EMPLOYER
        else "web:officer-agreement-pdf",
        "back_route": "web:employer-application"
        if user.role == Role.EMPLOYER
        else "web:officer-review",
    }


_CAPTIONED_TABLE = re.compile(r'<table id="([a-z0-9-]+)">\n<caption>')


def scrolling_tables(document: str) -> str:
    """The stored document as the page shows it: each table styled as the service's tables
    and inside its own scrolling box, named by its caption, so that a narrow window scrolls the
    table and not the page (WCAG 1.4.10). Only the markup around the tables changes, never the
    text that was hashed and accepted; a document whose tables are not all written as the
    agreement's writer writes them is shown as it is."""
    if len(_CAPTIONED_TABLE.findall(document)) != document.count("<table"):
        return document

    def boxed(table: re.Match[str]) -> str:
        name = table[1]
        return (
            f'<div class="jg-scroll" role="region" tabindex="0" aria-labelledby="{name}-caption">'
            f'<table id="{name}" class="jg-table jg-table--wraps">\n<caption id="{name}-caption">'
        )

    return _CAPTIONED_TABLE.sub(boxed, document).replace("</table>", "</table></div>")


def _is_applicant(user: User, agreement: Agreement) -> bool:
    try:
        access.check_applicant(user, agreement.application)
    except ServiceError:
        return False
    return True


def show_agreement(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """The agreement's page, for the employer or the officer (each through their own route)."""
    agreement = visible(user, application_id)
    context = page_context(user, agreement)
    context["notice"] = notice_text(take_notice(request))
    return render(request, "web/agreement/page.html", context)


def pdf_response(user: User, application_id: int, lang: str) -> HttpResponse:
    """The PDF in `lang`, sent with no-store (the role gate adds it): it names the employer."""
    if lang not in LANGUAGES:
        raise Http404
    agreement = visible(user, application_id)
    version = agreement_actions.version_read(user, agreement)
    response = HttpResponse(agreement_pdf(version, lang), content_type="application/pdf")
    name = f"agreement-{agreement.application_id}-v{version.number}-{lang}.pdf"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@employer_required
@require_GET
def agreement_page(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    return show_agreement(request, user, application_id)


@employer_required
@require_GET
def agreement_pdf_download(
    request: HttpRequest, user: User, application_id: int, lang: str
) -> HttpResponse:
    return pdf_response(user, application_id, lang)


@employer_required
@require_http_methods(["GET", "POST"])
def agreement_accept(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """The form (GET), the confirmation step (a valid POST), then the acceptance (a POST with
    confirm=yes). Nothing is written before the confirmation."""
    agreement = visible(user, application_id)
    context = page_context(user, agreement)
    if not context["may_answer"]:
        set_notice(request, "not-open")
        return redirect("web:employer-agreement", application_id=application_id)
    form = AcceptForm(request.POST if request.method == "POST" else None)
    refusal: list[tuple[str, str]] = []
    if switching_language(request):  # the typed answers, shown back in this language
        confirming = request.POST.get("confirm") == "yes" and form.is_valid()
        if confirming:
            return _accept_confirmation(request, context, form)
        form = typed_back(AcceptForm, request)
    elif form.is_valid() and request.POST.get("confirm") == "yes":
        data = form.cleaned_data
        try:
            agreement_actions.accept_agreement(
                user,
                agreement,
                data["signatory"],
                data["title"],
                form.confirmations(),
                request.POST.get("sha256") or None,  # the fingerprint the confirmation showed
            )
        except ServiceError as error:
            refusal = [("#signatory", message(error))]
        else:
            set_notice(request, "accepted")
            return redirect("web:employer-agreement", application_id=application_id)
    elif form.is_valid():
        return _accept_confirmation(request, context, form)
    errors = error_context(form, first=refusal) if form.is_bound else error_context()
    status = 422 if errors["error_links"] else 200
    context["title"] = _("Accept the agreement for application %(number)s") % {
        "number": application_id
    }
    return render(
        request, "web/agreement/accept.html", {**context, "form": form, **errors}, status=status
    )


def _accept_confirmation(
    request: HttpRequest, context: dict[str, Any], form: AcceptForm
) -> HttpResponse:
    return render(
        request,
        "web/agreement/accept_confirm.html",
        {**context, "form": form, "data": form.cleaned_data},
    )


@employer_required
@require_http_methods(["GET", "POST"])
def agreement_decline(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """Decline, after confirmation: the page asks for the reason and says what declining does."""
    agreement = visible(user, application_id)
    context = page_context(user, agreement)
    if not context["may_answer"]:
        set_notice(request, "not-open")
        return redirect("web:employer-agreement", application_id=application_id)
    form = ReasonForm(request.POST if request.method == "POST" else None)
    refusal: list[tuple[str, str]] = []
    if switching_language(request):  # what was typed, shown back in this language
        form = typed_back(ReasonForm, request)
    elif form.is_valid():
        try:
            agreement_actions.decline_agreement(user, agreement, form.cleaned_data["reason"])
        except ServiceError as error:
            refusal = [("#id_reason", message(error))]
        else:
            set_notice(request, "declined")
            return redirect("web:employer-agreement", application_id=application_id)
    errors = error_context(form, first=refusal) if form.is_bound else error_context()
    status = 422 if errors["error_links"] else 200
    context["title"] = _("Decline the offer for application %(number)s") % {
        "number": application_id
    }
    return render(
        request, "web/agreement/decline.html", {**context, "form": form, **errors}, status=status
    )
