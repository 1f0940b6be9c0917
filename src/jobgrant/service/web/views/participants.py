"""The trainees' pages: the participant form a trainee opens from their link (no account); the
employer's trainees of an approved application (invite, re-send, revoke); the officer's flags of
trainees funded in another file of the same fiscal year.

The link's token is the only secret in the trainee's URL: its pages are never cached, send no
Referer to other sites, and the logs never show it (service/log_redaction.py). A dead link
(used, expired, revoked, unknown) gets a page that says why, in both languages, and writes
nothing.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.burden import actions as burden
from jobgrant.service.grants.core import access
from jobgrant.service.grants.models.burden import BurdenStep
from jobgrant.service.grants.models.participants import Participant, ParticipantState
from jobgrant.service.grants.participants import actions as participant_actions
from jobgrant.service.grants.participants.access import (
    TraineeSlot,
    flagged_participants,
    get_visible_participant,
    participants_by,
    trainee_slots,
)
from jobgrant.service.grants.participants.form import FIELDS
from jobgrant.service.grants.participants.workflow import TRANSITIONS
from jobgrant.service.language import in_both_languages, in_language
from jobgrant.service.refusals import WORDINGS
from jobgrant.service.web import labels
from jobgrant.service.web.forms.participants import InviteForm, ParticipantForm
from jobgrant.service.web.pages import (
    applicant_file_or_404,
    employer_required,
    error_context,
    officer_required,
    set_notice,
    shown_back,
    switching_language,
    take_notice,
    visible_or_404,
)

RECEIVED_KEY = "jobgrant.participation.received"


# --- The trainee's form ------------------------------------------------------------------------


def _private(response: HttpResponse) -> HttpResponse:
    # Referrer-Policy stays same-origin (settings): the link never goes to another site in a
    # Referer, and a form posted with no-referrer would send `Origin: null`, which CSRF refuses.
    add_never_cache_headers(response)
    response["X-Robots-Tag"] = "noindex"
    return response


def _link_refused(request: HttpRequest, error: ServiceError) -> HttpResponse:
    """Why the link is dead, in the page's language and then in the other one."""
    wording = WORDINGS[error.code]
    english, french = in_both_languages(lambda: wording.title)
    context = {
        "title": in_language(en=english, fr=french),
        "text": in_language(en=error.message_en, fr=error.message_fr),
        "other_title": in_language(en=french, fr=english),
        "other_text": in_language(en=error.message_fr, fr=error.message_en),
        "code": error.code,
    }
    return _private(render(request, "web/participants/link.html", context, status=error.status))


@require_http_methods(["GET", "POST"])
def participate(request: HttpRequest, token: str) -> HttpResponse:
    """The participant form, once; then a confirmation that shows none of the answers back."""
    try:
        invitation = participant_actions.open_invitation(token)
    except ServiceError as error:
        if error.code == "LINK_USED" and request.session.pop(RECEIVED_KEY, None) is not None:
            return _private(render(request, "web/participants/received.html", _received()))
        return _link_refused(request, error)
    participant = invitation.participant
    form = ParticipantForm(request.POST if request.method == "POST" else None)
    if switching_language(request):
        pass  # the typed answers, shown back in this language
    elif request.method == "POST":
        typed = {name: request.POST.get(name, "") for name in FIELDS}
        try:
            participant_actions.submit_participant_form(token, typed)
        except ServiceError as error:
            if error.status != 422:
                return _link_refused(request, error)
            form.show_problems(error)
        else:
            burden.step_submitted(
                BurdenStep.PARTICIPANT_FORM,
                application=participant.application,
                subject=participant.pk,
            )
            request.session[RECEIVED_KEY] = True
            return _private(redirect(request.path))
    else:
        form = ParticipantForm(initial={"contact_email": participant.email})
        burden.step_viewed(
            BurdenStep.PARTICIPANT_FORM, application=participant.application, subject=participant.pk
        )
    errors = error_context(form) if form.is_bound else {"error_links": []}
    context = {
        "title": _("Confirm your participation in the training"),
        "form": form,
        "expires_on": timezone.localtime(invitation.expires_at).date(),
        **_about_the_training(participant),
        **errors,
    }
    status = 422 if errors["error_links"] else 200
    return _private(render(request, "web/participants/form.html", context, status=status))


def _about_the_training(participant: Participant) -> dict[str, Any]:
    application = participant.application
    training = application.request.get("training") or {}
    lead = application.employers.select_related("employer").order_by("position").first()
    return {
        "employer": lead.employer.name if lead else "",
        "course": training.get("course") or "",
        "start_date": training.get("start_date") or "",
        "end_date": training.get("end_date") or "",
    }


def _received() -> dict[str, Any]:
    return {"title": _("Thank you: your answers were received")}


# --- The employer's trainees ---------------------------------------------------------------------


def notice_text(notice: dict[str, Any] | None) -> str:
    if notice is None:
        return ""
    number = {"number": int(notice.get("trainee", 0)) + 1, "email": notice.get("email", "")}
    texts = {
        "invited": _("Trainee %(number)s was invited: a message was sent to %(email)s."),
        "resent": _(
            "A new link was sent to trainee %(number)s (%(email)s); the old one no longer works."
        ),
        "revoked": _("The invitation of trainee %(number)s was revoked; its link no longer works."),
    }
    kind = str(notice.get("kind", ""))
    if kind == "refused":
        return str(in_language(en=notice.get("message_en", ""), fr=notice.get("message_fr", "")))
    return texts[kind] % number if kind in texts else ""


def _rows(application: Any) -> list[dict[str, Any]]:
    statuses, states = labels.status_labels(), dict(ParticipantState.choices)
    return [_row(slot, statuses, states) for slot in trainee_slots(application)]


def _row(slot: TraineeSlot, statuses: dict[str, str], states: dict[str, Any]) -> dict[str, Any]:
    participant = slot.participant
    live = (
        participant.invitations.filter(used_at=None, revoked_at=None).order_by("-id").first()
        if participant
        else None
    )
    return {
        "number": slot.position + 1,
        "status": statuses.get(slot.status, slot.status),
        "government": slot.government_cents,
        "participant": participant,
        "state": str(states[participant.state]) if participant else _("Not invited"),
        "expires": timezone.localtime(live.expires_at).date() if live else None,
        "expired": bool(live and live.expires_at <= timezone.now()),
        "may_resend": bool(participant and participant.state in TRANSITIONS["resend"].sources),
        "may_revoke": bool(participant and participant.state in TRANSITIONS["revoke"].sources),
        "may_invite": slot.may_invite,
    }


@employer_required
@require_http_methods(["GET", "POST"])
def trainees(request: HttpRequest, user: User, application_id: int) -> HttpResponse:
    """Each trainee's slot and the invitation form (POST invites)."""
    application = applicant_file_or_404(user, application_id)
    rows = _rows(application)
    choices = [
        (str(r["number"] - 1), _("Trainee %(n)s") % {"n": r["number"]})
        for r in rows
        if r["may_invite"]
    ]
    form = InviteForm(request.POST if request.method == "POST" else None, trainees=choices)
    refusal: list[tuple[str, str]] = []
    if switching_language(request):  # what was typed, shown back in this language
        form = shown_back(form)
    elif request.method == "POST" and form.is_valid():
        body = {**form.cleaned_data, "trainee": int(form.cleaned_data["trainee"])}
        try:
            participant_actions.invite_participant(user, application, body)
        except ServiceError as error:
            refusal = [("#invite-trainee", labels.service_message(error))]
        else:
            set_notice(request, "invited", trainee=body["trainee"], email=body["email"])
            return redirect("web:employer-trainees", application_id=application.pk)
    errors = error_context(form, first=refusal) if form.is_bound else {"error_links": []}
    due = participants_by(application)
    context = {
        "title": _("Trainees of application %(number)s") % {"number": application.pk},
        "application": application,
        "approved": application.state == "approved",
        "rows": rows,
        "form": form,
        "may_invite": application.state == "approved" and bool(choices),
        "participants_by": due,
        "notice": notice_text(take_notice(request)),
        **errors,
    }
    status = 422 if errors["error_links"] else 200
    return render(request, "web/participants/trainees.html", context, status=status)


def _own_slot(user: User, participant_id: int) -> Participant:
    participant = visible_or_404(get_visible_participant, user, participant_id)
    visible_or_404(access.check_applicant, user, participant.application)
    return participant


def _set_refusal(request: HttpRequest, error: ServiceError) -> None:
    set_notice(request, "refused", message_en=error.message_en, message_fr=error.message_fr)


@employer_required
@require_POST
def resend(request: HttpRequest, user: User, participant_id: int) -> HttpResponse:
    participant = _own_slot(user, participant_id)
    try:
        participant_actions.resend_invitation(user, participant)
    except ServiceError as error:
        _set_refusal(request, error)
    else:
        set_notice(request, "resent", trainee=participant.position, email=participant.email)
    return redirect("web:employer-trainees", application_id=participant.application_id)


@employer_required
@require_http_methods(["GET", "POST"])
def revoke(request: HttpRequest, user: User, participant_id: int) -> HttpResponse:
    """Revoke after confirmation: the GET page asks, the POST does it."""
    participant = _own_slot(user, participant_id)
    if request.method == "POST":
        try:
            participant_actions.revoke_participant(user, participant)
        except ServiceError as error:
            _set_refusal(request, error)
        else:
            set_notice(request, "revoked", trainee=participant.position)
        return redirect("web:employer-trainees", application_id=participant.application_id)
    context = {
        "title": _("Revoke the invitation of trainee %(number)s?")
        % {"number": participant.position + 1},
        "participant": participant,
        "state": ParticipantState(participant.state).label,
    }
    return render(request, "web/participants/revoke.html", context)


# --- The officer's flags -------------------------------------------------------------------------


@officer_required
def flags(request: HttpRequest, user: User) -> HttpResponse:
    """Trainees found funded in another approved file of the same fiscal year, with the amount."""
    return _flags_page(request, user, {})


def _flags_page(request: HttpRequest, user: User, shown: dict[int, str]) -> HttpResponse:
    """The flags; after "Show the SIN", that one SIN (rendered, never kept in the session or
    put in a URL)."""
    rows = [
        {
            "participant": p,
            "number": p.position + 1,
            "state": ParticipantState(p.state).label,
            "submitted": timezone.localtime(p.submitted_at).date() if p.submitted_at else None,
            "elsewhere": p.funded_elsewhere,
            "sin": shown.get(p.pk, ""),
        }
        for p in flagged_participants(user)[:200]
    ]
    context = {
        "title": _("Trainees funded in another file this fiscal year"),
        "rows": rows,
        "may_view_sin": user.may_view_sin,
        "notice": notice_text(take_notice(request)),
    }
    return render(request, "web/participants/flags.html", context)


@officer_required
@require_POST
def flag_sin(request: HttpRequest, user: User, participant_id: int) -> HttpResponse:
    """One flagged trainee's SIN in full, for an officer with the permission; audited."""
    participant = _visible_slot(user, participant_id)
    try:
        sin = participant_actions.view_participant_sin(user, participant)
    except ServiceError as error:
        _set_refusal(request, error)
        return redirect("web:officer-participant-flags")
    return _flags_page(request, user, {participant.pk: sin})


def _visible_slot(user: User, participant_id: int) -> Participant:
    return visible_or_404(get_visible_participant, user, participant_id)
