"""Registering an organization, the links its messages carry, and an organization's people."""

from django.urls import path

from jobgrant.service.web.views import organizations

#: Pages anyone can open: the links in messages carry their own key.
public = [
    path("register/", organizations.register, name="register"),
    path("register/sent/", organizations.register_sent, name="register-sent"),
    path(
        "register/verify/<str:token>/",
        organizations.verify_email,
        name="verify-email",
    ),
    path("register/verified/", organizations.verify_email_done, name="verify-email-done"),
    path("invitation/<str:token>/", organizations.invitation, name="invitation"),
    path("dispute/<str:token>/", organizations.dispute, name="dispute"),
    path("dispute-filed/", organizations.dispute_filed, name="dispute-filed"),
]
#: The employer's pages (under /employer/).
employer = [
    path("organizations/", organizations.organization_list, name="organization-list"),
    path(
        "organizations/<id:employer_id>/",
        organizations.organization_members,
        name="organization-members",
    ),
    path(
        "organizations/<id:employer_id>/proof/",
        organizations.organization_proof,
        name="organization-proof",
    ),
    path(
        "organizations/<id:employer_id>/members/<id:membership_id>/role/",
        organizations.member_role,
        name="organization-member-role",
    ),
    path(
        "organizations/<id:employer_id>/members/<id:membership_id>/remove/",
        organizations.member_remove,
        name="organization-member-remove",
    ),
    path(
        "organizations/<id:employer_id>/invitations/<id:invitation_id>/cancel/",
        organizations.invitation_revoke,
        name="organization-invitation-revoke",
    ),
]
