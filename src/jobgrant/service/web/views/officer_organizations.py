"""The program officer's organizations to verify: the queue (documents waiting, disputes), one
organization with its documents, decisions and disputes, and the decisions (verify against a
document or a registry check, refuse with a reason, resolve a dispute).

Reads and decisions go through people.organization_verification, which refuses what the officer
may not do (another jurisdiction, an affiliation, a state that does not allow it).
"""

from __future__ import annotations

from typing import Any, cast

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from jobgrant.service import refusals
from jobgrant.service.accounts.models import OrganizationProof, User
from jobgrant.service.errors import ServiceError
from jobgrant.service.people import access as people_access
from jobgrant.service.people import organization_verification as verification
from jobgrant.service.people.organizations import members
from jobgrant.service.registry.models import Employer, Verification
from jobgrant.service.uploads import file_response
from jobgrant.service.web.forms.organizations import (
    RefuseForm,
    ResolveForm,
    VerifyForm,
    show_problems,
)
from jobgrant.service.web.pages import (
    error_context,
    not_found_is_404,
    officer_required,
    set_choices,
    set_notice,
    shown_as,
    shown_back,
    switching_language,
    take_notice,
    visible_or_404,
)

ACTIONS = ("verify", "refuse", "resolve")


def _organization(user: User, employer_id: int) -> Employer:
    return visible_or_404(people_access.get_visible_organization_to_review, user, employer_id)


@require_GET
@officer_required
def queue(request: HttpRequest, user: User) -> HttpResponse:
    """The organizations to decide: disputed, or unverified with a document waiting (or, with
    `?state=all`, every organization of the jurisdiction not verified)."""
    everything = request.GET.get("state") == "all"
    if everything:
        found = (
            people_access.reviewable_organizations(user)
            .exclude(verification=Verification.VERIFIED)
            .order_by("name", "pk")
        )
    else:
        found = verification.verification_queue(user)
    rows = [
        {
            "employer": employer,
            "waiting": employer.proofs.filter(reviewed=False, dispute__isnull=True).count(),
        }
        for employer in found[:200]
    ]
    context = {
        "title": _("Organizations to verify")
        if not everything
        else _("Organizations not verified"),
        "rows": rows,
        "everything": everything,
    }
    return render(request, "web/officer/organizations.html", context)


def _forms(employer: Employer, post: Any = None, action: str = "") -> dict[str, Any]:
    proofs = verification.proofs_of(employer)
    verify = VerifyForm(
        post if action == "verify" else None,
        initial={"method": "document" if proofs else "registry"},
    )
    choices = [(str(p.pk), f"{p.original_name} ({p.uploaded_at:%Y-%m-%d})") for p in proofs]
    set_choices(verify, "proof", choices)
    return {
        "verify": verify,
        "refuse": RefuseForm(post if action == "refuse" else None, prefix="refuse"),
        "resolve": ResolveForm(post if action == "resolve" else None, prefix="resolve"),
    }


def _render(
    request: HttpRequest,
    user: User,
    employer: Employer,
    forms: dict[str, Any],
    *,
    first: list[tuple[str, str]] = (),  # type: ignore[assignment]
    status: int = 200,
) -> HttpResponse:
    errors = error_context(forms["verify"], forms["refuse"], forms["resolve"], first=first)
    if errors["error_links"] and status == 200:
        status = 422
    state = employer.verification
    context = {
        "title": employer.name,
        "employer": employer,
        "state_label": Verification(state).label,
        "verified": verification.last_verification(employer),
        "proofs": verification.proofs_of(employer),
        "decisions": verification.decisions_of(employer),
        "disputes": verification.open_disputes(employer),
        "people": members(employer),
        "may_decide": state in (Verification.UNVERIFIED, Verification.REFUSED),
        "may_refuse": state == Verification.UNVERIFIED,
        "affiliated": verification.affiliated(user, employer),
        "covers": people_access.officer_covers_organization(user, employer),
        "forms": forms,
        "notice": _notice(take_notice(request), employer),
        **errors,
    }
    return render(request, "web/officer/organization.html", context, status=status)


def _notice(notice: dict[str, Any] | None, employer: Employer) -> str:
    if not notice or notice.get("employer") != employer.pk:
        return ""
    texts = {
        "verify": _("You verified this organization. Its administrators are told by email."),
        "refuse": _("You refused this organization. Its administrators are told why by email."),
        "resolve": _("You resolved the dispute. The person who disputed is told by email."),
    }
    return texts.get(str(notice.get("kind")), "")


@require_GET
@officer_required
def organization(request: HttpRequest, user: User, employer_id: int) -> HttpResponse:
    employer = _organization(user, employer_id)
    return _render(request, user, employer, _forms(employer))


@require_http_methods(["GET", "POST"])
@officer_required
def decide(request: HttpRequest, user: User, employer_id: int) -> HttpResponse:
    """Verify, refuse or resolve a dispute; then back to the organization (PRG). A GET goes to
    the organization."""
    employer = _organization(user, employer_id)
    if request.method != "POST":
        return redirect("web:officer-organization", employer_id=employer.pk)
    action = request.POST.get("action", "")
    if action not in ACTIONS:
        raise Http404
    shown_as(request, reverse("web:officer-organization", args=[employer.pk]))
    forms = _forms(employer, request.POST, action)
    form = forms[action]
    if switching_language(request):  # what was typed, shown back in this language, unchecked
        shown_back(form)
        return _render(request, user, employer, forms)
    typed = form.typed()
    try:
        if action == "verify":
            proof = str(typed.get("proof") or "")
            body = {**typed, "proof": int(proof) if proof.isdigit() else None}
            verification.verify_organization(user, employer, body)
        elif action == "refuse":
            verification.refuse_organization(user, employer, typed.get("reason"))
        else:
            dispute = str(request.POST.get("dispute", ""))
            verification.resolve_dispute(
                user,
                employer,
                int(dispute) if dispute.isdigit() else None,
                typed.get("outcome"),
                typed.get("reason"),
            )
    except ServiceError as error:
        not_found_is_404(error)
        if error.problems:
            first = show_problems(form, error)
        else:
            first = [("#main-content", refusals.message(error))]
        employer.refresh_from_db()
        return _render(request, user, employer, forms, first=first, status=error.status)
    set_notice(request, action, employer=employer.pk)
    return redirect("web:officer-organization", employer_id=employer.pk)


@require_GET
@officer_required
def document(request: HttpRequest, user: User, employer_id: int, proof_id: int) -> HttpResponse:
    """One of the organization's documents (or a dispute's), as a download."""
    employer = _organization(user, employer_id)
    proof = OrganizationProof.objects.filter(employer=employer, pk=proof_id).first()
    if proof is None:
        raise Http404
    # A file streamed as it is read: not an HttpResponse, but answered the same way.
    return cast(HttpResponse, file_response(proof.file, proof.original_name, proof.content_type))
