"""An organization's telephone number: shown, and changed by an administrator.

Asked at registration; an organization registered before it was asked, or whose number is
wrong, gives it here. The action checks and normalizes it (grants/integrity/telephone.py).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.integrity.telephone import set_phone
from jobgrant.service.people import organizations
from jobgrant.service.web.forms import organizations as forms
from jobgrant.service.web.pages import (
    employer_required,
    form_page,
    set_notice,
    switching_language,
    take_notice,
)
from jobgrant.service.web.views.organizations import acting_for


@employer_required
@require_http_methods(["GET", "POST"])
def telephone(request: HttpRequest, user: User, employer_id: int) -> HttpResponse:
    employer = acting_for(user, employer_id)
    if not organizations.is_admin(user, employer):
        raise Http404  # a member sees no such page, as for the account and the invitations
    posted = request.method == "POST" and not switching_language(request)
    form = forms.PhoneForm(
        request.POST if request.method == "POST" else None, initial={"phone": employer.phone}
    )
    first: list[tuple[str, str]] = []
    if posted:
        try:
            set_phone(user, employer, form.typed())
        except ServiceError as error:
            first = forms.show_problems(form, error)
        else:
            set_notice(request, "phone-set")
            return redirect("web:organization-telephone", employer_id=employer.pk)
    notice = take_notice(request)
    context = {
        "title": _("Telephone number: %(name)s") % {"name": employer.name},
        "employer": employer,
        "form": form,
        "notice": _("The telephone number is saved.") if notice else "",
    }
    return form_page(request, "web/organizations/telephone.html", context, [form], first)
