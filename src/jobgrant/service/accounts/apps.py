from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "jobgrant.service.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
