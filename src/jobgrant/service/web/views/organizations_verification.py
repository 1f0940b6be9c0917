"""An organization's verification on the employer's side: its administrator uploads a proof;
the real business disputes a registration made in its name (people/organization_verification.py)."""

from __future__ import annotations

from django import forms as django_forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.language import current_language
from jobgrant.service.people import organization_verification as verification
from jobgrant.service.people import organizations
from jobgrant.service.uploads import CheckedFile, checked
from jobgrant.service.web.forms import organizations as forms
from jobgrant.service.web.pages import (
    employer_required,
    form_page,
    set_notice,
    shown_as,
    switching_language,
)
from jobgrant.service.web.views.organizations import (
    acting_for,
    bad_link_page,
    done_page,
    verification_context,
)

# --- An organization's verification ----------------------------------------------------------


def checked_upload(request: HttpRequest, form: django_forms.Form) -> CheckedFile | None:
    """The file sent as `file`, checked (type from its content, size); its problem is put
    under the field, in the page's language. None when no file or a refused one."""
    upload = request.FILES.get("file")
    if upload is None:
        return None
    try:
        return checked(upload, "file", default="document")
    except ServiceError as error:
        forms.show_problems(form, error)
        return None


@employer_required
@require_http_methods(["GET", "POST"])
def organization_proof(request: HttpRequest, user: User, employer_id: int) -> HttpResponse:
    """An administrator uploads the organization's business registration document (POST); a
    GET goes to the organization's page."""
    employer = acting_for(user, employer_id)
    if request.method != "POST":
        return redirect("web:organization-members", employer_id=employer.pk)
    form = forms.ProofForm(request.POST)
    form.is_valid()
    document = checked_upload(request, form)
    first: list[tuple[str, str]] = []
    if document is None and not form.errors:
        form.add_error(
            "file",
            _("%(field)s: %(problem)s")
            % {"field": form.fields["file"].label, "problem": _("choose a file")},
        )
    if document is not None:
        try:
            verification.upload_proof(user, employer, document)
        except ServiceError as error:
            first = forms.show_problems(form, error)
        else:
            set_notice(request, "proof")
            return redirect("web:organization-members", employer_id=employer.pk)
    admin = organizations.is_admin(user, employer)
    context = {
        "title": employer.name,
        "employer": employer,
        **verification_context(employer),
        "proof_form": form,
        "is_admin": admin,
        "members": organizations.members(employer),
        "invitations": organizations.pending_invitations(employer) if admin else [],
        "role_choices": forms.ROLE_CHOICES,
        "me": user,
        "form": forms.InviteForm(initial={"role": "member", "language": current_language()}),
        "notice": "",
    }
    shown_as(request, reverse("web:organization-members", kwargs={"employer_id": employer.pk}))
    return form_page(request, "web/organizations/members.html", context, [form], first)


@require_http_methods(["GET", "POST"])
def dispute(request: HttpRequest, token: str) -> HttpResponse:
    """Dispute a registration, from the link the "already registered" message carries: the
    name, telephone, statement and a document (GET shows the form, POST files it)."""
    offer = verification.dispute_offer(token)
    if offer is None:
        return bad_link_page(request)
    form = forms.DisputeForm(request.POST if request.method == "POST" else None)
    first: list[tuple[str, str]] = []
    if switching_language(request):
        pass  # what was typed, shown back in this language (a file must be chosen again)
    elif request.method == "POST":
        typed = form.typed()
        document = checked_upload(request, form)
        refused_file = "file" in form.errors
        try:
            verification.file_dispute(token, typed, document if not refused_file else None)
        except ServiceError as error:
            if refused_file:  # already named: not "is required" as well
                error.problems = [p for p in error.problems if p.get("field") != "file"]
            first = forms.show_problems(form, error) if error.problems or not refused_file else []
        else:
            return redirect("web:dispute-filed")
    context = {
        "title": _("Dispute the registration of business number %(number)s")
        % {"number": offer.employer.business_number},
        "form": form,
        "email": offer.email,
    }
    return form_page(request, "web/organizations/dispute.html", context, [form], first)


def dispute_filed(request: HttpRequest) -> HttpResponse:
    return done_page(
        request,
        _("Your dispute was received"),
        _(
            "An officer will look at it, may call you, and will tell you the outcome by email. "
            "Until then, no application can be submitted for this business number."
        ),
        reverse("web:landing"),
        _("Go to the home page"),
    )
