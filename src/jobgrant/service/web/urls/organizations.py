"""Registering an organization, the links its messages carry, and an organization's people."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import (
    organizations,
    organizations_bank,
    organizations_phone,
    organizations_verification,
)

#: Pages anyone can open: the links in messages carry their own key.
public = [
    path(_("register/"), organizations.register, name="register"),
    path(_("register/sent/"), organizations.register_sent, name="register-sent"),
    path(
        _("register/verify/<str:token>/"),
        organizations.verify_email,
        name="verify-email",
    ),
    path(_("register/verified/"), organizations.verify_email_done, name="verify-email-done"),
    path(_("invitation/<str:token>/"), organizations.invitation, name="invitation"),
    path(_("dispute/<str:token>/"), organizations_verification.dispute, name="dispute"),
    path(_("dispute-filed/"), organizations_verification.dispute_filed, name="dispute-filed"),
]
#: The employer's pages (under /employer/).
employer = [
    path(_("organizations/"), organizations.organization_list, name="organization-list"),
    path(
        _("organizations/<id:employer_id>/"),
        organizations.organization_members,
        name="organization-members",
    ),
    path(
        _("organizations/<id:employer_id>/proof/"),
        organizations_verification.organization_proof,
        name="organization-proof",
    ),
    path(
        _("organizations/<id:employer_id>/bank-account/"),
        organizations_bank.bank_account,
        name="organization-bank-account",
    ),
    path(
        _("organizations/<id:employer_id>/telephone/"),
        organizations_phone.telephone,
        name="organization-telephone",
    ),
    path(
        _("organizations/<id:employer_id>/members/<id:membership_id>/role/"),
        organizations.member_role,
        name="organization-member-role",
    ),
    path(
        _("organizations/<id:employer_id>/members/<id:membership_id>/remove/"),
        organizations.member_remove,
        name="organization-member-remove",
    ),
    path(
        _("organizations/<id:employer_id>/invitations/<id:invitation_id>/cancel/"),
        organizations.invitation_revoke,
        name="organization-invitation-revoke",
    ),
]
