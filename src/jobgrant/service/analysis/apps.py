from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "jobgrant.service.analysis"
    label = "analysis"
    default_auto_field = "django.db.models.BigAutoField"
