"""Registration, invitations, an organization's people, partner requests, and staff accounts
(the administrator's pages, under /staff/)."""

from django.urls import path

from jobgrant.service.web.views import organizations, partners, staff

#: Pages anyone can open: the links in messages carry their own key.
public = [
    path("register/", organizations.register, name="register"),
    path("register/sent/", organizations.register_sent, name="register-sent"),
    path(
        "register/verify/<str:uidb64>/<str:token>/",
        organizations.verify_email,
        name="verify-email",
    ),
    path("register/verified/", organizations.verify_email_done, name="verify-email-done"),
    path("invitation/<str:token>/", organizations.invitation, name="invitation"),
    path("account/setup/<str:uidb64>/<str:token>/", staff.account_setup, name="account-setup"),
]
#: The employer's pages (under /employer/).
employer = [
    path("organizations/", organizations.organization_list, name="organization-list"),
    path(
        "organizations/<int:employer_id>/",
        organizations.organization_members,
        name="organization-members",
    ),
    path(
        "organizations/<int:employer_id>/members/<int:membership_id>/role/",
        organizations.member_role,
        name="organization-member-role",
    ),
    path(
        "organizations/<int:employer_id>/members/<int:membership_id>/remove/",
        organizations.member_remove,
        name="organization-member-remove",
    ),
    path("partner-requests/", partners.partner_requests, name="partner-requests"),
    path("partner-requests/<int:consent_id>/", partners.partner_request, name="partner-request"),
    path(
        "partner-requests/<int:consent_id>/decline/",
        partners.partner_request_decline,
        name="partner-request-decline",
    ),
]
#: The administrator's pages (under /staff/).
administrator = [
    path("", staff.staff_list, name="staff-list"),
    path("new/", staff.staff_new, name="staff-new"),
    path("<int:user_id>/", staff.staff_edit, name="staff-edit"),
    path("<int:user_id>/deactivate/", staff.staff_deactivate, name="staff-deactivate"),
    path("<int:user_id>/reactivate/", staff.staff_reactivate, name="staff-reactivate"),
]
