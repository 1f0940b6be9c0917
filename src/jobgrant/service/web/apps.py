from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "jobgrant.service.web"
    label = "web"
