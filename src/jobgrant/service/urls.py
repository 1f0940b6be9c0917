from django.urls import path

from jobgrant.service.api.api import api

urlpatterns = [
    path("api/v1/", api.urls),
]
