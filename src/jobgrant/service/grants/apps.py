from django.apps import AppConfig


class GrantsConfig(AppConfig):
    name = "jobgrant.service.grants"
    label = "grants"
    default_auto_field = "django.db.models.BigAutoField"
