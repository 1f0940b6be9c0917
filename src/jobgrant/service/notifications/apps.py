from django.apps import AppConfig
from django.conf import settings


class NotificationsConfig(AppConfig):
    name = "jobgrant.service.notifications"
    label = "notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        if settings.JOBGRANT_DELIVERY == "notify":
            # A bad JOBGRANT_NOTIFY_* value stops the server or worker here, at start-up.
            from jobgrant.service.notifications import notify_config

            notify_config.current()
