from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "jobgrant.service.notifications"
    label = "notifications"
    default_auto_field = "django.db.models.BigAutoField"
