"""The administrator's pages (under /staff/), and the page where a new staff member chooses
their password from the link they were sent (anyone may open it: the link is the key)."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import staff

urlpatterns = [
    path("", staff.staff_list, name="staff-list"),
    path(_("new/"), staff.staff_new, name="staff-new"),
    path("<id:user_id>/", staff.staff_edit, name="staff-edit"),
    path(_("<id:user_id>/deactivate/"), staff.staff_deactivate, name="staff-deactivate"),
    path(_("<id:user_id>/reactivate/"), staff.staff_reactivate, name="staff-reactivate"),
]
public = [
    path(_("account/setup/<str:token>/"), staff.account_setup, name="account-setup"),
]
