from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "jobgrant.service.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Their signal receivers: the session clock starts at sign-in; a lockout is audited.
        from jobgrant.service.accounts import lockout, sessions, sign_in_actions  # noqa: F401
