"""Web pages, under /en/ and /fr/ (i18n_patterns in the project's urls)."""

from django.urls import path

from jobgrant.service.web import views

app_name = "web"
urlpatterns = [
    path("", views.landing, name="landing"),
    path("sign-in/", views.SignInView.as_view(), name="sign-in"),
    path("sign-out/", views.sign_out, name="sign-out"),
    path("home/", views.home, name="home"),
]
