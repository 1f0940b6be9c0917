"""The change requests' pages: the employer's (under employer/) and the officer's (officer/)."""

from django.urls import path

from jobgrant.service.web.views import changes, officer_changes

employer_urlpatterns = [
    path("applications/<int:application_id>/changes/", changes.changes, name="employer-changes"),
    path(
        "applications/<int:application_id>/changes/new/<str:kind>/",
        changes.change_new,
        name="employer-change-new",
    ),
    path("changes/<int:change_id>/", changes.change_detail, name="employer-change"),
]
officer_urlpatterns = [
    path("changes/", officer_changes.queue, name="officer-changes"),
    path("changes/<int:change_id>/", officer_changes.review, name="officer-change"),
    path("changes/<int:change_id>/decision/", officer_changes.decide, name="officer-change-decide"),
]
