"""A person's own account (email, password, second factor, API tokens)."""

from django.urls import path

from jobgrant.service.web.views import account
from jobgrant.service.web.views import account_passkeys as passkeys

urlpatterns = [
    path("", account.account, name="account"),
    path("confirm/", account.confirm, name="account-confirm"),
    path("password/", account.change_password, name="account-password"),
    path("email/", account.change_email, name="account-email"),
    path("email/confirm/<str:token>/", account.confirm_email, name="account-email-confirm"),
    path("recovery-codes/", account.new_recovery_codes, name="account-recovery-codes"),
    path("second-factor/off/", account.remove_second_factor, name="account-second-factor-off"),
    path("passkeys/add/", passkeys.add_passkey, name="account-passkey-add"),
    path(
        "passkeys/<id:passkey_id>/remove/",
        passkeys.remove_passkey,
        name="account-passkey-remove",
    ),
    path("tokens/<id:token_id>/revoke/", account.revoke_token, name="account-token-revoke"),
    path("tokens/", account.all_tokens, name="account-all-tokens"),
]
