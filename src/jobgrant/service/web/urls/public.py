"""Pages anyone can open, signing in (the password, then the second factor) and out, and a
forgotten password."""

from django.urls import path
from django.utils.translation import gettext_lazy as _

from jobgrant.service.web.views import account_passkeys as passkeys
from jobgrant.service.web.views import public, public_demo, public_sign_in, public_standards

urlpatterns = [
    path("", public.landing, name="landing"),
    path(_("sign-in/"), public.SignInView.as_view(), name="sign-in"),
    path(_("sign-in/code/"), public_sign_in.second_factor, name="second-factor"),
    path(_("sign-in/passkey/"), passkeys.sign_in_with_passkey, name="second-factor-passkey"),
    path(_("sign-in/set-up/"), public_sign_in.second_factor_setup, name="second-factor-setup"),
    path(
        _("sign-in/recovery-codes/"),
        public_sign_in.recovery_codes,
        name="second-factor-recovery-codes",
    ),
    path(_("sign-out/"), public.sign_out, name="sign-out"),
    path(_("password-reset/"), public_sign_in.password_reset, name="password-reset"),
    path(_("password-reset/sent/"), public_sign_in.password_reset_sent, name="password-reset-sent"),
    path(_("password-reset/done/"), public_sign_in.password_reset_done, name="password-reset-done"),
    path(
        _("password-reset/<str:token>/"),
        public_sign_in.password_reset_confirm,
        name="password-reset-confirm",
    ),
    path(_("home/"), public.home, name="home"),
    path(_("demo/mail/"), public_demo.demo_mail, name="demo-mail"),
    path(_("service-standards/"), public_standards.service_standards, name="service-standards"),
    path(
        _("service-standards/csv/"),
        public_standards.service_standards_csv,
        name="service-standards-csv",
    ),
]
