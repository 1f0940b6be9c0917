"""Pages anyone can open, and signing in and out."""

from django.urls import path

from jobgrant.service.web.views import public, public_demo

urlpatterns = [
    path("", public.landing, name="landing"),
    path("sign-in/", public.SignInView.as_view(), name="sign-in"),
    path("sign-out/", public.sign_out, name="sign-out"),
    path("home/", public.home, name="home"),
    path("demo/mail/", public_demo.demo_mail, name="demo-mail"),
]
