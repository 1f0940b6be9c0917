"""An organization's direct-deposit account: where the grant is paid, set by an administrator.

The page shows the account masked (institution, transit and the last digits) and a form to give
a new one; the action checks, seals and stores it (grants/integrity/direct_deposit.py). The
account number typed is never shown back, not even after an error: it is typed again.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.errors import ServiceError
from jobgrant.service.grants.integrity.direct_deposit import set_bank_account
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
def bank_account(request: HttpRequest, user: User, employer_id: int) -> HttpResponse:
    employer = acting_for(user, employer_id)
    if not organizations.is_admin(user, employer):
        raise Http404  # a member sees no such page, as for the invitations
    posted = request.method == "POST" and not switching_language(request)
    form = forms.BankAccountForm(request.POST if request.method == "POST" else None)
    first: list[tuple[str, str]] = []
    if posted:
        try:
            set_bank_account(user, employer, form.typed())
        except ServiceError as error:
            first = forms.show_problems(form, error)
        else:
            set_notice(request, "bank-account-set")
            return redirect("web:organization-bank-account", employer_id=employer.pk)
    if form.is_bound:
        form.data = {**request.POST.dict(), "account": ""}  # never shown back
    notice = take_notice(request)
    context = {
        "title": _("Direct deposit: %(name)s") % {"name": employer.name},
        "employer": employer,
        "form": form,
        "notice": _("The account is saved.") if notice else "",
    }
    return form_page(request, "web/organizations/bank_account.html", context, [form], first)
