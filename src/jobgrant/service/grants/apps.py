from django.apps import AppConfig


class GrantsConfig(AppConfig):
    name = "jobgrant.service.grants"
    label = "grants"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """The grants' notes and reasons are checked against the audit trail (audit.anchors)."""
        from jobgrant.service.audit.anchors import register
        from jobgrant.service.grants.core.audit_anchors import CHECKS

        for check in CHECKS:
            register(check)
