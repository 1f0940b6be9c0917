from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "jobgrant.service.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Their signal receivers: the session clock starts at sign-in; a lockout is audited; an
        # authenticator's seed is sealed when saved and opened when loaded.
        from jobgrant.service.accounts import (  # noqa: F401
            lockout,
            sealed_secrets,
            sessions,
            sign_in_actions,
        )
