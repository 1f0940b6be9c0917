"""The program manager's pages: the decisions against a ranking, to sign off or refuse."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import manager

urlpatterns = [
    path(_("overrides/"), manager.overrides, name="manager-overrides"),
    path(_("overrides/<id:override_id>/"), manager.override_page, name="manager-override"),
    path(_("overrides/<id:override_id>/answer/"), manager.answer, name="manager-override-answer"),
]
