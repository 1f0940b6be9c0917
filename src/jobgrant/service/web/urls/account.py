"""A person's own account (email, password, second factor, API tokens)."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import account
from jobgrant.service.web.views import account_passkeys as passkeys

urlpatterns = [
    path("", account.account, name="account"),
    path(_("confirm/"), account.confirm, name="account-confirm"),
    path(_("password/"), account.change_password, name="account-password"),
    path(_("email/"), account.change_email, name="account-email"),
    path(_("email/confirm/<str:token>/"), account.confirm_email, name="account-email-confirm"),
    path(_("recovery-codes/"), account.new_recovery_codes, name="account-recovery-codes"),
    path(_("second-factor/off/"), account.remove_second_factor, name="account-second-factor-off"),
    path(_("passkeys/add/"), passkeys.add_passkey, name="account-passkey-add"),
    path(
        _("passkeys/<id:passkey_id>/remove/"),
        passkeys.remove_passkey,
        name="account-passkey-remove",
    ),
    path(_("tokens/<id:token_id>/revoke/"), account.revoke_token, name="account-token-revoke"),
    path(_("tokens/"), account.all_tokens, name="account-all-tokens"),
]
