"""The program officer's pages: the queue, an application's review and its decisions."""

from django.urls import path

from jobgrant.service.web.views import officer, officer_changes, officer_queue

urlpatterns = [
    path("", officer_queue.queue, name="officer-queue"),
    path("applications/<int:application_id>/", officer.review, name="officer-review"),
    path("applications/<int:application_id>/decision/", officer.decide, name="officer-decide"),
    path("applications/<int:application_id>/assignment/", officer.assign, name="officer-assign"),
    path("changes/", officer_changes.queue, name="officer-changes"),
    path("changes/<int:change_id>/", officer_changes.review, name="officer-change"),
    path("changes/<int:change_id>/decision/", officer_changes.decide, name="officer-change-decide"),
]
