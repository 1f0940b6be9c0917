"""Pages anyone can open, signing in (the password, then the second factor) and out, and a
forgotten password."""

from django.urls import path

from jobgrant.service.web.views import public, public_demo, sign_in_steps

urlpatterns = [
    path("", public.landing, name="landing"),
    path("sign-in/", public.SignInView.as_view(), name="sign-in"),
    path("sign-in/code/", sign_in_steps.second_factor, name="second-factor"),
    path("sign-in/set-up/", sign_in_steps.second_factor_setup, name="second-factor-setup"),
    path(
        "sign-in/recovery-codes/",
        sign_in_steps.recovery_codes,
        name="second-factor-recovery-codes",
    ),
    path("sign-out/", public.sign_out, name="sign-out"),
    path("password-reset/", sign_in_steps.password_reset, name="password-reset"),
    path("password-reset/sent/", sign_in_steps.password_reset_sent, name="password-reset-sent"),
    path("password-reset/done/", sign_in_steps.password_reset_done, name="password-reset-done"),
    path(
        "password-reset/<uidb64>/<token>/",
        sign_in_steps.ResetConfirmView.as_view(),
        name="password-reset-confirm",
    ),
    path("home/", public.home, name="home"),
    path("demo/mail/", public_demo.demo_mail, name="demo-mail"),
]
