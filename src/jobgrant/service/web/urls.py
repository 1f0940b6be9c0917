"""Web pages, under /en/ and /fr/ (i18n_patterns in the project's urls)."""

from django.urls import include, path

from jobgrant.service.web import backoffice_urls, employer_views, views

app_name = "web"
urlpatterns = [
    path("", views.landing, name="landing"),
    path("sign-in/", views.SignInView.as_view(), name="sign-in"),
    path("sign-out/", views.sign_out, name="sign-out"),
    path("home/", views.home, name="home"),
    path("employer/", include(employer_views.urlpatterns)),
    path("", include(backoffice_urls.urlpatterns)),
]
