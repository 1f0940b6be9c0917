from django.apps import AppConfig


class RegistryConfig(AppConfig):
    name = "jobgrant.service.registry"
    label = "registry"
    default_auto_field = "django.db.models.BigAutoField"
