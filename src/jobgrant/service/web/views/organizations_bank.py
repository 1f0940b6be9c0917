"""An organization's direct-deposit account: where the grant is paid, set by an administrator.

The page shows the account masked (institution, transit and the last digits) and a form to give
a new one; the action checks, seals and stores it (grants/integrity/direct_deposit.py). The
account number typed is never shown back, not even after an error: it is typed again.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.integrity.direct_deposit import set_bank_account
from jobgrant.service.web.forms import organizations as forms
from jobgrant.service.web.pages import employer_required
from jobgrant.service.web.views.organizations_setting import Setting, setting_page

BANK_ACCOUNT = Setting(
    form=forms.BankAccountForm,
    save=set_bank_account,
    page="organization-bank-account",
    template="web/organizations/bank_account.html",
    title=_("Direct deposit: %(name)s"),
    saved=_("The account is saved."),
    shown_back=lambda data: {**data, "account": ""},  # never shown back
)


@employer_required
@require_http_methods(["GET", "POST"])
def bank_account(request: HttpRequest, user: User, employer_id: int) -> HttpResponse:
    return setting_page(request, user, employer_id, BANK_ACCOUNT)
