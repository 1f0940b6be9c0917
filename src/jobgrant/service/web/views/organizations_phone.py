"""An organization's telephone number: shown, and changed by an administrator.

Asked at registration; an organization registered before it was asked, or whose number is
wrong, gives it here. The action checks and normalizes it (grants/integrity/telephone.py).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from jobgrant.service.accounts.models import User
from jobgrant.service.grants.integrity.telephone import set_phone
from jobgrant.service.web.forms import organizations as forms
from jobgrant.service.web.pages import employer_required
from jobgrant.service.web.views.organizations_setting import Setting, setting_page

TELEPHONE = Setting(
    form=forms.PhoneForm,
    save=set_phone,
    page="organization-telephone",
    template="web/organizations/telephone.html",
    title=_("Telephone number: %(name)s"),
    saved=_("The telephone number is saved."),
    initial=lambda employer: {"phone": employer.phone},
)


@employer_required
@require_http_methods(["GET", "POST"])
def telephone(request: HttpRequest, user: User, employer_id: int) -> HttpResponse:
    return setting_page(request, user, employer_id, TELEPHONE)
